/**
 * The strings extension at the version the Kubernetes API server pins (cel-go `ext.Strings(ext.StringsVersion(2))`,
 * environment/base.go): charAt, indexOf, lastIndexOf, lowerAscii, upperAscii, replace, split, substring, trim,
 * join, format, strings.quote. Indexes count code points, as in Go. cel-js has some of these with other
 * semantics (Unicode case mapping, UTF-16 indexes); verdict's versions replace them at their call sites.
 * `reverse` (version 3) is not in Kubernetes, so not here either. Every function spends in proportion to its input.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { DECLINE } from '../ast.js';
import { fail, spend, spendSize } from '../runtime.js';
import { formatString } from './format-string.js';
import type { CelLibrary, Override } from './index.js';

const cps = (s: string): string[] => Array.from(s);

function index(s: string, sub: string, offset = 0n): bigint {
  const runes = cps(s);
  if (offset < 0n || offset > BigInt(runes.length)) fail(`index out of range: ${offset}`);
  const start = Number(offset);
  const prefix = runes.slice(0, start).join('');
  const at = s.indexOf(sub, prefix.length);
  return at < 0 ? -1n : BigInt(cps(s.slice(0, at)).length);
}

function lastIndex(s: string, sub: string, offset?: bigint): bigint {
  const runes = cps(s);
  const end = offset === undefined ? runes.length : Number(offset);
  if (offset !== undefined && (offset < 0n || offset > BigInt(runes.length))) fail(`index out of range: ${offset}`);
  const head = runes.slice(0, end).join('');
  if (sub === '') return BigInt(end);
  const at = s.lastIndexOf(sub, head.length);
  return at < 0 ? -1n : BigInt(cps(s.slice(0, at)).length);
}

function substring(s: string, start: bigint, end?: bigint): string {
  const runes = cps(s);
  const n = BigInt(runes.length);
  const e = end ?? n;
  if (start < 0n || start > n) fail(`index out of range: ${start}`);
  if (e < 0n || e > n) fail(`index out of range: ${e}`);
  if (start > e) fail(`invalid substring range. start: ${start}, end: ${e}`);
  return runes.slice(Number(start), Number(e)).join('');
}

function charAt(s: string, i: bigint): string {
  const runes = cps(s);
  if (i < 0n || i > BigInt(runes.length)) fail(`index out of range: ${i}`);
  return runes[Number(i)] ?? '';
}

/** Go's strings.Replace: `n < 0` replaces every occurrence; an empty `old` matches between code points. */
function replace(s: string, old: string, repl: string, n = -1n): string {
  if (n === 0n) return s;
  if (old === '') {
    const runes = cps(s);
    // The result's size, spent before it is built (the memory bound): one insertion per code point boundary.
    spendSize(s.length + repl.length * (n < 0n ? runes.length + 1 : Math.min(runes.length + 1, Number(n))));
    let out = '';
    let done = 0n;
    for (let i = 0; i <= runes.length; i++) {
      if (n < 0n || done < n) {
        out += repl;
        done++;
      }
      out += runes[i] ?? '';
    }
    return out;
  }
  const parts = s.split(old);
  const count = n < 0n ? parts.length - 1 : Math.min(parts.length - 1, Number(n));
  spendSize(s.length + count * Math.max(0, repl.length - old.length));
  if (n < 0n || BigInt(parts.length - 1) <= n) return parts.join(repl);
  const k = Number(n);
  return parts.slice(0, k + 1).join(repl) + old + parts.slice(k + 1).join(old);
}

/** Go's strings.SplitN: `n == 0` gives [], `n < 0` every part, an empty separator splits code points. */
function split(s: string, sep: string, n = -1n): string[] {
  if (n === 0n) return [];
  const parts = sep === '' ? cps(s) : s.split(sep);
  // A list: one unit per element, as list growth elsewhere.
  spend(parts.length);
  if (n < 0n || BigInt(parts.length) <= n) return parts;
  const k = Number(n);
  return [...parts.slice(0, k - 1), parts.slice(k - 1).join(sep)];
}

const ascii = (s: string, up: boolean): string => s.replace(up ? /[a-z]+/g : /[A-Z]+/g, (m) => (up ? m.toUpperCase() : m.toLowerCase()));

/** Go's unicode.IsSpace set, as strings.TrimSpace uses it. */
const SPACE = /^[\t\n\v\f\r \u0085\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000]+|[\t\n\v\f\r \u0085\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000]+$/g;

function join(list: readonly unknown[], sep = ''): string {
  let size = 0;
  for (const item of list) {
    if (typeof item !== 'string') fail(`join: list elements must be strings, got ${typeof item}`);
    size += item.length + sep.length;
  }
  spendSize(size);
  return list.join(sep);
}

/** strings.quote: a double-quoted CEL string literal with escapes. */
function quote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const code = ch.codePointAt(0)!;
    switch (ch) {
      case '\\': out += '\\\\'; break;
      case '"': out += '\\"'; break;
      case '\n': out += '\\n'; break;
      case '\r': out += '\\r'; break;
      case '\t': out += '\\t'; break;
      case '\b': out += '\\b'; break;
      case '\f': out += '\\f'; break;
      case '\v': out += '\\v'; break;
      case '\x07': out += '\\a'; break;
      default: out += code < 0x20 || code === 0x7f ? `\\x${code.toString(16).padStart(2, '0')}` : ch;
    }
  }
  return `${out}"`;
}

/** A string method: spends for the receiver's (and the result's) size, declines non-string receivers. */
function method(f: (s: string, ...args: never[]) => unknown): Override {
  return ([s, ...args]) => {
    if (typeof s !== 'string') return DECLINE;
    spendSize(s.length);
    const out = f(s, ...(args as never[]));
    if (typeof out === 'string') spendSize(out.length);
    return out;
  };
}

const METHODS: Record<string, (s: string, ...args: never[]) => unknown> = {
  '.charAt/1': charAt,
  '.indexOf/1': (s, sub: string) => index(s, sub),
  '.indexOf/2': index,
  '.lastIndexOf/1': (s, sub: string) => lastIndex(s, sub),
  '.lastIndexOf/2': lastIndex,
  '.lowerAscii/0': (s) => ascii(s, false),
  '.upperAscii/0': (s) => ascii(s, true),
  '.replace/2': (s, a: string, b: string) => replace(s, a, b),
  '.replace/3': replace,
  '.split/1': (s, sep: string) => split(s, sep),
  '.split/2': split,
  '.substring/1': (s, start: bigint) => substring(s, start),
  '.substring/2': substring,
  '.trim/0': (s) => s.replace(SPACE, ''),
  '.format/1': (s, args: readonly unknown[]) => formatString(s, args),
};

function register(env: Environment): void {
  const m = (sig: string, key: string) => env.registerFunction(sig, (...a: never[]) => method(METHODS[key]!)(a) as never);
  m('string.charAt(int): string', '.charAt/1');
  m('string.replace(string, string): string', '.replace/2');
  m('string.replace(string, string, int): string', '.replace/3');
  m('string.format(list<dyn>): string', '.format/1');
  class StringsNamespace {}
  env.registerType('StringsNamespace', StringsNamespace);
  env.registerConstant('strings', 'StringsNamespace', new StringsNamespace());
  env.registerFunction('StringsNamespace.quote(string): string', (_ns: unknown, s: string) => {
    spendSize(s.length);
    return quote(s);
  });
}

const overrides: Record<string, Override> = Object.fromEntries(Object.entries(METHODS).map(([k, f]) => [k, method(f)]));
overrides['.join/0'] = ([list]) => (Array.isArray(list) ? join(list) : DECLINE);
overrides['.join/1'] = ([list, sep]) => (Array.isArray(list) && typeof sep === 'string' ? join(list, sep) : DECLINE);

export const stringsLibrary: CelLibrary = { name: 'strings', register, overrides };
