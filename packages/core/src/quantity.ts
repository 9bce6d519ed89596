/**
 * Kubernetes resource quantities (`resource.Quantity`): `16Gi`, `500m`,
 * `1.5`, `2e3`, `128974848`. Binary suffixes Ki…Ei, decimal suffixes n u m k M G T P E,
 * and decimal exponents.
 */

const QUANTITY_RE = /^([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))(?:(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)|[eE]([+-]?[0-9]+))?$/;

const MULTIPLIERS: Record<string, number> = {
  Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60,
  n: 1e-9, u: 1e-6, m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18,
};

const cache = new Map<string, number | null>();

function parse(text: string): number | null {
  const m = QUANTITY_RE.exec(text.trim());
  if (!m) return null;
  const base = Number(m[1]);
  if (m[2] !== undefined) return base * MULTIPLIERS[m[2]]!;
  if (m[3] !== undefined) return base * 10 ** Number(m[3]);
  return base;
}

/**
 * A quantity as a number (`"16Gi"` → 17179869184, `"500m"` → 0.5). Numbers pass
 * through; anything that cannot be parsed (including a missing value) gives `null`.
 */
export function parseQuantity(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value !== 'string' || value.length > 64) return null;
  let n = cache.get(value);
  if (n === undefined) {
    n = parse(value);
    if (cache.size >= 4096) cache.clear();
    cache.set(value, n);
  }
  return n;
}
