/**
 * The CEL planner against cel-js on random expressions: a small grammar (literals of every JSON-side type,
 * the activation's names, field selection and indexing, `has`, arithmetic, comparisons, `in`, `&&`/`||`/`!`,
 * `?:`, `size`/`int`/`string`/`double`, the comprehension macros, `cel.bind`) over random JSON activations
 * (integral numbers as CEL ints: converted up front for cel-js, where they are read by the planner). Every
 * expression cel-js's checker accepts must give the same value, or the same error, through the planner as
 * through cel-js's own evaluation.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bothWays, sameOutcome } from '../../packages/cel/test/cel-differential.js';
import { check, TIMEOUT } from './settings.js';

const NAMES = ['x', 'y', 'z'];
const FIELDS = ['a', 'b', 'spec', 'limits'];

const json: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.integer({ min: -5, max: 5 }),
    fc.constantFrom(0.5, -2.25, 1e300, 2 ** 53 + 2),
    fc.constantFrom('', 'a', 'b', '1Gi', 'x y'),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom(...FIELDS), tie('value'), { maxKeys: 3 }),
  ),
})).value;

const expression: fc.Arbitrary<string> = fc.letrec<{ e: string; leaf: string }>((tie) => ({
  leaf: fc.oneof(
    fc.constantFrom(...NAMES),
    fc.constantFrom('0', '1', '-3', '2u', '1.5', '-0.0', "'a'", "'1Gi'", 'true', 'false', 'null', '[]', '{}', "b'z'", '9223372036854775807'),
    fc.constantFrom('v', 'w'),
  ),
  e: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    tie('leaf'),
    fc.tuple(tie('e'), fc.constantFrom(...FIELDS)).map(([a, f]) => `${a}.${f}`),
    fc.tuple(tie('e'), tie('e')).map(([a, i]) => `${a}[${i}]`),
    fc.tuple(fc.constantFrom(...NAMES, 'v'), fc.constantFrom(...FIELDS), fc.constantFrom(...FIELDS)).map(([a, f, g]) => `has(${a}.${f}.${g})`),
    fc.tuple(tie('e'), fc.constantFrom('+', '-', '*', '/', '%', '==', '!=', '<', '<=', '>', '>=', '&&', '||', 'in'), tie('e')).map(([a, op, b]) => `(${a} ${op} ${b})`),
    tie('e').map((a) => `!${a}`),
    tie('e').map((a) => `-${a}`),
    fc.tuple(tie('e'), tie('e'), tie('e')).map(([c, a, b]) => `(${c} ? ${a} : ${b})`),
    fc.tuple(fc.constantFrom('size', 'int', 'string', 'double', 'dyn'), tie('e')).map(([f, a]) => `${f}(${a})`),
    fc.tuple(tie('e'), tie('e')).map(([a, b]) => `[${a}, ${b}]`),
    fc.tuple(tie('e'), tie('e')).map(([k, v]) => `{${k}: ${v}}`),
    fc.tuple(tie('e'), fc.constantFrom('all', 'exists', 'exists_one', 'map', 'filter'), fc.constantFrom('v', 'w'), tie('e')).map(([r, m, v, p]) => `${r}.${m}(${v}, ${p})`),
    fc.tuple(tie('e'), fc.constantFrom('v', 'w'), tie('e'), tie('e')).map(([r, v, p, t]) => `${r}.map(${v}, ${p}, ${t})`),
    fc.tuple(fc.constantFrom('v', 'w'), tie('e'), tie('e')).map(([v, a, b]) => `cel.bind(${v}, ${a}, ${b})`),
  ),
})).e;

const activation = fc.record(Object.fromEntries(NAMES.map((n) => [n, json])) as Record<string, fc.Arbitrary<unknown>>);

describe('fuzz: the CEL planner', () => {
  it('gives the value or the error cel-js gives, on random expressions and activations', () => {
    let compared = 0;
    check(fc.property(expression, activation, (expr, act) => {
      // JSON in, as verdict's rules give it: converted for cel-js, unconverted roots for the planner.
      const both = bothWays(expr, act, undefined, true);
      if (!both) return;
      compared++;
      expect({ expr, act, planner: both.plan }).toEqual({ expr, act, planner: sameOutcome(both.plan, both.library) ? both.plan : both.library });
    }), 3000);
    expect(compared).toBeGreaterThan(300);
  }, TIMEOUT);
});
