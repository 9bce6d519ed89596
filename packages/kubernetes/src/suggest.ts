/**
 * "Did you mean …?" for misspelt enum values (`Namespace` for `Namespaced`).
 * Core keeps its own copy private; this is the same small edit-distance rule.
 */

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = row[j]!;
      row[j] = Math.min(up + 1, row[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return row[b.length]!;
}

/** `; did you mean "x"?` for the closest candidate within a small edit distance (case-insensitive), else `''`. */
export function didYouMean(word: string, candidates: readonly string[]): string {
  const lower = word.toLowerCase();
  let best: string | undefined;
  let score = Infinity;
  for (const candidate of candidates) {
    const d = distance(lower, candidate.toLowerCase());
    if (d < score) {
      best = candidate;
      score = d;
    }
  }
  return best !== undefined && score <= Math.max(2, Math.floor(word.length / 3)) ? `; did you mean "${best}"?` : '';
}

/** Describes a value's type for messages: `a list`, `null`, `nothing` (undefined), `a number`. */
export function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
