/**
 * Kyverno CLI's comparison of a patched resource with the expected one
 * (`cmd/cli/kubectl-kyverno/commands/test/compare.go`, `resource/compare.go`,
 * `tidy.go`, `labels.go`): empty maps and lists and nulls are dropped (at any
 * depth), the labels `generate.kyverno.io/*` are ignored and
 * `app.kubernetes.io/managed-by` is `kyverno` unless the resource sets it;
 * what remains must be equal (as JSON values: a merge patch between them is
 * empty). A difference is shown as a line diff of both resources in YAML.
 */
import type { CheckResult } from '../checks.js';

type Raw = Record<string, unknown>;
const isRaw = (v: unknown): v is Raw => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Kyverno's `Tidy`: nulls, empty maps and empty lists removed, bottom up. */
export function tidy(value: unknown): unknown {
  if (Array.isArray(value)) {
    const out = value.map(tidy).filter((v) => v !== undefined);
    return out.length > 0 ? out : undefined;
  }
  if (isRaw(value)) {
    const out: Raw = {};
    for (const [k, v] of Object.entries(value)) {
      const t = tidy(v);
      if (t !== undefined) Object.defineProperty(out, k, { value: t, enumerable: true, writable: true, configurable: true });
    }
    return Object.keys(out).length > 0 ? out : undefined;
  }
  return value === null ? undefined : value;
}

/** Kyverno's `FixupGenerateLabels`, then `Tidy`. */
function comparable(resource: Raw): unknown {
  const metadata = isRaw(resource['metadata']) ? resource['metadata'] : {};
  const labels: Raw = { 'app.kubernetes.io/managed-by': 'kyverno' };
  for (const [k, v] of Object.entries(isRaw(metadata['labels']) ? metadata['labels'] : {})) if (!k.startsWith('generate.kyverno.io/')) labels[k] = v;
  return tidy({ ...resource, metadata: { ...metadata, labels } });
}

function equal(a: unknown, b: unknown): boolean {
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => equal(x, b[i]));
  if (isRaw(a)) {
    if (!isRaw(b)) return false;
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && equal(a[k], b[k]));
  }
  return a === b;
}

/** Whether `actual` is `expected` as `kyverno test` compares patched resources. */
export function kyvernoResourcesEqual(actual: Raw, expected: Raw): boolean {
  return equal(comparable(actual), comparable(expected));
}

/** Keys in order at every level, so that the diff shows differences of content, not of order. */
function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (!isRaw(value)) return value;
  const out: Raw = {};
  for (const k of Object.keys(value).sort()) Object.defineProperty(out, k, { value: sorted(value[k]), enumerable: true, writable: true, configurable: true });
  return out;
}

/** The check of a patched resource against the expected one, with both (tidied, keys sorted) for the diff. */
export function checkKyvernoPatched(actual: Raw, expected: Raw, file: string): CheckResult {
  const pass = kyvernoResourcesEqual(actual, expected);
  return {
    pass,
    expectation: `patched resource as in ${file}`,
    message: `the patched resource did not match the one in ${file} (compared as kyverno test compares them: empty fields ignored)`,
    negatedMessage: `expected the patched resource to differ from the one in ${file}`,
    expected: sorted(tidy(expected)),
    actual: sorted(tidy(actual)),
  };
}
