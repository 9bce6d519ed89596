/**
 * `"...".format([args])` of cel-go's strings extension, as the CEL specification's conformance tests define
 * it (cel-spec's string_ext tests; cel-go's ext/formatting_v2.go): `%s %d %f %e %b %o %x %X %%`, with a
 * precision (`%.3f`, `%.2e`). Written here because no library formats CEL values: numbers follow Go's `fmt`
 * (`%f`/`%e` round the exact binary value half to even, as Go does, where JavaScript's toFixed rounds half
 * up: `"%.0f".format([2.5])` is "2"), `%s` prints a double in its shortest form without an exponent, a
 * timestamp in RFC 3339 (UTC, fraction without trailing zeros), a duration in seconds (`7200s`), bytes as
 * text, a type by its name, and lists and maps with their elements unquoted (`[a, 3.14]`, map entries
 * sorted by their printed keys: `{k: v}`). Errors are cel-go's messages.
 */
import { fail, keyUnits, work } from '../runtime.js';
import { celTypeName, utf8 } from '../values.js';
import { workOver } from './costed.js';

/** The type name cel-go's messages use (`google.protobuf.Duration`, `null_type`). */
function typeName(v: unknown): string {
  if (v === null) return 'null_type';
  if (v instanceof Date) return 'google.protobuf.Timestamp';
  const name = celTypeName(v);
  if (name === 'Duration') return 'google.protobuf.Duration';
  if (name === 'Type') return 'type';
  return name;
}

/** A type value's name as cel-go prints it: cel-js calls the type of null `null`, cel-go `null_type`. */
function printedTypeName(name: string): string {
  return name === 'null' ? 'null_type' : name;
}

const STRING_CLAUSE = 'string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps, was given';

function clauseError(message: string, v: unknown): never {
  return fail(`error during formatting: ${message} ${typeName(v)}`);
}

/** An unsigned int of cel-js (its class is not exported as a type the core build sees). */
function uintOf(v: unknown): bigint | undefined {
  if (v === null || typeof v !== 'object' || (v as { constructor?: { name?: string } }).constructor?.name !== 'UnsignedInt') return undefined;
  return (v as { valueOf(): bigint }).valueOf();
}

function special(n: number): string | undefined {
  if (Number.isNaN(n)) return 'NaN';
  if (n === Infinity) return 'Infinity';
  if (n === -Infinity) return '-Infinity';
  return undefined;
}

/** The exact value of a finite double's magnitude as `digits / 10^scale` (every double is a finite decimal). */
function exact(x: number): { digits: bigint; scale: number } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(x));
  const hi = view.getUint32(0);
  const lo = view.getUint32(4);
  const biased = (hi >>> 20) & 0x7ff;
  let mantissa = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  let exponent = -1074;
  if (biased !== 0) {
    mantissa |= 1n << 52n;
    exponent = biased - 1075;
  }
  if (exponent >= 0) return { digits: mantissa << BigInt(exponent), scale: 0 };
  // m / 2^k = m * 5^k / 10^k
  return { digits: mantissa * 5n ** BigInt(-exponent), scale: -exponent };
}

/** `n / d` rounded to the nearest integer, ties to even (Go's rounding of the exact decimal value). */
function roundHalfEven(n: bigint, d: bigint): bigint {
  const q = n / d;
  const twice = 2n * (n % d);
  if (twice > d || (twice === d && q % 2n === 1n)) return q + 1n;
  return q;
}

function sign(x: number): string {
  return x < 0 || Object.is(x, -0) ? '-' : '';
}

/** Go's `%.<precision>f`. */
function fixed(x: number, precision: number): string {
  const { digits, scale } = exact(x);
  const q = precision >= scale ? digits * 10n ** BigInt(precision - scale) : roundHalfEven(digits, 10n ** BigInt(scale - precision));
  const text = q.toString().padStart(precision + 1, '0');
  return sign(x) + (precision > 0 ? `${text.slice(0, -precision)}.${text.slice(-precision)}` : text);
}

/** Go's `%1.<precision>e`: one digit, the fraction, and an exponent of at least two digits. */
function scientific(x: number, precision: number): string {
  let mantissa: string;
  let exponent = 0;
  if (x === 0) mantissa = '0'.repeat(precision + 1);
  else {
    const { digits, scale } = exact(x);
    const length = digits.toString().length;
    exponent = length - 1 - scale;
    let q = length > precision + 1 ? roundHalfEven(digits, 10n ** BigInt(length - precision - 1)) : digits * 10n ** BigInt(precision + 1 - length);
    if (q.toString().length > precision + 1) {
      q /= 10n;
      exponent++;
    }
    mantissa = q.toString();
  }
  const fraction = precision > 0 ? `.${mantissa.slice(1)}` : '';
  const e = Math.abs(exponent).toString().padStart(2, '0');
  return `${sign(x)}${mantissa[0]}${fraction}e${exponent < 0 ? '-' : '+'}${e}`;
}

/** Go's `strconv.FormatFloat(x, 'f', -1, 64)`: the shortest digits that give `x` back, without an exponent. */
function shortest(x: number): string {
  const named = special(x);
  if (named !== undefined) return named;
  const [digitsPart, exponentPart] = Math.abs(x).toExponential().split('e') as [string, string];
  const digits = digitsPart.replace('.', '');
  const point = Number(exponentPart) + 1;
  let text: string;
  if (point <= 0) text = `0.${'0'.repeat(-point)}${digits}`;
  else if (point >= digits.length) text = digits + '0'.repeat(point - digits.length);
  else text = `${digits.slice(0, point)}.${digits.slice(point)}`;
  return (x < 0 ? '-' : '') + text;
}

/** Bytes as text, as Go appends them to a string (invalid UTF-8 sequences become U+FFFD). */
function bytesText(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length;) {
    const b = bytes[i]!;
    const need = b < 0x80 ? 0 : b >= 0xc2 && b < 0xe0 ? 1 : b >= 0xe0 && b < 0xf0 ? 2 : b >= 0xf0 && b < 0xf5 ? 3 : -1;
    let code = need === 0 ? b : need === 1 ? b & 0x1f : need === 2 ? b & 0x0f : b & 0x07;
    let ok = need >= 0 && i + need < bytes.length;
    for (let k = 1; ok && k <= need; k++) {
      const c = bytes[i + k]!;
      if ((c & 0xc0) !== 0x80) ok = false;
      else code = (code << 6) | (c & 0x3f);
    }
    if (ok && ((need === 2 && (code < 0x800 || (code >= 0xd800 && code < 0xe000))) || (need === 3 && (code < 0x10000 || code > 0x10ffff)))) ok = false;
    if (!ok) {
      out += '\ufffd';
      i++;
    } else {
      out += String.fromCodePoint(code);
      i += need + 1;
    }
  }
  return out;
}

/** A timestamp as Go's RFC 3339 with nanoseconds, in UTC: `2023-02-03T23:31:20Z`, `…:20.5Z`. */
function timestampText(t: Date): string {
  return t.toISOString().replace(/\.(\d*?)0*Z$/, (_m, digits: string) => (digits ? `.${digits}Z` : 'Z'));
}

/** A duration as Go's `strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s"`. */
function durationText(d: { seconds: bigint; nanos: number }): string {
  return `${shortest(Number(d.seconds) + d.nanos / 1e9)}s`;
}

/** Text written as it is between the parts of a list or map (`[`, `, `, `: `, …) by {@link text}. */
class Literal {
  constructor(readonly text: string) {}
}

const OPEN_LIST = new Literal('[');
const CLOSE_LIST = new Literal(']');
const OPEN_MAP = new Literal('{');
const CLOSE_MAP = new Literal('}');
const COMMA = new Literal(', ');
const COLON = new Literal(': ');

/** The entries of a map (a `Map` or a plain object), or undefined for any other value. */
function entriesOf(v: object): [unknown, unknown][] | undefined {
  if (v instanceof Map) return [...(v as Map<unknown, unknown>)];
  if (v.constructor === Object || v.constructor === undefined) {
    // Listing the keys is work: a spent budget stops here, before it.
    work(0);
    return Object.entries(v);
  }
  return undefined;
}

/**
 * `%s`: any CEL value but an object type, lists and maps included, printed with an explicit stack (nesting never
 * reaches the JavaScript stack); each list or map is charged as verdict's work before its elements are visited.
 */
function text(root: unknown): string {
  let out = '';
  const todo: unknown[] = [root];
  while (todo.length > 0) {
    const v = todo.pop();
    if (v instanceof Literal) {
      out += v.text;
      continue;
    }
    if (Array.isArray(v)) {
      workOver(v.length);
      todo.push(CLOSE_LIST);
      for (let i = v.length - 1; i >= 0; i--) {
        todo.push(v[i]);
        if (i > 0) todo.push(COMMA);
      }
      todo.push(OPEN_LIST);
      continue;
    }
    const entries = typeof v === 'object' && v !== null && !(v instanceof Uint8Array) && !(v instanceof Date) ? entriesOf(v) : undefined;
    if (entries) {
      // Listing, printing and sorting the keys (a wide object's keys cost V8 more to list: runtime.ts keyUnits).
      workOver(keyUnits(entries.length));
      // Keys are scalars (int, uint, bool, string): printed at once, then sorted by their text, as cel-go does.
      const printed = entries.map(([k, x]) => [scalarText(k), x] as const);
      printed.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
      todo.push(CLOSE_MAP);
      for (let i = printed.length - 1; i >= 0; i--) {
        todo.push(printed[i]![1], COLON, new Literal(printed[i]![0]));
        if (i > 0) todo.push(COMMA);
      }
      todo.push(OPEN_MAP);
      continue;
    }
    out += scalarText(v);
  }
  return out;
}

/** `%s` of a value that is not a list or map. */
function scalarText(v: unknown): string {
  switch (typeof v) {
    case 'string': return v;
    case 'bigint': return v.toString();
    case 'number': return shortest(v);
    case 'boolean': return String(v);
    default: break;
  }
  if (v === null) return 'null';
  const u = uintOf(v);
  if (u !== undefined) return u.toString();
  if (v instanceof Uint8Array) return bytesText(v);
  if (v instanceof Date) return timestampText(v);
  const name = celTypeName(v);
  if (name === 'Duration') return durationText(v as { seconds: bigint; nanos: number });
  if (name === 'Type') return printedTypeName(String((v as { name: unknown }).name));
  return clauseError(STRING_CLAUSE, v);
}

/** A double, or an int or uint as one (`%f`, `%e` take all three). */
function number(v: unknown, message: string): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  const u = uintOf(v);
  if (u !== undefined) return Number(u);
  return clauseError(message, v);
}

function integer(v: unknown, message: string): bigint {
  if (typeof v === 'bigint') return v;
  const u = uintOf(v);
  if (u !== undefined) return u;
  return clauseError(message, v);
}

function radix(n: bigint, base: number): string {
  return n < 0n ? `-${(-n).toString(base)}` : n.toString(base);
}

function hex(v: unknown): string {
  if (typeof v === 'string') return utf8(v).map((b) => b.toString(16).padStart(2, '0')).join('');
  if (v instanceof Uint8Array) return Array.from(v, (b) => b.toString(16).padStart(2, '0')).join('');
  return radix(integer(v, 'only integers, byte buffers, and strings can be formatted as hex, was given'), 16);
}

const FIXED = 'fixed-point clause can only be used on doubles, was given';
const SCIENTIFIC = 'scientific clause can only be used on doubles, was given';
const DEFAULT_PRECISION = 6;

export function formatString(template: string, args: readonly unknown[]): string {
  let out = '';
  let next = 0;
  for (let i = 0; i < template.length; i++) {
    const ch = template[i];
    if (ch !== '%') {
      out += ch;
      continue;
    }
    if (template[i + 1] === '%') {
      out += '%';
      i++;
      continue;
    }
    if (next >= args.length) fail(`index ${next} out of range`);
    if (i + 1 >= template.length) fail('unexpected end of string');
    const arg = args[next++];
    let j = i + 1;
    let precision: number | undefined;
    if (template[j] === '.') {
      const m = /^\.([0-9]*)/.exec(template.slice(j))!;
      if (j + m[0].length >= template.length) fail('could not parse formatting clause: error while parsing precision: could not find end of precision specifier');
      precision = m[1] === '' ? 0 : Number(m[1]);
      // The output grows with the precision: verdict's work (the API server charges the template's scan only), charged before it is built.
      workOver(precision);
      j += m[0].length;
    }
    const verb = template[j];
    switch (verb) {
      case 's': out += text(arg); break;
      case 'd': {
        if (typeof arg === 'number') out += shortest(arg);
        else out += integer(arg, 'decimal clause can only be used on integers, was given').toString();
        break;
      }
      case 'f': { const n = number(arg, FIXED); out += special(n) ?? fixed(n, precision ?? DEFAULT_PRECISION); break; }
      case 'e': { const n = number(arg, SCIENTIFIC); out += special(n) ?? scientific(n, precision ?? DEFAULT_PRECISION); break; }
      case 'b': out += typeof arg === 'boolean' ? (arg ? '1' : '0') : radix(integer(arg, 'only integers and bools can be formatted as binary, was given'), 2); break;
      case 'o': out += radix(integer(arg, 'octal clause can only be used on integers, was given'), 8); break;
      case 'x': out += hex(arg); break;
      case 'X': out += hex(arg).toUpperCase(); break;
      default: fail(`could not parse formatting clause: unrecognized formatting clause "${verb ?? ''}"`);
    }
    i = j;
  }
  // Building the result is verdict's work.
  workOver(out.length);
  return out;
}
