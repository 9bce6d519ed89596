import { compilePolicies, DEFAULT_COST_BUDGET, VerdictError, type CompileOptions, type Decision } from '@verdict/core';
import { describe, expect, it } from 'vitest';
import { BudgetExceeded, CostLimitExceeded, CostMeter } from '../src/budget.js';

type Spec = Record<string, unknown>;

function setup(specs: Record<string, Spec>, options?: CompileOptions) {
  const documents = Object.entries(specs).map(([name, spec], order) => ({ apiVersion: 'verdict.dev/v1', kind: 'Policy', metadata: { name }, spec: { order, ...spec } }));
  const set = compilePolicies(documents, options);
  return { set, cost: (input: Record<string, unknown>) => set.evaluate(input).cost! };
}

const list = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `c${i}`, image: `registry.io/app${i}` }));
const rule = (r: unknown, extra: Spec = {}) => ({ validate: [{ name: 'r', rule: r, message: 'm', ...extra }] });

describe('the cost of an evaluation', () => {
  it('is a handful of units for a realistic input, far below the default budget', () => {
    const { set } = setup({ images: rule({ glob: ['registry.io/*', { var: 'element.image' }] }, { forEach: { var: 'object.containers' } }) });
    const decision = set.evaluate({ object: { containers: list(3) } });
    expect(decision.allowed).toBe(true);
    expect(decision.cost).toBeGreaterThan(0);
    expect(decision.cost).toBeLessThan(50);
    expect(DEFAULT_COST_BUDGET).toBe(10_000_000);
  });

  it('grows by one unit per element for forEach and every iteration operation', () => {
    for (const r of [
      { forEach: { var: 'object.items' }, rule: true },
      { rule: { all: [{ var: 'object.items' }, true] } },
      { rule: { some: [{ var: 'object.items' }, false] } },
      { rule: { none: [{ var: 'object.items' }, false] } },
      { rule: { '!!': { map: [{ var: 'object.items' }, 1] } } },
      { rule: { '!': { filter: [{ var: 'object.items' }, false] } } },
      { rule: { reduce: [{ var: 'object.items' }, true, true] } },
    ]) {
      const { cost } = setup({ p: { validate: [{ name: 'r', message: 'm', ...r }] } });
      const items = (n: number) => ({ object: { items: Array.from({ length: n }, (_, i) => i) } });
      expect({ r, perElement: (cost(items(1100)) - cost(items(100))) / 1000 }).toEqual({ r, perElement: 1 });
    }
  });

  it('grows by one unit per ten characters for string work and pattern matching', () => {
    for (const r of [
      { '!!': { cat: ['x', { var: 'object.s' }] } },
      { '!!': { substr: [{ var: 'object.s' }, 1] } },
      { '!!': { split: [{ var: 'object.s' }, ','] } },
      { '!!': { upper: { var: 'object.s' } } },
      { '!': { in: ['!', { var: 'object.s' }] } },
      { '!': { glob: ['*b*b*b*c', { var: 'object.s' }] } },
      { '!': { regex: ['^(a+)+!$', { var: 'object.s' }] } },
    ]) {
      const { cost } = setup({ p: rule(r) });
      expect({ r, per10: (cost({ object: { s: 'a'.repeat(10_100) } }) - cost({ object: { s: 'a'.repeat(100) } })) / 1000 }).toEqual({ r, per10: 1 });
    }
  });

  it('charges keys, merge and join by size, and messages by their rendered length', () => {
    const big = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`k${i}`, i]));
    expect(setup({ p: rule({ '!!': { keys: { var: 'object.m' } } }) }).cost({ object: { m: big } })).toBeGreaterThanOrEqual(1000);
    expect(setup({ p: rule({ '!!': { merge: [{ var: 'object.l' }, [1]] } }) }).cost({ object: { l: list(1000) } })).toBeGreaterThanOrEqual(1001);
    const { cost } = setup({ p: rule(false, { message: 'got {{object.s}}' }) });
    expect(cost({ object: { s: 'a'.repeat(10_100) } }) - cost({ object: { s: 'a'.repeat(100) } })).toBe(1000);
  });

  it('charges a list that a loose comparison or arithmetic reads as text (no quadratic forEach over an uncharged conversion)', () => {
    for (const r of [{ '==': [{ var: 'object.l' }, 'x'] }, { '!=': ['x', { var: 'object.l' }] }, { '<': [0, { '+': [{ var: 'object.l' }] }] }, { '!!': { min: [{ var: 'object.l' }, 1] } }]) {
      const { cost } = setup({ p: rule({ or: [r, true] }) });
      const l = (n: number) => ({ object: { l: Array.from({ length: n }, () => 'abcdefghi') } });
      expect({ r, grows: cost(l(1000)) - cost(l(10)) }).toEqual({ r, grows: 990 });
    }
    expect(setup({ p: rule({ '==': [{ var: 'object.a' }, { var: 'object.b' }] }) }).cost({ object: { a: list(1000), b: list(1000) } })).toBeLessThan(10);
  });

  it('charges field selectors by the length of the value they match', () => {
    const { cost } = setup({ p: { match: { fields: [{ path: 'name', values: ['app-*'] }] }, ...rule(true) } });
    expect(cost({ name: `app-${'a'.repeat(10_000)}` }) - cost({ name: 'app-a' })).toBe(1000);
  });
});

describe('exceeding the cost budget', () => {
  function exceeded(decision: Decision) {
    return decision.errors.find((e) => e.code === 'BUDGET_EXCEEDED');
  }

  it('stops the evaluation with a BUDGET_EXCEEDED error naming the policy and rule, not allowed', () => {
    const { set } = setup({
      first: rule(true, { forEach: { var: 'object.items' } }),
      second: rule(false),
    }, { costBudget: 1000 });
    const decision = set.evaluate({ object: { items: list(5000) } });
    expect(decision.allowed).toBe(false);
    expect(exceeded(decision)).toEqual({
      code: 'BUDGET_EXCEEDED', policy: 'first', kind: 'Policy', rule: 'r',
      message: expect.stringMatching(/^evaluation stopped in rule "r" of Policy "first": it exceeded the cost budget of 1000 units/),
    });
    expect(exceeded(decision)).not.toHaveProperty('enforcementAction');
    expect(decision.violations).toEqual([]);
    expect(decision.trace.map((t) => [t.policy, t.rules.length])).toEqual([['first', 1], ['second', 0]]);
    expect(decision.trace[0]!.rules[0]).toMatchObject({ result: 'error', message: expect.stringMatching(/cost budget/) });
  });

  it('keeps the violations found before the budget ran out', () => {
    const { set } = setup({ a: rule(false), b: rule(true, { forEach: { var: 'object.items' } }) }, { costBudget: 100 });
    const decision = set.evaluate({ object: { items: list(500) } });
    expect(decision.violations.map((v) => v.policy)).toEqual(['a']);
    expect(exceeded(decision)?.policy).toBe('b');
  });

  it('says "in the match" when a selector spent the last units, and never half-applies a mutation', () => {
    const { set } = setup({ m: { match: { when: { all: [{ var: 'items' }, true] } }, ...rule(true) } }, { costBudget: 10 });
    expect(exceeded(set.evaluate({ items: list(50) }))?.message).toMatch(/^evaluation stopped in the match of Policy "m"/);
    const mutating = setup({ m: { mutate: [{ name: 'label', patch: [{ op: 'add', path: '/items/0/x', value: 1 }] }] } }, { costBudget: 100 });
    const decision = mutating.set.evaluate({ items: list(500) });
    expect(decision).toMatchObject({ allowed: false, patch: [] });
    expect(decision).not.toHaveProperty('mutated');
    expect(exceeded(decision)?.rule).toBe('label');
  });

  it('never runs out with Infinity, and refuses a budget that is not a positive number', () => {
    expect(setup({ p: rule(true, { forEach: { var: 'object.items' } }) }, { costBudget: Infinity }).set.evaluate({ object: { items: list(10_000) } }).allowed).toBe(true);
    for (const costBudget of [0, -1, Number.NaN, '10' as unknown as number]) {
      expect(() => setup({ p: rule(true) }, { costBudget })).toThrow(VerdictError);
    }
    expect(() => setup({ p: rule(true) }, { maxViolations: 1.5 })).toThrow(/maxViolations must be a positive integer/);
  });
});

describe('message caps', () => {
  it('lists the first maxViolations violations and counts the rest in omitted; allowed counts all of them', () => {
    const { set } = setup({ p: rule(false, { forEach: { var: 'object.items' }, message: 'bad {{element.name}}' }) }, { maxViolations: 3 });
    const decision = set.evaluate({ object: { items: list(10) } });
    expect(decision.violations.map((v) => v.message)).toEqual(['bad c0', 'bad c1', 'bad c2']);
    expect(decision.omitted).toEqual({ violations: 7, denials: 7, warnings: 0 });
    expect(decision.allowed).toBe(false);
    expect(decision.trace[0]!.rules[0]).toMatchObject({ elements: 10, violations: 10 });
  });

  it('caps warnings the same way, and has no omitted field when everything is listed', () => {
    const { set } = setup({ p: { enforcementAction: 'warn', ...rule(false, { forEach: { var: 'object.items' } }) } }, { maxViolations: 2 });
    const decision = set.evaluate({ object: { items: list(5) } });
    expect(decision.warnings).toHaveLength(2);
    expect(decision.omitted).toEqual({ violations: 3, denials: 0, warnings: 3 });
    expect(set.evaluate({ object: { items: list(2) } })).not.toHaveProperty('omitted');
  });

  it('cuts a message longer than maxMessageLength with an ellipsis', () => {
    const { set } = setup({ p: rule(false, { message: '{{object.s}}' }) }, { maxMessageLength: 10 });
    expect(set.evaluate({ object: { s: 'x'.repeat(100) } }).violations[0]!.message).toBe(`${'x'.repeat(9)}…`);
    expect(set.evaluate({ object: { s: 'short' } }).violations[0]!.message).toBe('short');
  });
});

describe('the cost meter: parts with limits of their own', () => {
  it('holds work to the budget apart from spend, and never against a part\'s limit', () => {
    const meter = new CostMeter(100);
    // 60 of work inside a part of 10: the part's limit counts spend only.
    meter.within(10, () => meter.work(60));
    meter.spend(90);
    expect([meter.spent, meter.worked]).toEqual([90, 60]);
    // Work past the budget ends the evaluation even though spend has room left.
    expect(() => meter.work(41)).toThrow(BudgetExceeded);
  });

  it('counts what runs beside a part against the part around it, not against the part', () => {
    const meter = new CostMeter(1_000);
    const spent = meter.within(100, () => meter.within(50, () => {
      meter.spend(30);
      // 40 beside the expression: within the variable's own 50, and the policy's 100 less the expression's 30.
      meter.beside(50, () => meter.spend(40));
      meter.spend(15);
      return meter.spent;
    }));
    expect(spent).toBe(85);
  });

  it('cancels a part beside past its own limit, and the part around when the sum passes its limit', () => {
    const meter = new CostMeter(1_000);
    expect(() => meter.within(100, () => meter.within(50, () => meter.beside(50, () => meter.spend(60))))).toThrow(CostLimitExceeded);
    // The expression spends 45 of its 50; two variables beside it spend 40 each, within their own 50: together 125,
    // past the policy's 100.
    const policy = new CostMeter(1_000);
    let error: unknown;
    try {
      policy.within(100, () => policy.within(50, () => {
        policy.spend(45);
        policy.beside(50, () => policy.spend(40));
        policy.beside(50, () => policy.spend(40));
      }));
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(CostLimitExceeded);
    expect((error as CostLimitExceeded).limit).toBe(100);
  });

  it('charges what runs beside a part to the part around even when that has less left than the part\'s own limit', () => {
    // The policy has 40 of its 100 left when the expression (limit 50) starts: the variable's 45 passes the policy's limit.
    const meter = new CostMeter(1_000);
    const run = () => meter.within(100, () => {
      meter.spend(60);
      meter.within(50, () => meter.beside(50, () => meter.spend(45)));
    });
    expect(run).toThrow(CostLimitExceeded);
    // Within it, the policy goes on with what is left: 60, 30 beside and 5 of the expression's own leave it 5.
    const left = (extra: number) => {
      const meter = new CostMeter(1_000);
      return () => meter.within(100, () => {
        meter.spend(60);
        meter.within(50, () => {
          meter.beside(50, () => meter.spend(30));
          meter.spend(5);
        });
        meter.spend(extra);
      });
    };
    expect(left(5)).not.toThrow();
    expect(left(6)).toThrow(CostLimitExceeded);
  });
});
