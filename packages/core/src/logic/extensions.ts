/**
 * verdict's own rule operations. They are registered beside the json-logic
 * built-ins and never replace one. Each removes a wall that json-logic-js
 * alone puts in front of real admission policies (see docs/concepts/rules.md).
 */
import { anyGlobMatcher, globMatcher, type StringMatcher } from '../patterns/glob.js';
import { textCost, UNMETERED } from '../budget.js';
import { compileRegex } from '../patterns/regex.js';
import { parseQuantity } from '../quantity.js';
import { isPlainObject, ownGet } from '../util/object.js';
import { spentText } from './builtins.js';
import { describeOperand, present } from './compare.js';
import { parseImageReference } from './image.js';
import { makeWalker, truthy, type Fn, type Scope } from './scope.js';

export type Args = readonly Fn[];

/** The scope of work done at load time (constant patterns): never metered. */
const FOLD_SCOPE = { meter: UNMETERED } as Scope;

/** Set when an argument is a compile-time constant. */
export const CONSTANTS = new WeakMap<Fn, unknown>();

export function constant(value: unknown): Fn {
  const fn: Fn = () => value;
  CONSTANTS.set(fn, value);
  return fn;
}

export function isConstant(fn: Fn | undefined): boolean {
  return fn !== undefined && CONSTANTS.has(fn);
}

/** Matchers for pattern lists read at evaluation time, by list (parameters are frozen, so each list is compiled once). */
const listMatchers = new WeakMap<readonly unknown[], StringMatcher>();
const NOTHING: StringMatcher = () => false;

/** The matcher for patterns read at evaluation time; charges 1 unit per 10 pattern characters (patterns may come from the input). */
function patternsMatcher(value: unknown, s: Scope): StringMatcher {
  if (typeof value === 'string') {
    s.meter.spendText(value.length);
    return globMatcher(value);
  }
  if (!Array.isArray(value)) return NOTHING;
  let chars = 0;
  for (const p of value) if (typeof p === 'string') chars += p.length;
  s.meter.spend(value.length + textCost(chars));
  let m = listMatchers.get(value);
  if (!m) {
    m = anyGlobMatcher(value.filter((p): p is string => typeof p === 'string'));
    if (Object.isFrozen(value)) listMatchers.set(value, m);
  }
  return m;
}

function arg(args: Args, i: number): Fn {
  return args[i] ?? constant(undefined);
}

/**
 * The value a match tests (`glob`'s second argument, `starts_with`'s first, …):
 * missing or null, it has no answer (see `present` in compare.ts), so no
 * negation can turn a typo in its path into a pass.
 */
function tested(op: string, fn: Fn | undefined, node: unknown): Fn {
  const source = describeOperand(node);
  if (!fn) return () => present(op, undefined, source);
  return (d, s) => present(op, fn(d, s), source);
}

/** Extension operations that take evaluated arguments. `Error`s thrown here become load problems. */
export const EXTENSIONS: Record<string, (args: Args, nodes: readonly unknown[]) => Fn> = {
  quantity: (args) => {
    const a = arg(args, 0);
    if (isConstant(a)) return constant(parseQuantity(CONSTANTS.get(a)));
    return (d, s) => {
      const v = a(d, s);
      if (typeof v === 'string') s.meter.spendText(v.length);
      return parseQuantity(v);
    };
  },

  glob: (args, nodes) => {
    const [p, v] = [arg(args, 0), tested('glob', args[1], nodes[1])];
    if (isConstant(p)) {
      const m = patternsMatcher(CONSTANTS.get(p), FOLD_SCOPE);
      return (d, s) => {
        const value = v(d, s);
        if (typeof value !== 'string') return false;
        s.meter.spendText(value.length);
        return m(value);
      };
    }
    return (d, s) => {
      const patterns = p(d, s);
      const value = v(d, s);
      if (typeof value !== 'string') return false;
      s.meter.spendText(value.length);
      return patternsMatcher(patterns, s)(value);
    };
  },

  regex: (args, nodes) => {
    const [p, v, f] = [arg(args, 0), tested('regex', args[1], nodes[1]), args[2]];
    if (isConstant(p) && (f === undefined || isConstant(f))) {
      const pattern = CONSTANTS.get(p);
      if (typeof pattern !== 'string') throw new Error('"regex" needs a string pattern as its first argument');
      const flags = f ? CONSTANTS.get(f) : '';
      const re = compileRegex(pattern, typeof flags === 'string' ? flags : '');
      return (d, s) => {
        const value = v(d, s);
        if (typeof value !== 'string') return false;
        s.meter.spendText(value.length);
        return re.test(value);
      };
    }
    return (d, s) => {
      const pattern = p(d, s);
      const value = v(d, s);
      if (typeof pattern !== 'string' || typeof value !== 'string') return false;
      // A pattern read at evaluation time may be new (from the input): compiling costs more than scanning.
      s.meter.spend(10 * textCost(pattern.length));
      s.meter.spendText(value.length);
      const flags = f ? f(d, s) : '';
      return compileRegex(pattern, typeof flags === 'string' ? flags : '').test(value);
    };
  },

  starts_with: (args, nodes) => affix('starts_with', args, nodes, (value, p) => value.startsWith(p)),
  ends_with: (args, nodes) => affix('ends_with', args, nodes, (value, p) => value.endsWith(p)),

  get: (args) => {
    const [src, key, dflt] = [arg(args, 0), arg(args, 1), args[2]];
    const fallback = dflt ?? constant(null);
    if (isConstant(key)) {
      const k = CONSTANTS.get(key);
      const segments = Array.isArray(k) ? k.map(String) : [String(k)];
      const walk = makeWalker(segments);
      return (d, s) => {
        const v = walk(src(d, s), undefined);
        return v === undefined ? fallback(d, s) : v;
      };
    }
    return (d, s) => {
      const k = key(d, s);
      const segments = Array.isArray(k) ? k.map(String) : [String(k)];
      s.meter.spend(segments.length);
      let cur = src(d, s);
      for (const seg of segments) {
        cur = ownGet(cur, seg);
        if (cur === undefined) return fallback(d, s);
      }
      return cur;
    };
  },

  join: (args) => {
    const [list, sep] = [arg(args, 0), args[1]];
    return (d, s) => {
      const v = list(d, s);
      const separator = sep ? sep(d, s) : ', ';
      if (!Array.isArray(v)) return null;
      s.meter.spend(v.length);
      return spentText(v.map((x) => (x === null || x === undefined ? '' : typeof x === 'object' ? JSON.stringify(x) : String(x))).join(String(separator)), s);
    };
  },
  split: (args) => {
    const [str, sep] = [arg(args, 0), arg(args, 1)];
    return (d, s) => {
      const v = str(d, s);
      const separator = sep(d, s);
      if (typeof v !== 'string' || typeof separator !== 'string') return null;
      s.meter.spendText(v.length);
      return v.split(separator);
    };
  },
  lower: (args) => stringFn(args, (v) => v.toLowerCase()),
  upper: (args) => stringFn(args, (v) => v.toUpperCase()),
  trim: (args) => stringFn(args, (v) => v.trim()),
  length: (args) => {
    const a = arg(args, 0);
    return (d, s) => {
      const v = a(d, s);
      return typeof v === 'string' || Array.isArray(v) ? v.length : isPlainObject(v) ? spentKeys(v, s).length : null;
    };
  },
  keys: (args) => {
    const a = arg(args, 0);
    return (d, s) => {
      const v = a(d, s);
      return isPlainObject(v) ? spentKeys(v, s) : [];
    };
  },
  entries: (args) => {
    const a = arg(args, 0);
    return (d, s) => {
      const v = a(d, s);
      return isPlainObject(v) ? spentKeys(v, s).map((key) => ({ key, value: v[key] })) : [];
    };
  },
  image: (args) => {
    const a = arg(args, 0);
    return (d, s) => {
      const v = a(d, s);
      if (typeof v !== 'string') return null;
      s.meter.spendText(v.length);
      return parseImageReference(v);
    };
  },
  truthy: (args) => {
    const a = arg(args, 0);
    return (d, s) => truthy(a(d, s));
  },
};

function affix(op: string, args: Args, nodes: readonly unknown[], test: (value: string, affix: string) => boolean): Fn {
  const [v, p] = [tested(op, args[0], nodes[0]), arg(args, 1)];
  const check = (value: unknown, affixes: unknown, s: Scope): boolean => {
    if (typeof value !== 'string') return false;
    if (typeof affixes === 'string') {
      s.meter.spendText(affixes.length);
      return test(value, affixes);
    }
    if (Array.isArray(affixes)) {
      s.meter.spend(affixes.length);
      for (const x of affixes) if (typeof x === 'string' && test(value, x)) return true;
    }
    return false;
  };
  return (d, s) => check(v(d, s), p(d, s), s);
}

function stringFn(args: Args, f: (v: string) => string): Fn {
  const a = arg(args, 0);
  return (d, s) => {
    const v = a(d, s);
    if (typeof v !== 'string') return null;
    s.meter.spendText(v.length);
    return f(v);
  };
}

/** `Object.keys`, charged 1 unit per key. */
function spentKeys(v: Record<string, unknown>, s: Scope): string[] {
  const keys = Object.keys(v);
  s.meter.spend(keys.length);
  return keys;
}

/** Names of operations with special compile rules (handled in compile.ts). */
export const SPECIAL_EXTENSIONS = ['input', 'exists', 'ref'] as const;
