/**
 * The CEL planner against cel-js: every case of the CEL specification's conformance data (the simple tests
 * packaged in @bufbuild/cel-spec, as cel-conformance.ts reads them) that cel-js checks runs
 * through the planner and through cel-js's own evaluation, and both give the same value or the same error.
 * (The ported Kubernetes library tests do the same through cel-helpers.ts.) Cases needing protocol-buffer
 * messages are left out, as in the conformance runner: Kubernetes CEL has none.
 */
import { describe, expect, it } from 'vitest';
import { buildCel } from '../src/compile.js';
import { celEnvironment } from '../src/env.js';
import { conformanceFiles } from './cel-conformance.js';
import { bothWays, sameOutcome } from './cel-differential.js';

function setup() {
  const environment = celEnvironment();
  const cases = conformanceFiles().flatMap((file) => file.cases.map((c) => ({ name: c.name, expression: c.expression, activation: c.bindings })));
  return { cases, environment };
}

describe('the CEL planner on the CEL conformance data', () => {
  it('gives the value or the error cel-js gives on every conformance case cel-js checks', () => {
    const { cases, environment } = setup();
    const differences: string[] = [];
    let compiled = 0;
    for (const c of cases) {
      const both = bothWays(c.expression, c.activation, environment);
      if (!both) continue;
      compiled++;
      if (!sameOutcome(both.plan, both.library)) differences.push(`${c.name}: ${c.expression}\n  planner ${JSON.stringify(both.plan, big)}\n  cel-js  ${JSON.stringify(both.library, big)}`);
    }
    expect(compiled).toBeGreaterThan(1000);
    expect(differences).toEqual([]);
  });

  it('plans nearly every conformance expression and leaves only optional-type macros to cel-js', () => {
    const { cases, environment } = setup();
    const fallbacks = new Set<string>();
    let compiled = 0;
    for (const c of cases) {
      let cel;
      try {
        cel = buildCel(c.expression, { environment, refuse: new Map() });
      } catch {
        continue;
      }
      compiled++;
      if (!cel.planned) fallbacks.add(c.expression);
    }
    expect(fallbacks.size / compiled).toBeLessThan(0.05);
    for (const expression of fallbacks) expect(expression).toMatch(/\.or(Value)?\(|\?\./);
  });
});

describe('the CEL planner on loop-invariant calls', () => {
  function setup() {
    const object = { spec: { containers: [{ name: 'a', memory: '1Gi' }, { name: 'b', memory: '3Gi' }, { name: 'c' }] } };
    const params = { data: { limit: '2Gi', text: 'Some Text' } };
    return { activation: { object, params } };
  }

  it('gives the values, errors and costs of computing an invariant call on every step', () => {
    const { activation } = setup();
    const expressions = [
      'object.spec.containers.all(c, !has(c.memory) || quantity(c.memory).compareTo(quantity(params.data.limit)) <= 0)',
      'object.spec.containers.filter(c, params.data.text.lowerAscii().size() > size(c.name)).size()',
      'object.spec.containers.map(c, params.data.text.lowerAscii() + c.name)',
      'object.spec.containers.exists(c, quantity(params.data.text) == quantity("1"))',
      'object.spec.containers.all(c, object.spec.containers.exists(d, d.name.upperAscii() == params.data.text.upperAscii()))',
    ];
    for (const expression of expressions) {
      const both = bothWays(expression, activation, undefined, true);
      expect(both?.planned).toBe(true);
      expect({ expression, ...both!.plan }).toEqual({ expression, ...both!.library });
      expect(both!.plan.cost).toBeGreaterThan(0);
    }
  });
});

function big(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? `${value}n` : value;
}
