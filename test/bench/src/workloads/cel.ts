/**
 * CEL rows: the memory-limit check as a json-logic Policy (the reference), the same check as a CEL Policy
 * through `PolicySet.evaluate`, the expression alone through core's `compileCel`, and @marcbachmann/cel-js
 * evaluating the expression by itself (with a bare quantity function): the distance between the last two
 * and the Policy rows is what verdict's integration costs (activation, metering, decision and trace).
 */
import { Environment } from '@marcbachmann/cel-js';
import { compileCel, compilePolicies, parsePolicyDocuments, type PolicySet } from '@verdict/core';
import type { Case, Group } from '../method.js';
import { badPods, goodPods, parseQuantity, rotate, type Pod } from '../pods.js';

export const MEMORY_EXPRESSION =
  'object.spec.containers.all(c, has(c.resources.limits.memory) && quantity(c.resources.limits.memory).compareTo(quantity(params.limit)) <= 0)';

const policy = (rule: string) => `
apiVersion: verdict.dev/v1
kind: Policy
metadata: {name: memory-limit}
spec:
  parameters: {limit: 1Gi}
  validate:
    - name: memory
${rule}
      message: "containers must have a memory limit of at most {{parameters.limit}}"
`;

const JSON_LOGIC = policy(`      rule:
        all:
          - {var: object.spec.containers}
          - and:
              - {"!!": {var: resources.limits.memory}}
              - {"<=": [{quantity: {var: resources.limits.memory}}, {quantity: {input: parameters.limit}}]}`);

const CEL = policy(`      expression: "${MEMORY_EXPRESSION}"`);

/** cel-js alone: `expression` with a minimal quantity type (decimal and binary suffixes, compareTo). */
export function bareLibrary(expression = MEMORY_EXPRESSION): (activation: Record<string, unknown>) => unknown {
  class Quantity {
    constructor(readonly value: number) {}
  }
  const env = new Environment({ unlistedVariablesAreDyn: true, enableOptionalTypes: true })
    .registerType('kubernetes.Quantity', Quantity)
    .registerFunction('quantity(string): kubernetes.Quantity', (s: string) => new Quantity(parseQuantity(s)))
    .registerFunction('kubernetes.Quantity.compareTo(kubernetes.Quantity): int', (a: Quantity, b: Quantity) => BigInt(Math.sign(a.value - b.value)));
  const parsed = env.parse(expression);
  const checked = parsed.check();
  if (!checked.valid) throw checked.error ?? new Error('type check failed');
  return (activation) => parsed(activation);
}

function sanity(ok: boolean, what: string): void {
  if (!ok) throw new Error(`sanity check failed: ${what}`);
}

export function celWorkload(): Group {
  const jsonLogic: PolicySet = compilePolicies(parsePolicyDocuments(JSON_LOGIC, { source: 'bench/cel-json-logic.yaml' }));
  const cel: PolicySet = compilePolicies(parsePolicyDocuments(CEL, { source: 'bench/cel.yaml' }));
  const expression = compileCel(MEMORY_EXPRESSION);
  const bare = bareLibrary();
  const params = { limit: '1Gi' };
  const good = goodPods().map((object) => ({ object }));
  const bad = badPods().slice(0, 1).map((object: Pod) => ({ object }));
  for (const input of good) {
    sanity(jsonLogic.evaluate(input).allowed && cel.evaluate(input).allowed, 'both Policies allow the good Pods');
    sanity(expression.evaluate({ ...input, params }) === true && bare({ ...input, params }) === true, 'both expressions allow the good Pods');
  }
  for (const input of bad) {
    sanity(!jsonLogic.evaluate(input).allowed && !cel.evaluate(input).allowed, 'both Policies deny the 20Gi Pod');
    sanity(expression.evaluate({ ...input, params }) === false && bare({ ...input, params }) === false, 'both expressions deny the 20Gi Pod');
  }
  const next = rotate(good);
  const cases: Case[] = [
    { name: 'verdict json-logic Policy `PolicySet.evaluate`', engine: 'verdict', reference: true, fn: () => jsonLogic.evaluate(next()) },
    { name: 'verdict CEL Policy `PolicySet.evaluate`', engine: 'verdict-cel', fn: () => cel.evaluate(next()) },
    { name: 'verdict `compileCel(expression).evaluate` (no policy)', engine: 'verdict-cel-expression', fn: () => expression.evaluate({ ...next(), params }) },
    { name: '@marcbachmann/cel-js alone (bare quantity function)', engine: 'cel-js', fn: () => bare({ ...next(), params }) },
  ];
  return {
    id: 'cel',
    title: 'CEL: the memory-limit check as json-logic and as CEL, and the CEL library alone (Pod with 3 containers)',
    cases,
    info: { pods: good.length, expression: MEMORY_EXPRESSION },
  };
}
