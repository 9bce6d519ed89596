/**
 * json-logic-js 2.0.5 operations, compiled. Semantics follow json-logic-js
 * line by line (loose `==`, `+` via parseFloat, `*` as a reduce without an
 * initial value, `and`/`or` returning operands, …); the differential test in
 * `test/logic-differential.test.ts` holds us to it. Deliberate differences:
 * `var` reads own properties only, so `constructor`, `__proto__` and friends
 * are never reached through the prototype chain; ordering comparisons over a
 * missing or unordered value have no answer instead of `null <= 16` (compare.ts).
 */
import { compileComparison, describeOperand, present } from './compare.js';
import { truthy, type Fn, type Scope } from './scope.js';

export type Args = readonly Fn[];

/** Evaluates every argument (json-logic-js evaluates depth-first before calling an operation). */
export function evalArgs(args: Args, data: unknown, scope: Scope): unknown[] {
  const out = new Array<unknown>(args.length);
  for (let i = 0; i < args.length; i++) out[i] = args[i]!(data, scope);
  return out;
}


const none: Fn = () => undefined;

/**
 * A two-argument operation. Each operator gets its own closure (see `BINARY`)
 * so that V8 can inline it at every call site; arguments beyond the second
 * are still evaluated, as json-logic-js does.
 */
function binary(args: Args, make: (a: Fn, b: Fn) => Fn): Fn {
  return withExtras(make(args[0] ?? none, args[1] ?? none), args, 2);
}

/**
 * A list that meets arithmetic or a loose comparison with a scalar is read as
 * its text (`[1, 2]` is "1,2"), as JavaScript reads it; building that text
 * costs time proportional to the list, so it is built here and charged.
 */
function listText(v: unknown, s: Scope): unknown {
  return Array.isArray(v) ? spentText(String(v), s) : v;
}

/** JavaScript's `==`, with a list compared to a scalar converted (and charged) first. */
function looseEquals(x: unknown, y: unknown, s: Scope): boolean {
  if (Array.isArray(x) !== Array.isArray(y)) {
    const other = Array.isArray(x) ? y : x;
    if (other !== null && other !== undefined && typeof other !== 'object') return listText(x, s) == listText(y, s);
  }
  return x == y;
}

const BINARY: Record<string, (a: Fn, b: Fn) => Fn> = {
  '==': (a, b) => (d, s) => looseEquals(a(d, s), b(d, s), s),
  '!=': (a, b) => (d, s) => !looseEquals(a(d, s), b(d, s), s),
  '===': (a, b) => (d, s) => a(d, s) === b(d, s),
  '!==': (a, b) => (d, s) => a(d, s) !== b(d, s),
  '%': (a, b) => (d, s) => (listText(a(d, s), s) as number) % (listText(b(d, s), s) as number),
  '/': (a, b) => (d, s) => (listText(a(d, s), s) as number) / (listText(b(d, s), s) as number),
};

/** json-logic `in`: `indexOf` on a list or a string, charged by the length searched. */
function inList(a: unknown, b: unknown, s: Scope): boolean {
  if (!b || typeof (b as { indexOf?: unknown }).indexOf === 'undefined') return false;
  if (typeof b === 'string') s.meter.spendText(b.length);
  else if (Array.isArray(b)) s.meter.spend(b.length);
  return (b as { indexOf(x: unknown): number }).indexOf(a) !== -1;
}

/** Charges a string just built or about to be scanned (1 unit per 10 characters) and returns it. */
export function spentText(text: string, s: Scope): string {
  s.meter.spendText(text.length);
  return text;
}

/** Evaluates arguments beyond the `used` ones too, as json-logic-js does (only when a rule has them). */
export function withExtras(fn: Fn, args: Args, used: number): Fn {
  if (args.length <= used) return fn;
  const extras = args.slice(used);
  return (d, s) => {
    const result = fn(d, s);
    for (const extra of extras) extra(d, s);
    return result;
  };
}

/** Operations whose arguments are all evaluated first (json-logic-js "everyone else"); `nodes` are the arguments as written. */
export const EAGER: Record<string, (args: Args, nodes: readonly unknown[]) => Fn> = {
  '==': (args) => binary(args, BINARY['==']!),
  '===': (args) => binary(args, BINARY['===']!),
  '!=': (args) => binary(args, BINARY['!=']!),
  '!==': (args) => binary(args, BINARY['!==']!),
  // Ordering comparisons fail safe (compare.ts): `>`/`>=` use two arguments, `<`/`<=` up to three.
  '>': (args, nodes) => withExtras(compileComparison('>', args.slice(0, 2), nodes), args, 2),
  '>=': (args, nodes) => withExtras(compileComparison('>=', args.slice(0, 2), nodes), args, 2),
  '<': (args, nodes) => withExtras(compileComparison('<', args.slice(0, 3), nodes), args, 3),
  '<=': (args, nodes) => withExtras(compileComparison('<=', args.slice(0, 3), nodes), args, 3),
  '%': (args) => binary(args, BINARY['%']!),
  '/': (args) => binary(args, BINARY['/']!),
  '!!': (args) => {
    const a = args[0];
    return withExtras(a ? (d, s) => truthy(a(d, s)) : () => false, args, 1);
  },
  '!': (args) => {
    const a = args[0];
    return withExtras(a ? (d, s) => !truthy(a(d, s)) : () => true, args, 1);
  },
  '-': (args) => {
    const a = args[0] ?? none;
    const b = args[1];
    return withExtras((d, s) => {
      const va = listText(a(d, s), s) as number;
      const vb = b ? (listText(b(d, s), s) as number) : undefined;
      return vb === undefined ? -va : va - vb;
    }, args, 2);
  },
  '+': (args) => (d, s) => {
    let acc = 0;
    for (let i = 0; i < args.length; i++) acc = parseFloat(acc as unknown as string) + parseFloat(listText(args[i]!(d, s), s) as string);
    return acc;
  },
  '*': (args) => (d, s) => evalArgs(args, d, s).reduce((a, b) => parseFloat(listText(a, s) as string) * parseFloat(listText(b, s) as string)),
  min: (args) => (d, s) => Math.min(...(evalArgs(args, d, s).map((v) => listText(v, s)) as number[])),
  max: (args) => (d, s) => Math.max(...(evalArgs(args, d, s).map((v) => listText(v, s)) as number[])),
  merge: (args) => (d, s) => {
    const merged = evalArgs(args, d, s).reduce<unknown[]>((a, b) => a.concat(b), []);
    s.meter.spend(merged.length);
    return merged;
  },
  // The value looked for has no answer when missing or null (compare.ts `present`); a missing list or string holds nothing.
  in: (args, nodes) => {
    const source = describeOperand(nodes[0]);
    return binary(args, (a, b) => (d, s) => inList(present('in', a(d, s), source), b(d, s), s));
  },
  cat: (args) => (d, s) => spentText(evalArgs(args, d, s).join(''), s),
  substr: (args) => (d, s) => {
    const [source, start, end] = evalArgs(args, d, s) as [unknown, number, number];
    const text = spentText(String(source), s);
    if (end < 0) {
      const temp = text.substr(start);
      return temp.substr(0, temp.length + end);
    }
    return text.substr(start, end);
  },
  // json-logic-js prints to the console; a library must not, so `log` only passes its value through.
  log: (args) => (d, s) => evalArgs(args, d, s)[0],
};

/** `if` / `?:`: pairs of condition and result, with an optional else. */
export function compileIf(args: Args): Fn {
  return (d, s) => {
    let i = 0;
    for (; i < args.length - 1; i += 2) {
      if (truthy(args[i]!(d, s))) return args[i + 1]!(d, s);
    }
    return args.length === i + 1 ? args[i]!(d, s) : null;
  };
}

export function compileAnd(args: Args): Fn {
  if (args.length === 2) {
    const [a, b] = args as [Fn, Fn];
    return (d, s) => {
      const va = a(d, s);
      return truthy(va) ? b(d, s) : va;
    };
  }
  return (d, s) => {
    let current: unknown;
    for (let i = 0; i < args.length; i++) {
      current = args[i]!(d, s);
      if (!truthy(current)) return current;
    }
    return current;
  };
}

export function compileOr(args: Args): Fn {
  return (d, s) => {
    let current: unknown;
    for (let i = 0; i < args.length; i++) {
      current = args[i]!(d, s);
      if (truthy(current)) return current;
    }
    return current;
  };
}

/** Iteration operations: `source` is evaluated in the current mode, `body` in item mode on each element. */
export function compileIteration(op: string, source: Fn, body: Fn, initial: Fn | undefined): Fn {
  switch (op) {
    case 'filter':
      return (d, s) => {
        const arr = source(d, s);
        if (!Array.isArray(arr)) return [];
        s.meter.spend(arr.length);
        return arr.filter((item) => truthy(body(item, s)));
      };
    case 'map':
      return (d, s) => {
        const arr = source(d, s);
        if (!Array.isArray(arr)) return [];
        s.meter.spend(arr.length);
        return arr.map((item) => body(item, s));
      };
    case 'reduce':
      return (d, s) => {
        const arr = source(d, s);
        const init = initial ? initial(d, s) : null;
        if (!Array.isArray(arr)) return init;
        s.meter.spend(arr.length);
        return arr.reduce((accumulator: unknown, current: unknown) => body({ current, accumulator }, s), init);
      };
    case 'all':
      return (d, s) => {
        const arr = source(d, s);
        if (!Array.isArray(arr) || arr.length === 0) return false;
        s.meter.spend(arr.length);
        for (let i = 0; i < arr.length; i++) if (!truthy(body(arr[i], s))) return false;
        return true;
      };
    case 'none':
      return (d, s) => {
        const arr = source(d, s);
        if (!Array.isArray(arr) || arr.length === 0) return true;
        s.meter.spend(arr.length);
        for (let i = 0; i < arr.length; i++) if (truthy(body(arr[i], s))) return false;
        return true;
      };
    default: // some
      return (d, s) => {
        const arr = source(d, s);
        if (!Array.isArray(arr) || arr.length === 0) return false;
        s.meter.spend(arr.length);
        for (let i = 0; i < arr.length; i++) if (truthy(body(arr[i], s))) return true;
        return false;
      };
  }
}

export const ITERATION_OPS: ReadonlySet<string> = new Set(['filter', 'map', 'reduce', 'all', 'none', 'some']);
