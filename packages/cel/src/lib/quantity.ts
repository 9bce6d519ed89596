/**
 * The Kubernetes quantity library (k8s.io/apiserver/pkg/cel/library/quantity.go): `quantity("12Mi")`,
 * `isQuantity`, comparisons, arithmetic, conversions. Values are exact: a quantity is a bigint numerator
 * over a power of ten, so `quantity("200M") == quantity("0.2G")` and 50M < 50Mi hold exactly as in
 * resource.Quantity.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { fail } from '../runtime.js';
import type { CelLibrary } from './index.js';

/** `quantity` values: `num / 10^scale`. */
export class Quantity {
  constructor(readonly num: bigint, readonly scale: number) {}

  toString(): string {
    if (this.scale === 0) return this.num.toString();
    const neg = this.num < 0n;
    const digits = (neg ? -this.num : this.num).toString().padStart(this.scale + 1, '0');
    const text = `${digits.slice(0, -this.scale)}.${digits.slice(-this.scale)}`.replace(/\.?0+$/, '');
    return neg ? `-${text}` : text;
  }
}

const ACCEPTED = /^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$/;
const NUMBER = /^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)$/;
const BINARY: Record<string, bigint> = { Ki: 1n << 10n, Mi: 1n << 20n, Gi: 1n << 30n, Ti: 1n << 40n, Pi: 1n << 50n, Ei: 1n << 60n };
const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const MAX_INT = 2n ** 63n - 1n;
const MIN_INT = -(2n ** 63n);

function parse(text: string): Quantity | string {
  if (text.length > 128) return 'quantities longer than 128 characters are not supported';
  const m = ACCEPTED.exec(text);
  if (!m || text === '') return `quantities must match the regular expression '${ACCEPTED.source}'`;
  // The pattern lets "E" (exa) and exponents through together; split as resource.Quantity does.
  let number = m[1]!;
  let suffix = m[2]!;
  if (!NUMBER.test(number)) return 'unable to parse quantity\'s number';
  const [intPart = '', frac = ''] = number.replace(/^[+-]/, '').split('.');
  const neg = number.startsWith('-');
  number = `${intPart}${frac}` || '0';
  let num = BigInt(number) * (neg ? -1n : 1n);
  let scale = frac.length;
  if (Object.hasOwn(BINARY, suffix)) num *= BINARY[suffix]!;
  else if (Object.hasOwn(DECIMAL, suffix)) scale -= DECIMAL[suffix]!;
  else if (/^[eE][-+]?[0-9]+$/.test(suffix)) {
    const exp = Number(suffix.slice(1));
    if (Math.abs(exp) > 100) return 'unable to parse quantity\'s suffix';
    scale -= exp;
  } else return 'unable to parse quantity\'s suffix';
  void (suffix = '');
  return normalise(num, scale);
}

function normalise(num: bigint, scale: number): Quantity {
  while (scale < 0) {
    num *= 10n;
    scale++;
  }
  while (scale > 0 && num % 10n === 0n) {
    num /= 10n;
    scale--;
  }
  return new Quantity(num, scale);
}

const parsed = new Map<string, Quantity | string>();

/** Parses a Kubernetes quantity (cached: quantities repeat across admissions); a CEL run-time error when it is not one. */
export function quantity(text: string): Quantity {
  let q = parsed.get(text);
  if (q === undefined) {
    q = parse(text);
    if (parsed.size >= 4096) parsed.clear();
    parsed.set(text, q);
  }
  return typeof q === 'string' ? fail(q) : q;
}

function align(a: Quantity, b: Quantity): [bigint, bigint, number] {
  if (a.scale === b.scale) return [a.num, b.num, a.scale];
  const scale = Math.max(a.scale, b.scale);
  return [a.num * 10n ** BigInt(scale - a.scale), b.num * 10n ** BigInt(scale - b.scale), scale];
}

export function compare(a: Quantity, b: Quantity): number {
  const [x, y] = a.scale === b.scale ? [a.num, b.num] : align(a, b);
  return x < y ? -1 : x > y ? 1 : 0;
}

const of = (v: Quantity | bigint): Quantity => (typeof v === 'bigint' ? new Quantity(v, 0) : v);

function add(a: Quantity, b: Quantity | bigint): Quantity {
  const [x, y, scale] = align(a, of(b));
  return normalise(x + y, scale);
}

function sub(a: Quantity, b: Quantity | bigint): Quantity {
  const [x, y, scale] = align(a, of(b));
  return normalise(x - y, scale);
}

function isInteger(q: Quantity): boolean {
  return q.scale === 0 && q.num >= MIN_INT && q.num <= MAX_INT;
}

function toNumber(q: Quantity): number {
  return Number(q.num) / 10 ** q.scale;
}

const DIVISION_DIGITS = 9;
const SIGNS = [-1n, 0n, 1n] as const;

function register(env: Environment): void {
  const Q = 'kubernetes.Quantity';
  env.registerType(Q, Quantity);
  env.registerFunction(`quantity(string): ${Q}`, quantity);
  env.registerFunction('isQuantity(string): bool', (text: string) => typeof parse(text) !== 'string');
  env.registerFunction(`${Q}.sign(): int`, (q: Quantity) => BigInt(q.num > 0n ? 1 : q.num < 0n ? -1 : 0));
  env.registerFunction(`${Q}.isInteger(): bool`, isInteger);
  env.registerFunction(`${Q}.asInteger(): int`, (q: Quantity) => (isInteger(q) ? q.num : fail('cannot convert value to integer')));
  env.registerFunction(`${Q}.asApproximateFloat(): double`, toNumber);
  env.registerFunction(`${Q}.compareTo(${Q}): int`, (a: Quantity, b: Quantity) => SIGNS[compare(a, b) + 1]!);
  env.registerFunction(`${Q}.isLessThan(${Q}): bool`, (a: Quantity, b: Quantity) => compare(a, b) < 0);
  env.registerFunction(`${Q}.isGreaterThan(${Q}): bool`, (a: Quantity, b: Quantity) => compare(a, b) > 0);
  env.registerFunction(`${Q}.add(${Q}): ${Q}`, add);
  env.registerFunction(`${Q}.add(int): ${Q}`, add);
  env.registerFunction(`${Q}.sub(${Q}): ${Q}`, sub);
  env.registerFunction(`${Q}.sub(int): ${Q}`, sub);
  env.registerFunction(`${Q}.mul(int): ${Q}`, (a: Quantity, n: bigint) => normalise(a.num * n, a.scale));
  env.registerFunction(`${Q}.div(int): ${Q}`, (a: Quantity, n: bigint) => {
    if (n === 0n) fail('division by zero');
    return normalise((a.num * 10n ** BigInt(DIVISION_DIGITS)) / n, a.scale + DIVISION_DIGITS);
  });
  env.registerFunction(`${Q}.divInt(int): ${Q}`, (a: Quantity, n: bigint) => {
    if (n === 0n) fail('division by zero');
    return normalise(a.num / (n * 10n ** BigInt(a.scale)), 0);
  });
  env.registerOperator(`${Q} == ${Q}`, (a: Quantity, b: Quantity) => compare(a, b) === 0);
}

export const quantityLibrary: CelLibrary = { name: 'quantity', register };
