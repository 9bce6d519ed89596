/**
 * The Kubernetes semver library (k8s.io/apiserver/pkg/cel/library/semverlib.go, version 1): `semver(s)`,
 * `semver(s, normalize)`, `isSemver`, major/minor/patch, comparisons by semver precedence (build metadata
 * ignored). Normalisation (the second argument) accepts a leading "v", missing minor/patch and leading zeros.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { fail, spend } from '../runtime.js';
import { scanUnits, stringSize } from './costed.js';
import type { CelLibrary } from './index.js';

export class Semver {
  constructor(readonly major: bigint, readonly minor: bigint, readonly patch: bigint, readonly pre: readonly string[]) {}
}

const STRICT = /^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$/;

function normalise(text: string): string {
  let s = text.startsWith('v') ? text.slice(1) : text;
  const cut = s.search(/[-+]/);
  const core = cut < 0 ? s : s.slice(0, cut);
  const tail = cut < 0 ? '' : s.slice(cut);
  const parts = core.split('.');
  while (parts.length < 3) parts.push('0');
  s = parts.map((p) => (/^[0-9]+$/.test(p) ? p.replace(/^0+(?=[0-9])/, '') : p)).join('.') + tail;
  return s;
}

/** Why github.com/blang/semver's Parse refuses a version (the message the API server returns). */
function blangError(s: string): string | undefined {
  if (s.length === 0) return 'Version string empty';
  const parts = s.split('.');
  if (parts.length < 3) return 'No Major.Minor.Patch elements found';
  const [major, minor] = parts as [string, string];
  let patch = parts.slice(2).join('.');
  const number = (what: string, n: string): string | undefined => {
    if (!/^[0-9]+$/.test(n)) return `Invalid character(s) found in ${what} number ${JSON.stringify(n)}`;
    if (n.length > 1 && n.startsWith('0')) return `${what[0]!.toUpperCase()}${what.slice(1)} number must not contain leading zeroes ${JSON.stringify(n)}`;
    return undefined;
  };
  const plus = patch.indexOf('+');
  const build = plus < 0 ? [] : patch.slice(plus + 1).split('.');
  if (plus >= 0) patch = patch.slice(0, plus);
  const dash = patch.indexOf('-');
  const pre = dash < 0 ? [] : patch.slice(dash + 1).split('.');
  if (dash >= 0) patch = patch.slice(0, dash);
  const bad = number('major', major) ?? number('minor', minor) ?? number('patch', patch);
  if (bad) return bad;
  for (const p of pre) {
    if (p === '') return 'Prerelease is empty';
    if (!/^[0-9A-Za-z-]+$/.test(p)) return `Invalid character(s) found in prerelease ${JSON.stringify(p)}`;
    if (/^[0-9]+$/.test(p) && p.length > 1 && p.startsWith('0')) return `Numeric PreRelease version must not contain leading zeroes ${JSON.stringify(p)}`;
  }
  for (const b of build) {
    if (b === '') return 'Build meta data is empty';
    if (!/^[0-9A-Za-z-]+$/.test(b)) return `Invalid character(s) found in build meta data ${JSON.stringify(b)}`;
  }
  return undefined;
}

export function parseSemver(text: string, normalize = false): Semver | string {
  if (text.length > 256) return 'semver string too long';
  const m = STRICT.exec(normalize ? normalise(text) : text);
  if (!m) return blangError(normalize ? normalise(text) : text) ?? `could not parse ${JSON.stringify(text)} as semver`;
  const pre = m[4] ? m[4].split('.') : [];
  if (pre.some((id) => /^0[0-9]+$/.test(id))) return `could not parse ${JSON.stringify(text)} as semver: numeric prerelease identifiers must not have leading zeros`;
  return new Semver(BigInt(m[1]!), BigInt(m[2]!), BigInt(m[3]!), pre);
}

function cmpId(a: string, b: string): number {
  const an = /^[0-9]+$/.test(a);
  const bn = /^[0-9]+$/.test(b);
  if (an && bn) return Math.sign(Number(BigInt(a) - BigInt(b)));
  if (an !== bn) return an ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

export function compareSemver(a: Semver, b: Semver): number {
  for (const k of ['major', 'minor', 'patch'] as const) if (a[k] !== b[k]) return a[k] < b[k] ? -1 : 1;
  if (a.pre.length === 0 || b.pre.length === 0) return a.pre.length === b.pre.length ? 0 : a.pre.length === 0 ? 1 : -1;
  for (let i = 0; i < Math.min(a.pre.length, b.pre.length); i++) {
    const c = cmpId(a.pre[i]!, b.pre[i]!);
    if (c !== 0) return c;
  }
  return Math.sign(a.pre.length - b.pre.length);
}

function register(env: Environment): void {
  const S = 'kubernetes.Semver';
  env.registerType(S, Semver);
  // semver and isSemver are a parse (library/cost.go): one unit per ten code points, rounded up. The accessors,
  // comparisons and `==` are the default one unit, charged by the static pass.
  const parse = (s: string, normalize = false) => {
    spend(scanUnits(stringSize(s)));
    const v = parseSemver(s, normalize);
    return typeof v === 'string' ? fail(v) : v;
  };
  env.registerFunction(`semver(string): ${S}`, (s: string) => parse(s));
  env.registerFunction(`semver(string, bool): ${S}`, parse);
  const isSemver = (s: string, normalize?: boolean) => {
    spend(scanUnits(stringSize(s)));
    return typeof parseSemver(s, normalize) !== 'string';
  };
  env.registerFunction('isSemver(string): bool', (s: string) => isSemver(s));
  env.registerFunction('isSemver(string, bool): bool', isSemver);
  env.registerFunction(`${S}.major(): int`, (v: Semver) => v.major);
  env.registerFunction(`${S}.minor(): int`, (v: Semver) => v.minor);
  env.registerFunction(`${S}.patch(): int`, (v: Semver) => v.patch);
  env.registerFunction(`${S}.compareTo(${S}): int`, (a: Semver, b: Semver) => BigInt(compareSemver(a, b)));
  env.registerFunction(`${S}.isLessThan(${S}): bool`, (a: Semver, b: Semver) => compareSemver(a, b) < 0);
  env.registerFunction(`${S}.isGreaterThan(${S}): bool`, (a: Semver, b: Semver) => compareSemver(a, b) > 0);
  env.registerOperator(`${S} == ${S}`, (a: Semver, b: Semver) => compareSemver(a, b) === 0);
}

export const semverLibrary: CelLibrary = { name: 'semver', register };
