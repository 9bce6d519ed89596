/**
 * `"...".format([args])` from cel-go's strings extension: `%s %d %f %e %b %o %x %X %%`, with `%.Nf`/`%.Ne`
 * precision. Values print as cel-go prints them (lists `[a, b]`, maps `{k: v}`, strings unquoted at the top
 * level and quoted inside lists and maps).
 */
import { fail, spendSize } from '../runtime.js';
import { celTypeName, utf8 } from '../values.js';

function show(v: unknown, nested: boolean): string {
  switch (typeof v) {
    case 'string': return nested ? JSON.stringify(v) : v;
    case 'bigint': return v.toString();
    case 'number': return Number.isInteger(v) && Math.abs(v) < 1e21 ? v.toFixed(0) : String(v);
    case 'boolean': return String(v);
    default: break;
  }
  if (v === null) return 'null';
  if (Array.isArray(v)) return `[${v.map((x) => show(x, true)).join(', ')}]`;
  if (v instanceof Map) return `{${[...v].map(([k, x]) => `${show(k, true)}: ${show(x, true)}`).sort().join(', ')}}`;
  if (typeof v === 'object' && (v.constructor === Object || v.constructor === undefined)) {
    return `{${Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}: ${show(x, true)}`).sort().join(', ')}}`;
  }
  return String(v);
}

function integer(v: unknown, verb: string): bigint {
  if (typeof v === 'bigint') return v;
  const u = (v as { valueOf?: () => unknown } | null)?.valueOf?.();
  if (typeof u === 'bigint') return u;
  return fail(`error during formatting: ${verb} requires an int or uint, got ${celTypeName(v)}`);
}

function float(v: unknown, verb: string): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  return fail(`error during formatting: ${verb} requires a double or int, got ${celTypeName(v)}`);
}

function special(n: number): string | undefined {
  if (Number.isNaN(n)) return 'NaN';
  if (n === Infinity) return 'Infinity';
  if (n === -Infinity) return '-Infinity';
  return undefined;
}

function radix(v: unknown, base: number, verb: string): string {
  if (typeof v === 'string' && base === 16) return utf8(v).map((b) => b.toString(16).padStart(2, '0')).join('');
  if (v instanceof Uint8Array && base === 16) return Array.from(v, (b) => b.toString(16).padStart(2, '0')).join('');
  if (typeof v === 'boolean' && base === 2) return v ? '1' : '0';
  const n = integer(v, verb);
  return n < 0n ? `-${(-n).toString(base)}` : n.toString(base);
}

export function formatString(template: string, args: readonly unknown[]): string {
  let out = '';
  let next = 0;
  const arg = (verb: string): unknown => {
    if (next >= args.length) fail(`index ${next} out of range`);
    void verb;
    return args[next++];
  };
  for (let i = 0; i < template.length; i++) {
    const ch = template[i];
    if (ch !== '%') {
      out += ch;
      continue;
    }
    let j = i + 1;
    let precision: number | undefined;
    if (template[j] === '.') {
      const m = /^\.([0-9]+)/.exec(template.slice(j));
      if (!m) fail('error during formatting: unable to find end of precision specifier');
      precision = Number(m[1]);
      j += m[0].length;
    }
    const verb = template[j];
    switch (verb) {
      case '%': out += '%'; break;
      case 's': out += show(arg('%s'), false); break;
      case 'd': out += integer(arg('%d'), '%d').toString(); break;
      case 'f': { const n = float(arg('%f'), '%f'); out += special(n) ?? n.toFixed(precision ?? 6); break; }
      case 'e': {
        const n = float(arg('%e'), '%e');
        out += special(n) ?? n.toExponential(precision ?? 6).replace(/e([+-])(\d)$/, 'e$10$2');
        break;
      }
      case 'b': out += radix(arg('%b'), 2, '%b'); break;
      case 'o': out += radix(arg('%o'), 8, '%o'); break;
      case 'x': out += radix(arg('%x'), 16, '%x'); break;
      case 'X': out += radix(arg('%X'), 16, '%X').toUpperCase(); break;
      default: fail(`could not parse formatting clause: unrecognized formatting clause "${verb ?? ''}"`);
    }
    i = j;
  }
  spendSize(out.length);
  return out;
}
