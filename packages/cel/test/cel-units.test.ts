/**
 * The API server's cost units node by node (units.ts), each figure derived by hand from cel-go's runtime cost
 * tracker (interpreter/runtimecost.go: an identifier or attribute 1, a qualifier 1, a call its `costCall`, a list
 * literal 10, a map literal 30, constants and `&&`/`||`/`?:` nothing) and from the comprehensions its macros expand
 * to (parser/macro.go, ext/comprehensions.go). Each expression runs three ways (generated code, closures, cel-js),
 * which must charge alike, in the API server's model (cel-go's OptOptimize, presence tests free) and, where they
 * differ, in the model of Kubernetes' own cost_test.go (no OptOptimize, presence tests charged).
 */
import { describe, expect, it } from 'vitest';
import { compileCel } from '@verdict/cel';
import { bothWays } from './cel-differential.js';
import { celEnvironment } from '../src/env.js';
import type { UnitModel } from '../src/units.js';

const COST_TEST: UnitModel = { folded: false, presenceCost: true };

const vars = {
  x: { a: { b: 1 }, f: false }, y: { b: true }, c: true, d: false, i: 1, s: 'abcdefghijklmno', t: 'abcdefghijklmnop',
  // Ten code points outside the BMP: twenty UTF-16 units in JavaScript, a size of 10 for cel-go (types.String.Size).
  e: '\u{1F600}'.repeat(10),
  l: [1, 2, 3, 4, 5], l25: Array.from({ length: 25 }, (_, k) => k), m: { a: 1, b: 2 }, name: 'team',
};

/** The units `expression` costs on {@link vars}, the same three ways (or the test fails). */
function units(expression: string, model?: UnitModel): number {
  const both = bothWays(expression, vars, celEnvironment(), true, model);
  expect(both, expression).toBeDefined();
  expect(both!.plan.cost, `${expression}: the planner and cel-js charge alike`).toBe(both!.library.cost);
  expect('error' in both!.plan ? both!.plan.error : undefined, expression).toBeUndefined();
  return both!.plan.cost!;
}

describe("the API server's cost units", () => {
  it.each([
    ['x', 1], ['x.a', 2], ['x.a.b', 3], ["x['a']", 2],
    // An index read from an identifier: the identifier is resolved as an attribute, not observed.
    ['l[i]', 2], ['l[i + 1]', 4],
    // A selection or index on what is not an attribute (a literal, a call's result) costs one more.
    ['[x][0]', 13], ['[x][0].a', 14],
    ['size(l)', 2], ['!c', 2], ['-i', 2], ['-1', 0], ['i + 1', 2],
    // cel-go's parser reads a run of `!` or `-` as one: an even number is the operand alone (parser.go VisitLogicalNot).
    ['!!c', 1], ['!!!c', 2], ['! !c', 1], ['!(!c)', 3], ['--i', 1], ['- -i', 1], ['-(-i)', 3], ['---i', 2],
    // A run over a constant is the constant: the list literal is built once.
    ['[!!true, --1]', 0],
    // A qualified name the environment defines (a type) is one constant for cel-go's checker: free.
    ['type(i) == int', 3], ['type(i) == google.protobuf.Duration', 3],
  ] as const)('%s costs %i', (expression, expected) => {
    expect(units(expression)).toBe(expected);
  });

  it('charges strings, lists and maps compared or joined by their size, a tenth per element or character', () => {
    expect(units('s + t')).toBe(2 + Math.ceil(31 / 10));
    expect(units('s == t')).toBe(2 + Math.ceil(15 / 10));
    expect(units('l25 == l25')).toBe(2 + 3);
    expect(units('s < t')).toBe(2 + 2);
    expect(units('3 in l25')).toBe(1 + 25);
    expect(units('name in m')).toBe(3);
    expect(units("s.startsWith('abc')")).toBe(1 + 2);
    expect(units("s.contains('abc')")).toBe(1 + 2 * 1);
  });

  it('reads `!` and `-` separated by spaces or comments as one run, as cel-go\'s lexer skips them', () => {
    expect(units('!! // a comment\n !!c')).toBe(1);
    expect(units('! // (\n !c')).toBe(1);
  });

  it('sizes a string in code points, as cel-go does, not in UTF-16 units', () => {
    expect(units('e == e')).toBe(2 + 1);
    expect(units('e != e')).toBe(2 + 1);
    expect(units('e < e')).toBe(2 + 1);
    expect(units('e + e')).toBe(2 + Math.ceil(20 / 10));
    expect(units('e + s')).toBe(2 + Math.ceil(25 / 10));
    expect(units("e.startsWith('a')")).toBe(1 + 1);
    expect(units('e.contains(e)')).toBe(2 + 1 * 1);
    expect(units('bytes(e) == bytes(e)')).toBe(2 + 2 * 1 + Math.ceil(40 / 10));
    // What `+` builds is held to ten UTF-16 units per unit all the same: the other half is verdict's work.
    const built = compileCel('e + e').evaluateWithCost({ e: vars.e });
    expect(built).toMatchObject({ cost: 2 + 2, work: 1 + (4 - 2) });
  });

  it('charges nothing for `&&`, `||` and `?:`, and only for the operands evaluated', () => {
    expect(units('x.a.b == 1 && y.b')).toBe(4 + 2);
    expect(units('x.f && y.b')).toBe(2);
    expect(units('c || y.b')).toBe(1);
    // A branch that is an identifier or a selection from one is resolved as an attribute: its identifier is free.
    expect(units('c ? x : y')).toBe(1);
    expect(units('c ? x.a : 1')).toBe(1 + 1);
    expect(units('d ? x.a : 1')).toBe(1);
    expect(units('c ? size(l) : 0')).toBe(1 + 2);
  });

  it('charges has() its selections, and the test itself only in cost_test.go', () => {
    expect(units('has(x.a)')).toBe(1);
    expect(units('has(x.a.b)')).toBe(2);
    expect(units('has(x.a)', COST_TEST)).toBe(2);
  });

  it('builds literals of constants once (free) in the API server, every time in cost_test.go', () => {
    expect(units('[1, 2, 3]')).toBe(0);
    expect(units('[1, 2, 3]', COST_TEST)).toBe(10);
    expect(units('[x, 1]')).toBe(11);
    expect(units("{'a': x}")).toBe(31);
    expect(units("{'a': 1}", COST_TEST)).toBe(30);
    expect(units("int('5') + 1")).toBe(1);
    expect(units("int('5') + 1", COST_TEST)).toBe(2);
    expect(units('int(s.size()) > 0')).toBe(4);
    // `x in [constants]` becomes a set lookup: the call costs nothing.
    expect(units("name in ['team', 'owner']")).toBe(1);
    expect(units("name in ['team', 'owner']", COST_TEST)).toBe(1 + 10 + 2);
  });

  it('charges comprehensions as the comprehensions their macros expand to', () => {
    // all(): per element the loop condition (2), `__result__ && p` (1 + 2); `l` and the result once.
    expect(units('l.all(e, e > 0)')).toBe(1 + 5 * 5 + 1);
    // exists(): per element the condition (3), `__result__ || p` (1 + 2); a hit stops after the next condition.
    expect(units('l.exists(e, e == 3)')).toBe(1 + 3 * 6 + 3 + 1);
    // exists_one(): `p ? __result__ + 1 : __result__` per element, `__result__ == 1` once.
    expect(units('l.exists_one(e, e == 3)')).toBe(1 + 5 * 2 + 2 + 2);
    // filter(): `p ? __result__ + [e] : __result__`; the accumulator's `[]` is a constant.
    expect(units('l.filter(e, e > 2)')).toBe(1 + 5 * 2 + 3 * 13 + 1);
    expect(units('l.map(e, e > 2, e)')).toBe(units('l.filter(e, e > 2)'));
    expect(units('l.map(e, e * 2)')).toBe(1 + 5 * (12 + 2) + 1);
    expect(units('l.map(e, e * 2)', COST_TEST)).toBe(1 + 10 + 5 * (12 + 2) + 1);
    // Two variables: transformMap inserts with `cel.@mapInsert(__result__, k, f)`.
    expect(units('m.transformMap(k, v, v + 1)')).toBe(1 + 2 * (3 + 2) + 1);
    expect(units('m.transformMap(k, v, v + 1)', COST_TEST)).toBe(1 + 30 + 2 * (3 + 2) + 1);
    expect(units('m.all(k, v, v > 0)')).toBe(1 + 2 * 5 + 1);
  });

  it("charges MutatingAdmissionPolicy's object constructions (rewritten to dyn({…})) as cel-go's struct: 40 and the fields", () => {
    const constructing: UnitModel = { folded: true, presenceCost: false, constructions: true };
    expect(units("dyn({'op': 'add', 'path': s})", constructing)).toBe(40 + 1);
    expect(units("dyn({'op': 'add', 'value': 1})", constructing)).toBe(40);
    // Elsewhere dyn() is a call and the map a literal.
    expect(units("dyn({'op': 'add', 'path': s})")).toBe(1 + 30 + 1);
  });

  it('charges optional values as cel-go expands and calls them', () => {
    // `.?` is a qualifier; or() and orValue() cost nothing and evaluate their argument only when the receiver
    // has no value (cel-go's optional library replaces them with evalOptionalOr/evalOptionalOrValue).
    expect(units('x.?a.orValue(1)')).toBe(2);
    // An optional qualifier, and every qualifier after one in the chain, costs 1 only when the value is there.
    expect(units('x.?a')).toBe(2);
    expect(units('x.?z')).toBe(1);
    expect(units('x.?a.b')).toBe(3);
    expect(units('x.?a.z')).toBe(2);
    expect(units('x.?z.b')).toBe(1);
    expect(units("m[?'a']")).toBe(2);
    expect(units("m[?'q']")).toBe(1);
    expect(units('[x][?0]')).toBe(10 + 1 + 1 + 1);
    expect(units('x.?a.orValue(size(l))')).toBe(2);
    expect(units('x.?z.orValue(size(l))')).toBe(1 + 2);
    expect(units('optional.of(i).or(optional.of(size(l))).hasValue()')).toBe(2 + 1);
    expect(units('optional.none().or(optional.of(size(l))).hasValue()')).toBe(1 + 3 + 1);
    // optMap: `target.hasValue() ? optional.of(<bind y to target.value()> y + 1) : optional.none()`.
    expect(units('optional.of(i).optMap(y, y + 1)')).toBe(3 + (1 + 1 + 2) + 2);
    expect(units('optional.none().optMap(y, y + 1)')).toBe(2 + 1);
  });

  it('gives the API server units and verdict work apart through evaluateWithCost', () => {
    const { value, cost, work } = compileCel('l.all(e, e > 0)').evaluateWithCost({ l: [1, 2, 3] });
    expect(value).toBe(true);
    expect(cost).toBe(1 + 3 * 5 + 1);
    // One unit for the evaluation, three for iterating the list (read as given: its elements are converted where used).
    expect(work).toBe(1 + 3);
    expect(compileCel('l == l').evaluateWithCost({ l: [1, 2, 3] }).work).toBe(1 + 4);
  });
});
