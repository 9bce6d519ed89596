/**
 * Gatekeeper wildcards (`pkg/wildcard/wildcard.go`): a `*` only at the start
 * and/or the end. `*x*` contains x, `*x` ends with x, `x*` starts with x,
 * anything else is exact. Not minimatch: `kube-` never matches `kube-system`.
 */

export type NameMatcher = (candidate: string) => boolean;

/** `Wildcard.Matches`. */
export function wildcardMatcher(pattern: string): NameMatcher {
  const starts = pattern.startsWith('*');
  const ends = pattern.endsWith('*');
  if (starts && ends) {
    const inner = pattern.slice(1).replace(/\*$/, '');
    return (candidate) => candidate.includes(inner);
  }
  if (starts) {
    const suffix = pattern.slice(1);
    return (candidate) => candidate.endsWith(suffix);
  }
  if (ends) {
    const prefix = pattern.slice(0, -1);
    return (candidate) => candidate.startsWith(prefix);
  }
  return (candidate) => candidate === pattern;
}

/** `Wildcard.MatchesGenerateName`: only the contains (`*x*`) and prefix (`x*`) forms can match a generateName. */
export function generateNameMatcher(pattern: string): NameMatcher {
  const starts = pattern.startsWith('*');
  const ends = pattern.endsWith('*');
  if (starts && ends) {
    const inner = pattern.slice(1).replace(/\*$/, '');
    return (candidate) => candidate.includes(inner);
  }
  if (ends) {
    const prefix = pattern.slice(0, -1);
    return (candidate) => candidate.startsWith(prefix);
  }
  return () => false;
}

/** Why a pattern is not a Gatekeeper wildcard, or `undefined` when it is one. */
export function wildcardError(pattern: unknown): string | undefined {
  if (typeof pattern !== 'string') return `expected a name or a wildcard such as "kube-*" (got ${pattern === null ? 'null' : typeof pattern})`;
  const inner = pattern.replace(/^\*/, '').replace(/\*$/, '');
  if (inner.includes('*')) {
    return `"${pattern}" has a "*" in the middle; Gatekeeper wildcards allow "*" only at the start and/or the end (prefix "kube-*", suffix "*-system", contains "*system*")`;
  }
  return undefined;
}
