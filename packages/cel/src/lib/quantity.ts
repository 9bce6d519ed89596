/**
 * The Kubernetes quantity library (k8s.io/apiserver/pkg/cel/library/quantity.go): `quantity("12Mi")`,
 * `isQuantity`, comparisons, arithmetic, conversions. Values are exact: a quantity is a bigint numerator
 * over a power of ten, so `quantity("200M") == quantity("0.2G")` and 50M < 50Mi hold exactly as in
 * resource.Quantity. Parsing rounds up to a nano and keeps the format, and {@link formatQuantity} writes
 * resource.Quantity's canonical text (k8s.io/apimachinery/pkg/api/resource), so adapters that rewrite
 * quantities (kinitiras' resource oversell) write them as the API server would.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { fail, spend } from '../runtime.js';
import { scanUnits, stringSize } from './costed.js';
import type { CelLibrary } from './index.js';

/** A quantity's exact value: `num / 10^scale`. */
export class Quantity {
  constructor(
    /** The numerator. */
    readonly num: bigint,
    /** The number of decimals: the value is `num / 10^scale`. */
    readonly scale: number,
  ) {}

  /** The value as a plain decimal (`0.25`, `1024`); {@link formatQuantity} writes Kubernetes' form. */
  toString(): string {
    if (this.scale === 0) return this.num.toString();
    const neg = this.num < 0n;
    const digits = (neg ? -this.num : this.num).toString().padStart(this.scale + 1, '0');
    const text = `${digits.slice(0, -this.scale)}.${digits.slice(-this.scale)}`.replace(/\.?0+$/, '');
    return neg ? `-${text}` : text;
  }
}

const ACCEPTED = /^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$/;
const NUMBER = /^([+-]?)0*([0-9]*)(?:\.([0-9]*))?$/;
const BINARY: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const MAX_INT = 2n ** 63n - 1n;
const MIN_INT = -(2n ** 63n);
const NANO = 9;

/** resource.Quantity's formats: how a quantity is written back (`12e6`, `12Mi`, `12M`). */
export type QuantityFormat = 'DecimalExponent' | 'BinarySI' | 'DecimalSI';

/** A parsed quantity as resource.Quantity holds it: its value, its format, and its text when ParseQuantity keeps it as canonical. */
export interface ParsedQuantity {
  /** The exact value, rounded up to a nano as ParseQuantity rounds it. */
  readonly value: Quantity;
  /** The format its suffix gives (BinarySI between 0 and 1 becomes DecimalSI). */
  readonly format: QuantityFormat;
  /**
   * Its JSON text (resource.Quantity.MarshalJSON): the text as written where ParseQuantity keeps it as
   * canonical, otherwise {@link formatQuantity}'s.
   */
  readonly text: string;
}

/** resource.ParseQuantity's limit on a quantity's length. */
const MAX_QUANTITY_LENGTH = 128;
const TOO_LONG = 'quantities longer than 128 characters are not supported';

const ZERO: ParsedQuantity = { value: new Quantity(0n, 0), format: 'DecimalSI', text: '0' };

/** resource.ParseQuantity: the exact value rounded up to a nano, BinarySI capped at 2^63-1, with the format and kept text. */
function parseFull(text: string): ParsedQuantity | string {
  if (text.length > MAX_QUANTITY_LENGTH) return TOO_LONG;
  if (text === '0') return ZERO;
  const m = ACCEPTED.exec(text);
  if (!m || text === '') return `quantities must match the regular expression '${ACCEPTED.source}'`;
  const n = NUMBER.exec(m[1]!);
  if (!n) return 'unable to parse quantity\'s number';
  const suffix = m[2]!;
  const negative = n[1] === '-';
  const num = n[2] || '0';
  const denom = n[3] ?? '';
  let format: QuantityFormat;
  let exponent: number;
  if (Object.hasOwn(DECIMAL, suffix)) [format, exponent] = ['DecimalSI', DECIMAL[suffix]!];
  else if (Object.hasOwn(BINARY, suffix)) [format, exponent] = ['BinarySI', BINARY[suffix]!];
  else if (/^[eE][-+]?[0-9]+$/.test(suffix)) {
    exponent = Number(suffix.slice(1));
    // A bound of ours (Go's is the int32 range): the value is exact, so its digits grow with the exponent.
    if (Math.abs(exponent) > 100) return 'unable to parse quantity\'s suffix';
    format = 'DecimalExponent';
  } else return 'unable to parse quantity\'s suffix';
  const digits = BigInt(num + denom);
  let value = format === 'BinarySI'
    ? normalise(digits << BigInt(exponent), denom.length)
    : normalise(digits, denom.length - exponent);
  value = roundUp(value, NANO);
  if (format === 'BinarySI' && value.num > MAX_INT * 10n ** BigInt(value.scale)) value = new Quantity(MAX_INT, 0);
  if (format === 'BinarySI' && value.num > 0n && value.scale > 0 && value.num < 10n ** BigInt(value.scale)) format = 'DecimalSI';
  if (negative) value = new Quantity(-value.num, value.scale);
  return { value, format, text: keepsText(format, exponent, num, denom) ? text : formatQuantity(value, format) };
}

/** ParseQuantity's fast path keeps the string when it is already canonical (quantity.go, "reuse the string"). */
function keepsText(format: QuantityFormat, exponent: number, num: string, denom: string): boolean {
  const shifted = num + denom;
  if (format === 'BinarySI') {
    if (exponent < 0 || denom.length > 0) return false;
    // Go: precision = 15 - len(num) - int32(float32(exponent)*3/10) - 1
    if (15 - num.length - Math.trunc((exponent * 3) / 10) - 1 < 0) return false;
    const v = BigInt(num);
    if ((v << BigInt(exponent)) > MAX_INT) return false;
    return exponent % 10 === 0 && (v & 7n) !== 0n;
  }
  const scale = exponent - denom.length;
  if (18 - shifted.length < 0 || scale < -NANO) return false;
  return scale % 3 === 0 && !shifted.endsWith('000') && shifted[0] !== '0';
}

function parse(text: string): Quantity | string {
  const q = parseFull(text);
  return typeof q === 'string' ? q : q.value;
}

/** The value rounded away from zero to `digits` decimals (inf.RoundUp). */
function roundUp(q: Quantity, digits: number): Quantity {
  if (q.scale <= digits) return q;
  const step = 10n ** BigInt(q.scale - digits);
  const magnitude = q.num < 0n ? -q.num : q.num;
  const rounded = (magnitude + step - 1n) / step;
  return normalise(q.num < 0n ? -rounded : rounded, digits);
}

/** The value in units of 10^scale, rounded away from zero as resource.Quantity.RoundUp (`MilliValue` is scale -3, `Value` scale 0). */
export function scaledValue(q: Quantity, scale: number): bigint {
  const shift = q.scale + scale;
  if (shift <= 0) return q.num * 10n ** BigInt(-shift);
  const step = 10n ** BigInt(shift);
  const magnitude = q.num < 0n ? -q.num : q.num;
  const units = (magnitude + step - 1n) / step;
  return q.num < 0n ? -units : units;
}

const DECIMAL_SUFFIX: ReadonlyMap<number, string> = new Map(Object.entries(DECIMAL).map(([s, e]) => [e, s]));
const BINARY_SUFFIX = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];

/**
 * resource.Quantity's canonical text (`String()`, `MarshalJSON`): BinarySI as a multiple of a power of 1024
 * when it is an integer of at least 1024, otherwise decimal with an SI suffix and an exponent that is a
 * multiple of 3; past the suffixes (above `E`, below `n`, above `Ei`) the exponent form.
 */
export function formatQuantity(value: Quantity, format: QuantityFormat): string {
  const q = normalise(value.num, value.scale);
  if (q.num === 0n) return '0';
  const sign = q.num < 0n ? '-' : '';
  let magnitude = q.num < 0n ? -q.num : q.num;
  let f = format;
  if (f === 'BinarySI' && (q.scale > 0 || magnitude < 1024n)) f = 'DecimalSI';
  if (f === 'BinarySI') {
    let power = 0;
    while (magnitude % 1024n === 0n) {
      magnitude /= 1024n;
      power++;
    }
    if (power < BINARY_SUFFIX.length) return `${sign}${magnitude}${BINARY_SUFFIX[power]}`;
    magnitude = q.num < 0n ? -q.num : q.num;
    f = 'DecimalExponent';
  }
  let exponent = -q.scale;
  while (magnitude % 10n === 0n) {
    magnitude /= 10n;
    exponent++;
  }
  while (exponent % 3 !== 0) {
    magnitude *= 10n;
    exponent--;
  }
  const si = f === 'DecimalSI' ? DECIMAL_SUFFIX.get(exponent) : undefined;
  const suffix = si ?? (exponent === 0 ? '' : `e${exponent}`);
  return `${sign}${magnitude}${suffix}`;
}

/**
 * Parses a quantity as the API server reads one (resource.ParseQuantity); throws an `Error` with
 * ParseQuantity's message when `text` is not a quantity.
 */
export function parseResourceQuantity(text: string): ParsedQuantity {
  const q = parseFull(text);
  if (typeof q === 'string') throw new Error(q);
  return q;
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
  // Never a quantity, and never kept: the cache would hold on to long strings from the input.
  if (text.length > MAX_QUANTITY_LENGTH) return fail(TOO_LONG);
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

/**
 * Parsing at the API server's cost (k8s.io/apiserver/pkg/cel/library/cost.go `CallCost`): `quantity` and
 * `isQuantity` one unit per ten code points, rounded up. Every other function and `==` is one unit, charged by the
 * static pass (their work is bounded by a quantity's size, which parsing bounds).
 */
function parsing<R>(f: (text: string) => R): (text: string) => R {
  return (text) => {
    spend(scanUnits(stringSize(text)));
    return f(text);
  };
}

function register(env: Environment): void {
  const Q = 'kubernetes.Quantity';
  env.registerType(Q, Quantity);
  env.registerFunction(`quantity(string): ${Q}`, parsing(quantity));
  env.registerFunction('isQuantity(string): bool', parsing((text: string) => typeof parse(text) !== 'string'));
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
