/**
 * Differential test: core compiles json-logic rules into closures and claims
 * json-logic-js 2.0.5 semantics for every built-in operation. Two proofs:
 *
 * 1. the published JsonLogic test suite (fixtures/json-logic-tests.json, from
 *    jsonlogic.com/tests.json): every case gives the expected value, in core
 *    and in json-logic-js;
 * 2. a few thousand seeded pseudo-random well-formed rules over the built-in
 *    operations and random data: `compileLogic(rule).apply(data)` equals
 *    `jsonLogic.apply(rule, data)` (Object.is on primitives, deep equality
 *    otherwise; both throwing counts as agreement).
 *
 * Core's deliberate differences (see the header of src/logic/builtins.ts and
 * docs/concepts/rules.md) each have their own test at the end of this file.
 * Three are kept out of the random rules on purpose:
 * - `var` reads own properties only: no random path names a prototype member;
 * - `log` does not print: json-logic-js's console.log is silenced while comparing values;
 * - unknown operations are load-time errors: random rules use only known operations.
 * One is applied to the reference instead, because random data is full of it:
 * - an ordering comparison (`<`, `<=`, `>`, `>=`) whose operands have no order
 *   (null, missing, NaN, booleans, lists, objects, a non-numeric string against a
 *   number) throws instead of answering (`null <= 16` is true in JavaScript). The
 *   reference is a second json-logic-js instance whose four comparisons throw in
 *   exactly those cases and otherwise compute what json-logic-js 2.0.5 computes;
 * - `in` over a missing or null value throws the same way (a match on a missing
 *   value has no answer, so `{"!": {"in": …}}` cannot pass on a typo).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isDeepStrictEqual } from 'node:util';
import jsonLogic, { type RulesLogic } from 'json-logic-js';
import { describe, expect, it, vi } from 'vitest';
import { ComparisonError, compileLogic } from '@verdict/core';
import { OPERATION_NAMES } from '../src/logic/compile.js';

type Outcome = { threw: true; message: string } | { threw: false; value: unknown };

function outcome(run: () => unknown): Outcome {
  try {
    return { threw: false, value: run() };
  } catch (error) {
    return { threw: true, message: (error as Error).message };
  }
}

/** Operands JavaScript orders meaningfully: two strings, or two numbers (a numeric string counts as one) with at least one a number. */
function hasOrder(x: unknown, y: unknown): boolean {
  const numeric = (v: unknown) => (typeof v === 'number' ? !Number.isNaN(v) : typeof v === 'string' && v.trim() !== '' && !Number.isNaN(Number(v)));
  return (typeof x === 'string' && typeof y === 'string') || (numeric(x) && numeric(y) && (typeof x === 'number' || typeof y === 'number'));
}

/** A second json-logic-js instance (not the imported one) with the documented comparison difference applied. */
function strictComparisonReference(): typeof jsonLogic {
  const require = createRequire(import.meta.url);
  const path = require.resolve('json-logic-js');
  const saved = require.cache[path];
  delete require.cache[path];
  const instance = require(path) as typeof jsonLogic;
  if (saved) require.cache[path] = saved;
  expect(instance).not.toBe(jsonLogic);
  const check = (x: unknown, y: unknown) => {
    if (!hasOrder(x, y)) throw new Error(`no order between ${String(x)} and ${String(y)}`);
  };
  // json-logic-js 2.0.5's own definitions, with the check before each comparison it makes.
  const add = (op: string, fn: (...args: unknown[]) => unknown) => instance.add_operation(op, fn as never);
  add('>', (a, b) => (check(a, b), (a as number) > (b as number)));
  add('>=', (a, b) => (check(a, b), (a as number) >= (b as number)));
  add('<', (a, b, c) => (check(a, b), c === undefined ? (a as number) < (b as number) : (a as number) < (b as number) && (check(b, c), (b as number) < (c as number))));
  add('<=', (a, b, c) => (check(a, b), c === undefined ? (a as number) <= (b as number) : (a as number) <= (b as number) && (check(b, c), (b as number) <= (c as number))));
  // `in` looks for a value: a missing or null one has no answer (core's match rule), the rest is json-logic-js 2.0.5's.
  add('in', (a, b) => {
    if (a === null || a === undefined) throw new Error('no answer for a missing value');
    return !b || typeof (b as { indexOf?: unknown }).indexOf === 'undefined' ? false : (b as unknown[]).indexOf(a) !== -1;
  });
  return instance;
}

const strictJsonLogic = strictComparisonReference();

/** json-logic-js with the comparison difference, and `log`'s console output silenced (core's `log` never prints; its value is what we compare). */
function reference(rule: unknown, data: unknown): Outcome {
  const spy = vi.spyOn(console, 'log').mockImplementation(() => undefined);
  try {
    return outcome(() => strictJsonLogic.apply(rule as RulesLogic, data));
  } finally {
    spy.mockRestore();
  }
}

function core(rule: unknown, data: unknown): Outcome {
  return outcome(() => compileLogic(rule).apply(data));
}

/** Both threw, or both returned equal values (Object.is for primitives, deep equality otherwise). */
function agree(a: Outcome, b: Outcome): boolean {
  if (a.threw || b.threw) return a.threw && b.threw;
  return isDeepStrictEqual(a.value, b.value);
}

const show = (value: unknown): string => {
  if (value === undefined) return 'undefined';
  if (typeof value === 'number' && (Number.isNaN(value) || Object.is(value, -0) || !Number.isFinite(value))) return String(Object.is(value, -0) ? '-0' : value);
  return JSON.stringify(value);
};
const showOutcome = (o: Outcome): string => (o.threw ? `throws "${o.message}"` : show(o.value));

// ---------------------------------------------------------------------------
// 1. The published test suite

type Case = [rule: unknown, data: unknown, expected: unknown];

function loadSuite(): Array<{ section: string; cases: Array<{ n: number; test: Case }> }> {
  const raw = JSON.parse(readFileSync(new URL('./fixtures/json-logic-tests.json', import.meta.url), 'utf8')) as unknown[];
  const sections: Array<{ section: string; cases: Array<{ n: number; test: Case }> }> = [];
  let n = 0;
  for (const item of raw) {
    if (typeof item === 'string') {
      if (!item.startsWith('# Origin')) sections.push({ section: item, cases: [] });
      continue;
    }
    if (sections.length === 0) sections.push({ section: '(untitled)', cases: [] });
    sections[sections.length - 1]!.cases.push({ n: n++, test: item as Case });
  }
  return sections.filter((s) => s.cases.length > 0);
}

describe('the published JsonLogic test suite (jsonlogic.com/tests.json)', () => {
  const suite = loadSuite();

  it('holds the whole suite (278 cases)', () => {
    expect(suite.reduce((sum, s) => sum + s.cases.length, 0)).toBe(278);
  });

  for (const { section, cases } of suite) {
    describe(section.replace(/^#\s*/, ''), () => {
      for (const { n, test: [rule, data, expected] } of cases) {
        it(`case ${n}: ${show(rule).slice(0, 90)} with ${show(data).slice(0, 40)} gives ${show(expected).slice(0, 40)} in core and in json-logic-js`, () => {
          const ours = core(rule, data);
          const theirs = reference(rule, data);
          expect(ours).toEqual({ threw: false, value: expected });
          expect(theirs).toEqual({ threw: false, value: expected });
        });
      }
    });
  }
});

// ---------------------------------------------------------------------------
// 2. Generated rules

/** mulberry32: a small, fast, seeded PRNG (deterministic across runs and platforms). */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Every operation json-logic-js 2.0.5 defines (its `operations` table plus the ones `apply` handles itself). */
const BUILTINS = [
  '==', '===', '!=', '!==', '>', '>=', '<', '<=', '!!', '!', '%', 'log', 'in', 'cat', 'substr', '+', '*', '-', '/', 'min', 'max',
  'merge', 'var', 'missing', 'missing_some', 'if', '?:', 'and', 'or', 'filter', 'map', 'reduce', 'all', 'none', 'some',
] as const;

/**
 * Data keys and path segments. Deliberately none that a prototype defines
 * (`constructor`, `toString`, `__proto__`, …): core's `var` reads own
 * properties only, a documented difference tested separately below. `length`
 * is an own property of strings and arrays, so it behaves the same in both.
 */
const KEYS = ['a', 'b', 'c', 'x', 'items', 'name', '0', '1', '2', 'length'];
const STRINGS = ['', 'a', 'abc', 'apple', 'Spring', 'Springfield', '0', '1', '2.5', '-1', ' 3 ', '1e3', 'true', 'null'];
const NUMBERS = [0, 1, 2, 3, -1, -2, 0.5, 1.5, -0.5, 10, 100];

class Generator {
  readonly used = new Map<string, number>();
  constructor(private readonly random: () => number) {}

  int(n: number): number {
    return Math.floor(this.random() * n);
  }

  pick<T>(list: readonly T[]): T {
    return list[this.int(list.length)]!;
  }

  chance(p: number): boolean {
    return this.random() < p;
  }

  scalar(): unknown {
    switch (this.int(5)) {
      case 0:
        return this.pick(NUMBERS);
      case 1:
        return this.pick(STRINGS);
      case 2:
        return this.chance(0.5);
      case 3:
        return null;
      default:
        return this.int(4);
    }
  }

  /** Random JSON data. */
  data(depth: number): unknown {
    if (depth <= 0 || this.chance(0.35)) return this.scalar();
    if (this.chance(0.4)) return Array.from({ length: this.int(4) }, () => this.data(depth - 1));
    const out: Record<string, unknown> = {};
    for (let i = this.int(5); i > 0; i--) out[this.pick(KEYS)] = this.data(depth - 1);
    return out;
  }

  /** Data for a whole case: usually an object with the usual keys, sometimes anything. */
  root(): unknown {
    if (this.chance(0.1)) return this.data(2);
    const out: Record<string, unknown> = {};
    for (const key of KEYS) if (this.chance(0.6)) out[key] = this.data(3);
    if (this.chance(0.5)) out['items'] = Array.from({ length: this.int(4) }, () => this.data(2));
    return out;
  }

  path(): string | number {
    if (this.chance(0.1)) return this.pick([0, 1, 2, 1.5]);
    if (this.chance(0.08)) return '';
    return Array.from({ length: 1 + this.int(3) }, () => this.pick(KEYS)).join('.');
  }

  paths(): Array<string | number> {
    return Array.from({ length: this.int(4) }, () => this.path());
  }

  /** A literal that json-logic reads as a value (never a one-key object, which would be an operation). */
  literal(): unknown {
    if (this.chance(0.12)) return Array.from({ length: this.int(3) }, () => this.scalar());
    if (this.chance(0.03)) return this.chance(0.5) ? {} : { a: this.scalar(), b: this.scalar() };
    return this.scalar();
  }

  /** Several arguments; an array literal argument is written as an operation result so it is not read as the list itself. */
  args(count: number, depth: number, scope: 'root' | 'item'): unknown[] {
    return Array.from({ length: count }, () => this.expr(depth - 1, scope));
  }

  private mark(op: string): void {
    this.used.set(op, (this.used.get(op) ?? 0) + 1);
  }

  expr(depth: number, scope: 'root' | 'item' = 'root'): unknown {
    if (depth > 0 && this.chance(0.04)) {
      // A list whose elements are rules: json-logic-js 2 evaluates each element.
      return Array.from({ length: this.int(4) }, () => this.expr(depth - 1, scope));
    }
    if (depth <= 0 || this.chance(0.25)) {
      if (this.chance(0.5)) {
        this.mark('var');
        return this.chance(0.3) ? { var: [this.path(), this.literal()] } : this.chance(0.5) ? { var: this.path() } : { var: [this.path()] };
      }
      return this.literal();
    }
    const op = this.pick(BUILTINS);
    this.mark(op);
    // Arities are the ones each operation defines (`!` one argument, `-` one or two, `<` two or three, …).
    // json-logic-js evaluates every argument given, core only the ones the operation uses: the two differ only
    // when a surplus argument throws ({"!": [true, {"*": []}]}: json-logic-js throws, core gives false). Reported.

    const a = (n: number) => this.args(n, depth, scope);
    switch (op) {
      case '==': case '===': case '!=': case '!==': case '>': case '>=': case '%': case '/': case 'in':
        return { [op]: a(2) };
      case '<': case '<=':
        return { [op]: a(2 + this.int(2)) };
      case '!': case '!!': case 'log': {
        // Unary sugar: {"!": x} is {"!": [x]} unless x is itself a list.
        const [x] = a(1);
        return { [op]: Array.isArray(x) || this.chance(0.5) ? [x] : x };
      }
      case '-':
        return { [op]: a(1 + this.int(2)) };
      case '+':
        return { [op]: this.chance(0.1) ? this.expr(depth - 1, scope) : a(this.int(4)) };
      case '*':
        return { [op]: a(1 + this.int(3)) };
      case 'min': case 'max': case 'cat': case 'merge': case 'and': case 'or':
        return { [op]: a(this.int(4)) };
      case 'substr':
        return { [op]: a(2 + this.int(2)) };
      case 'if': case '?:':
        return { [op]: a(this.int(6)) };
      case 'var':
        // A computed path, with an optional computed default.
        return { var: this.chance(0.5) ? [this.expr(depth - 1, scope)] : [this.expr(depth - 1, scope), this.expr(depth - 1, scope)] };
      case 'missing':
        // Keys are paths (strings, numbers). json-logic-js evaluates each key as the rule {"var": key}, so a key that
        // is a list is read as [path, default] and a one-key object as an operation; core reads every key as a path
        // (String(key)). Reported as a known difference; computed keys here are lists of paths only.
        if (this.chance(0.3)) return { missing: { if: [this.expr(depth - 1, scope), this.paths(), this.paths()] } };
        return { missing: this.chance(0.3) ? this.path() : this.paths() };
      case 'missing_some':
        return { missing_some: [this.int(4), this.paths()] };
      case 'reduce': {
        const body = this.chance(0.5)
          ? { [this.pick(['+', '*', 'cat', 'max', 'merge'])]: [{ var: 'accumulator' }, { var: this.pick(['current', 'current.a', 'current.0']) }] }
          : this.expr(depth - 1, 'item');
        const source = this.source(depth, scope);
        return this.chance(0.3) ? { reduce: [source, body] } : { reduce: [source, body, this.expr(depth - 1, scope)] };
      }
      default: // filter, map, all, none, some
        return { [op]: [this.source(depth, scope), this.expr(depth - 1, 'item')] };
    }
  }

  /** What an iteration runs over: usually a list from the data, sometimes a literal list or anything. */
  private source(depth: number, scope: 'root' | 'item'): unknown {
    if (this.chance(0.5)) return { var: this.pick(['items', 'a', 'b', 'x', '', 'items.0']) };
    if (this.chance(0.5)) return { merge: Array.from({ length: this.int(4) }, () => this.literal()) };
    return this.expr(depth - 1, scope);
  }
}

interface Disagreement {
  rule: unknown;
  data: unknown;
  core: string;
  jsonLogic: string;
}

function runGenerated(seed: number, count: number): { disagreements: Disagreement[]; used: Map<string, number> } {
  const gen = new Generator(prng(seed));
  const disagreements: Disagreement[] = [];
  for (let i = 0; i < count; i++) {
    const rule = gen.expr(1 + gen.int(4));
    const data = gen.root();
    const ours = core(rule, data);
    const theirs = reference(rule, data);
    if (!agree(ours, theirs)) disagreements.push({ rule, data, core: showOutcome(ours), jsonLogic: showOutcome(theirs) });
  }
  return { disagreements, used: gen.used };
}

const SEEDS = [1, 2, 3, 4, 5];
const CASES_PER_SEED = 1000;

describe('generated rules: compileLogic(rule).apply(data) equals jsonLogic.apply(rule, data)', () => {
  for (const seed of SEEDS) {
    it(`agrees on ${CASES_PER_SEED} random rules and data (seed ${seed})`, () => {
      const { disagreements } = runGenerated(seed, CASES_PER_SEED);
      // Shows the smallest few, so a failure reads as a minimal example.
      const smallest = disagreements.sort((x, y) => JSON.stringify(x.rule).length - JSON.stringify(y.rule).length).slice(0, 5);
      expect(smallest).toEqual([]);
    });
  }

  it('exercises every json-logic-js built-in operation many times', () => {
    const used = new Map<string, number>();
    for (const seed of SEEDS) for (const [op, n] of runGenerated(seed, 200).used) used.set(op, (used.get(op) ?? 0) + n);
    const rare = BUILTINS.filter((op) => (used.get(op) ?? 0) < 20);
    expect(rare).toEqual([]);
  });

  it('knows every json-logic-js built-in operation by name', () => {
    expect(BUILTINS.filter((op) => !OPERATION_NAMES.includes(op))).toEqual([]);
  });

  it('counts a throw on both sides as agreement and a throw on one side as a disagreement', () => {
    expect(agree({ threw: true, message: 'a' }, { threw: true, message: 'b' })).toBe(true);
    expect(agree({ threw: true, message: 'a' }, { threw: false, value: 1 })).toBe(false);
    expect(agree({ threw: false, value: NaN }, { threw: false, value: NaN })).toBe(true);
    expect(agree({ threw: false, value: 0 }, { threw: false, value: -0 })).toBe(false);
    expect(agree({ threw: false, value: [1, { a: 2 }] }, { threw: false, value: [1, { a: 2 }] })).toBe(true);
  });
});

// ---------------------------------------------------------------------------
// 3. Deliberate differences, excluded from the comparison above and pinned here

describe('deliberate differences from json-logic-js', () => {
  it('var reads own properties only, so prototype members are missing', () => {
    const rule = { var: 'constructor' };
    expect(typeof jsonLogic.apply(rule, {})).toBe('function');
    expect(compileLogic(rule).apply({})).toBeNull();
    expect(compileLogic({ var: ['a.toString', 'none'] }).apply({ a: 'text' })).toBe('none');
    expect(compileLogic({ var: 'a.length' }).apply({ a: 'text' })).toBe(4);
  });

  it('log returns its value without printing', () => {
    const spy = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    try {
      expect(compileLogic({ log: [{ var: 'a' }] }).apply({ a: 7 })).toBe(7);
      expect(spy).not.toHaveBeenCalled();
      expect(jsonLogic.apply({ log: [{ var: 'a' }] } as unknown as RulesLogic, { a: 7 })).toBe(7);
      expect(spy).toHaveBeenCalledWith(7);
    } finally {
      spy.mockRestore();
    }
  });

  it('an ordering comparison over a missing value has no answer, where json-logic-js says null <= 16', () => {
    const rule = { '<=': [{ quantity: { var: 'memory' } }, { quantity: '16Gi' }] };
    expect(jsonLogic.apply({ '<=': [{ var: 'memory' }, 16] } as unknown as RulesLogic, {})).toBe(true);
    expect(() => compileLogic(rule).apply({})).toThrow('"<=" has no answer: quantity of memory is null (missing, or not a Kubernetes quantity)');
    expect(() => compileLogic(rule).apply({ memory: '500GB' })).toThrow(ComparisonError);
    expect(compileLogic(rule).apply({ memory: '8Gi' })).toBe(true);
  });

  it('a negated comparison over a missing or unordered value has no answer either', () => {
    const notAbove = compileLogic({ '!': { '>': [{ var: 'replicas' }, 3] } });
    expect(jsonLogic.apply({ '!': { '>': [{ var: 'replicas' }, 3] } } as unknown as RulesLogic, { replicas: 'many' })).toBe(true);
    expect(() => notAbove.apply({ replicas: 'many' })).toThrow('">" has no answer: replicas is "many", a string that is not a number, compared with a number');
    expect(() => notAbove.apply({})).toThrow(/replicas is null \(missing\)/);
    expect(notAbove.apply({ replicas: 2 })).toBe(true);
  });

  it('orders numbers, strings, and numbers against numeric strings as json-logic-js does', () => {
    const run = (rule: unknown) => compileLogic(rule).apply({});
    expect([run({ '<': [1, 2] }), run({ '<': ['a', 'b'] }), run({ '<=': ['10', 9] }), run({ '>': [' 3 ', 2] }), run({ '<': [1, 2, 3] })]).toEqual([true, true, false, true, true]);
    for (const [a, b] of [[null, 1], [1, ''], [true, 1], [[1], 2], [{ a: 1, b: 2 }, 1], [1, 'abc'], [Number.NaN, 1]] as const) {
      expect(() => compileLogic({ '<': [{ var: 'a' }, { var: 'b' }] }).apply({ a, b }), `${String(a)} < ${String(b)}`).toThrow(/has no answer/);
    }
  });

  it('guards and defaults give a comparison its answer', () => {
    const guarded = compileLogic({ and: [{ exists: 'memory' }, { '<=': [{ quantity: { var: 'memory' } }, 16] }] });
    expect(guarded.apply({})).toBe(false);
    expect(compileLogic({ '<=': [{ var: ['replicas', 1] }, 3] }).apply({})).toBe(true);
    expect(compileLogic({ or: [{ '!': { exists: 'x' } }, { '<': [{ var: 'x' }, 3] }] }).apply({})).toBe(true);
  });

  it('an unknown operation fails when the rule is compiled, even in a branch that never runs', () => {
    const rule = { if: [false, { nope: [] }, 'fine'] };
    expect(jsonLogic.apply(rule as unknown as RulesLogic, {})).toBe('fine');
    expect(() => compileLogic(rule)).toThrow(/unknown operation "nope"/);
  });
});
