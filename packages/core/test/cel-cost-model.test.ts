/**
 * The CEL cost model (docs/security.md, "The cost of CEL"): every operation whose work grows with its
 * operands charges for that work, before doing it where it allocates, and nothing depends on the depth of
 * the JavaScript stack. Each test pins a figure of the table: the units an evaluation spends, of both kinds.
 */
import { compileCel, compilePolicies, parsePolicyDocuments, type CompileOptions } from '@verdict/core';
import { describe, expect, it } from 'vitest';

/** The units `expression` spends on `variables`: the API server's and verdict's own work (`evaluateWithCost`). */
function costOf(expression: string, variables: Record<string, unknown>): number {
  const { cost, work } = compileCel(expression).evaluateWithCost(variables);
  return cost + work;
}

const labels = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`l${i}`, `v${i}`]));
const items = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `c${i}`, image: `img${i}` }));
function nested(depth: number, leaf: unknown = 1): Record<string, unknown> {
  let o: Record<string, unknown> = { leaf };
  for (let i = 0; i < depth; i++) o = { x: o };
  return o;
}

describe('the cost of CEL operators', () => {
  it('answers `in` on a map with a hash lookup: the same cost for 10 and 100,000 keys', () => {
    const wide = labels(100_000);
    expect(costOf("'team' in m", { m: labels(10) })).toBe(costOf("'team' in m", { m: wide }));
    expect(costOf("'team' in m", { m: wide })).toBeLessThan(5);
    expect(compileCel("'l99999' in m").evaluate({ m: wide })).toBe(true);
  });

  it('charges `in` on a list one unit per element', () => {
    const names = items(10_000).map((c) => c.name);
    expect(costOf("'zz' in l", { l: names })).toBeGreaterThanOrEqual(10_000);
    expect(costOf("'zz' in l", { l: names })).toBeLessThan(10_100);
  });

  it('charges equality of lists and maps per container, element and entry compared, and strings per ten characters', () => {
    const cost = costOf('a == b', { a: items(10_000), b: items(10_000) });
    // Converting each list to CEL values: one unit per container and one per entry, 1 + 10,000 + 10,000 × 3 each.
    const conversion = 2 * (1 + 10_000 + 10_000 * 3);
    // 10,001 containers compared + 10,000 list elements + 20,000 map entries + about 110,000 characters / 10
    expect(cost).toBeGreaterThanOrEqual(10_001 + 30_000 + 10_000 + conversion);
    expect(cost).toBeLessThan(10_001 + 50_000 + conversion);
    expect(costOf('s == t', { s: 'a'.repeat(100_000), t: 'a'.repeat(100_000) })).toBeGreaterThanOrEqual(10_000);
    expect(costOf('s < t', { s: 'a'.repeat(100_000), t: 'a'.repeat(100_000) })).toBeGreaterThanOrEqual(10_000);
  });

  it('charges + on strings and lists by the size of the result, before building it', () => {
    const s = 'a'.repeat(1_000_000);
    expect(costOf('size(s + s) > 0', { s })).toBeGreaterThanOrEqual(200_000);
    expect(costOf('size(l + l) > 0', { l: items(50_000) })).toBeGreaterThanOrEqual(100_000);
    // The doubling chain of the issue: 2^k copies of a 1 MB string stop at the budget, not at 512 MB.
    const doubled = 'cel.bind(v1, s + s, cel.bind(v2, v1 + v1, cel.bind(v3, v2 + v2, cel.bind(v4, v3 + v3, cel.bind(v5, v4 + v4, cel.bind(v6, v5 + v5, cel.bind(v7, v6 + v6, cel.bind(v8, v7 + v7, size(v8 + v8)))))))))';
    expect(() => compileCel(doubled, { budget: 10_000_000, kubernetesVersion: false }).evaluate({ s })).toThrow(/exceeded its cost budget/);
  });

  it('charges size(), contains(), startsWith() and conversions by the text they read, and size() of a map by its entries', () => {
    const s = 'a'.repeat(20_000);
    for (const expression of ['size(s) > 0', "s.contains('b')", "s.startsWith(s)", 'bytes(s) == bytes(s)', 's.endsWith(s)']) {
      expect(costOf(expression, { s }), expression).toBeGreaterThanOrEqual(2_000);
    }
    expect(costOf('size(m) > 0', { m: labels(20_000) })).toBeGreaterThanOrEqual(2_000);
  });

  it('charges converting input to CEL values: one unit per container and per entry, four per key of a map over 1,000 keys', () => {
    const strings = (n: number) => Array.from({ length: n }, (_, i) => `s${i}`);
    // `size(l)` costs the same for any list: the difference is the conversion of the list read whole.
    expect(costOf('size(l) > 0', { l: strings(5_000) }) - costOf('size(l) > 0', { l: strings(10) })).toBe(5_000 - 10);
    // Nested: 100 lists of 10 strings = 1 + 100 + 100 × (1 + 10) units, an empty list 1.
    expect(costOf('size(l) > 0', { l: Array.from({ length: 100 }, () => strings(10)) }) - costOf('size(l) > 0', { l: [] })).toBe(100 + 100 * 11);
    // A wide map lists its keys at four units each (V8 keeps it as a hash table); size() adds one unit per ten entries.
    const narrow = costOf('size(m) > 0', { m: labels(1_000) });
    const wide = costOf('size(m) > 0', { m: labels(2_000) });
    expect(wide - narrow).toBe((2_000 * 4 - 1_000) + (2_000 - 1_000) / 10);
    // Frozen values (parameters) convert once per process, uncharged.
    expect(costOf('size(l) > 0', { l: Object.freeze(strings(5_000)) })).toBe(costOf('size(l) > 0', { l: Object.freeze(strings(10)) }));
  });

  it('charges matches, find and findAll as Kubernetes: the characters over ten, times the pattern\'s length over four', () => {
    const s = 'a'.repeat(20_000);
    // 1 (the expression) + 1 (the call) + ceil(20,001 / 10) * ceil(length / 4)
    expect(costOf("s.matches('^a+$')", { s })).toBe(2 + 2_001 * 1);
    expect(costOf("s.matches('^(a|b|c|d|e|f|g|h)+$')", { s })).toBe(2 + 2_001 * 5);
    expect(costOf("s.find('b+') == ''", { s })).toBe(2 + 2_001 * 1);
  });

  it('charges functions added through cel.functions by the size of their arguments and result, or their declared cost', () => {
    const echo = { signature: 'echo(string): string', handler: (s: string) => s };
    const s = 'a'.repeat(100_000);
    expect(() => compileCel('size(echo(s)) > 0', { functions: [echo], budget: 15_000 }).evaluate({ s })).toThrow(/exceeded its cost budget/);
    expect(compileCel('size(echo(s)) > 0', { functions: [echo], budget: 50_000 }).evaluate({ s })).toBe(true);
    const declared = { ...echo, cost: () => 1_000 };
    expect(compileCel('echo(s) == "" || echo(s) != ""', { functions: [declared], budget: 3_000 }).evaluate({ s: 'x' })).toBe(true);
    expect(() => compileCel('echo(s) == "" || echo(s) == "z" || echo(s) == "y"', { functions: [declared], budget: 2_500 }).evaluate({ s: 'y' })).toThrow(/exceeded its cost budget/);
  });
});

describe('CEL on deeply nested values', () => {
  it('compares, converts and reads objects nested 10,000 deep with the true answer', () => {
    const a = nested(10_000);
    expect(compileCel('a == b').evaluate({ a, b: nested(10_000) })).toBe(true);
    expect(compileCel('a == b').evaluate({ a, b: nested(10_000, 2) })).toBe(false);
    expect(compileCel('a != b').evaluate({ a, b: nested(10_000, 2) })).toBe(true);
    expect(compileCel('a.x != null && has(a.x.x)').evaluate({ a })).toBe(true);
    expect(compileCel('[a] == [b]').evaluate({ a, b: nested(10_000) })).toBe(true);
    expect(compileCel('a in [b]').evaluate({ a, b: nested(10_000) })).toBe(true);
    expect(compileCel('size(a.x) == 1').evaluate({ a })).toBe(true);
    // The result comes back as JSON, converted without recursion too.
    let out = compileCel('a').evaluate({ a }) as Record<string, unknown>;
    for (let i = 0; i < 10_000; i++) out = out['x'] as Record<string, unknown>;
    expect(out).toEqual({ leaf: 1 });
  });

  it('never reaches the JavaScript stack, even 100,000 deep', () => {
    const a = nested(100_000);
    expect(compileCel('a == b').evaluate({ a, b: nested(100_000) })).toBe(true);
    expect(compileCel('a.x != null').evaluate({ a })).toBe(true);
  });
});

describe('cost limits of one expression and one policy (an adapter profile\'s costLimits)', () => {
  const COSTLY = `    - {name: costly, expression: "object.items.all(a, object.items.all(b, a != ''))"}`;
  const THREE_RULES = `    - {name: cheap, expression: "object.name != ''"}\n${COSTLY}\n    - {name: last, expression: "object.name == 'x'"}`;
  const documents = (failurePolicy: string, validate = THREE_RULES) => parsePolicyDocuments(`
apiVersion: verdict.dev/v1
kind: PolicyTemplate
metadata: {name: t}
spec:
  kind: T
  failurePolicy: ${failurePolicy}
  validate:
${validate}
---
apiVersion: verdict.dev/v1
kind: T
metadata: {name: c}
`);
  const setup = (failurePolicy: string, costLimits: { expression?: number; policy?: number }, costBudget?: number, validate?: string) => {
    const options: CompileOptions = {
      cel: { profile: () => ({ names: ['object'], costLimits, activation: (input) => ({ object: input['object'] }) }) },
      ...(costBudget === undefined ? {} : { costBudget }),
    };
    return compilePolicies(documents(failurePolicy, validate), options);
  };
  const input = { object: { name: 'y', items: Array.from({ length: 300 }, (_, i) => `i${i}`) } };

  it('fails the expression past its limit ("operation cancelled"), and the policy goes on', () => {
    const decision = setup('Fail', { expression: 10_000 }).evaluate(input);
    expect(decision.allowed).toBe(false);
    expect(decision.errors).toEqual([expect.objectContaining({ code: 'RULE_ERROR', rule: 'costly', message: 'rule "costly" failed: operation cancelled: actual cost limit exceeded' })]);
    expect(decision.violations.map((v) => v.rule)).toEqual(['last']);
  });

  it('fails the policy past its budget, skipping the rules not run, and failurePolicy Ignore ignores it', () => {
    const failed = setup('Fail', { policy: 10_000 }).evaluate(input);
    expect(failed.allowed).toBe(false);
    expect(failed.errors).toEqual([expect.objectContaining({ code: 'RULE_ERROR', message: 'validation failed due to running out of cost budget, no further validation rules will be run' })]);
    expect(failed.trace[0]!.rules.map((r) => r.result)).toEqual(['pass', 'error', 'skipped']);
    const ignored = setup('Ignore', { policy: 10_000 }).evaluate(input);
    expect(ignored.allowed).toBe(true);
    expect(ignored.errors[0]).toMatchObject({ ignored: true });
  });

  it('drops the violations a policy recorded before its budget ran out, as the API server does, under Fail and Ignore', () => {
    // validating/validator.go: the validations' filter returns the out-of-budget error, and the policy's one decision
    // is its failurePolicy's; the validations that already failed are not reported.
    const failingFirst = (failurePolicy: string) => setup(failurePolicy, { policy: 10_000 }, undefined, `    - {name: first, expression: "object.name == 'x'", message: first failed}\n${COSTLY}`);
    const failed = failingFirst('Fail').evaluate(input);
    expect(failed.allowed).toBe(false);
    expect(failed.violations).toEqual([]);
    expect(failed.errors).toEqual([expect.objectContaining({ code: 'RULE_ERROR', message: 'validation failed due to running out of cost budget, no further validation rules will be run' })]);
    expect(failed.trace[0]!.rules.map((r) => r.result)).toEqual(['fail', 'error']);
    const ignored = failingFirst('Ignore').evaluate(input);
    expect(ignored.allowed).toBe(true);
    expect(ignored.violations).toEqual([]);
    expect(ignored.errors).toEqual([expect.objectContaining({ ignored: true, message: 'validation failed due to running out of cost budget, no further validation rules will be run' })]);
    // Within its budget, the same policy reports its violation.
    const small = { object: { name: 'y', items: ['a'] } };
    expect(failingFirst('Ignore').evaluate(small).violations.map((v) => v.rule)).toEqual(['first']);
  });

  it('cancels an expression whose all() goes on charging past its limit, without charging the evaluation for work never done', () => {
    // all() absorbs an element's error and charges the next element, which throws again: 300 elements of
    // 300 units each would count 90,000 units against a limit of 1,000 and an evaluation budget of 20,000.
    const decision = setup('Fail', { expression: 1_000 }, 20_000).evaluate(input);
    expect(decision.errors).toEqual([expect.objectContaining({ code: 'RULE_ERROR', rule: 'costly', message: 'rule "costly" failed: operation cancelled: actual cost limit exceeded' })]);
    expect(decision.cost).toBeLessThan(20_000);
  });

  it('stops the whole evaluation when the evaluation budget runs out first', () => {
    const decision = setup('Ignore', { expression: 1_000_000 }, 5_000).evaluate(input);
    expect(decision.allowed).toBe(false);
    expect(decision.errors.map((e) => e.code)).toEqual(['BUDGET_EXCEEDED']);
  });
});
