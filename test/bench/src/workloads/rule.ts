/**
 * Workload 1 (target 1): one admission decision for one Pod. verdict runs
 * the default-and-overrides memory constraint (Gatekeeper feature request #3082) (three parameterSelection entries, selectors
 * over namespace labels) with the registry check, on the raw Pod; the
 * hand-written baseline does the same work (selection, quantity and image
 * parsing) in plain JS; the peers run the bare rule on the normalised Pod.
 */
import { compilePolicies, parsePolicyDocuments, type PolicySet } from '@verdict/core';
import type { Case, Group } from '../method.js';
import { badPods, GI, goodPods, normalisePod, parseQuantity, REGISTRIES, rotate, splitImage, type Pod } from '../pods.js';
import * as peers from './rule-peers.js';

export const PROJECT_KEY = 'field.cattle.io/projectId';

/** Seed 003's memory constraint as verdict documents, plus the registry check. */
export const RULE_POLICIES = `
apiVersion: verdict.dev/v1
kind: PolicyTemplate
metadata: {name: k8smemorylimits}
spec:
  kind: K8sMemoryLimits
  parametersSchema:
    type: object
    properties:
      limit: {type: string}
      allowedRegistries: {type: array, items: {type: string}}
    required: [limit, allowedRegistries]
  validate:
    - name: container-limits
      forEach: {var: object.spec.containers}
      rule:
        and:
          - {"<=": [{quantity: {var: element.resources.limits.memory}}, {quantity: {var: parameters.limit}}]}
          - {in: [{get: [{image: {var: element.image}}, registry]}, {var: parameters.allowedRegistries}]}
      message: "container {{element.name}}: memory limit at most {{parameters.limit}}, image from {{parameters.allowedRegistries | join \\", \\"}}"
---
apiVersion: verdict.dev/v1
kind: K8sMemoryLimits
metadata: {name: memory-limit-enforcement}
spec:
  match:
    labels:
      path: namespaceLabels
      matchExpressions:
        - {key: ${PROJECT_KEY}, operator: NotIn, values: [system]}
  parameters:
    allowedRegistries: [${REGISTRIES.join(', ')}]
  parameterSelection:
    - name: 32g-team
      match: {labels: {path: namespaceLabels, matchLabels: {${PROJECT_KEY}: 32g-team}}}
      parameters: {limit: 32Gi}
    - name: 64g-team
      match: {labels: {path: namespaceLabels, matchLabels: {${PROJECT_KEY}: 64g-team}}}
      parameters: {limit: 64Gi}
    - name: everyone-else
      parameters: {limit: 16Gi}
`;

export interface RuleInput {
  object: Pod;
  namespaceLabels: Record<string, string>;
}

export function rulePolicySet(): PolicySet {
  return compilePolicies(parsePolicyDocuments(RULE_POLICIES, { source: 'bench/rule.yaml' }));
}

/** The inputs: each Pod in a project that falls through to `everyone-else` (both earlier entries are tried). */
export function ruleInputs(pods: readonly Pod[]): RuleInput[] {
  return pods.map((object, i) => ({ object, namespaceLabels: { [PROJECT_KEY]: `project-${i}`, 'kubernetes.io/metadata.name': object.metadata.namespace } }));
}

/** Hand-written JS doing verdict's work: selection, parameterSelection, quantity and image parsing, violations. */
export function handWritten(input: RuleInput): { allowed: boolean; violations: string[] } {
  const project = input.namespaceLabels[PROJECT_KEY];
  const violations: string[] = [];
  if (project === 'system') return { allowed: true, violations };
  const limit = project === '32g-team' ? 32 * GI : project === '64g-team' ? 64 * GI : 16 * GI;
  const containers = input.object.spec.containers;
  for (let i = 0; i < containers.length; i++) {
    const c = containers[i]!;
    const memory = parseQuantity(c.resources.limits.memory);
    const { registry } = splitImage(c.image);
    if (!(memory <= limit) || !REGISTRIES.includes(registry)) violations.push(`container ${c.name} violates the limits`);
  }
  return { allowed: violations.length === 0, violations };
}

/** The physical floor: the check alone over a pre-normalised Pod. */
export function handWrittenNormalised(pod: Pod, maxMemory: number): boolean {
  const containers = pod.spec.containers;
  for (let i = 0; i < containers.length; i++) {
    const c = containers[i]!;
    if (!((c.resources.limits.memory as unknown as number) <= maxMemory && REGISTRIES.includes(c['registry'] as string))) return false;
  }
  return true;
}

function expect(ok: boolean, what: string): void {
  if (!ok) throw new Error(`sanity check failed: ${what}`);
}

export async function ruleWorkload(): Promise<Group> {
  const set = rulePolicySet();
  const good = ruleInputs(goodPods());
  const bad = ruleInputs(badPods());
  const normGood = good.map((i) => normalisePod(i.object));
  const normBad = bad.map((i) => normalisePod(i.object));
  const params: peers.RuleParams = { maxMemory: 16 * GI, allowedRegistries: REGISTRIES };

  const sync: Array<[string, string, peers.Check]> = [
    ['hand-written JS, pre-normalised Pod (for loop)', 'baseline-floor', (p) => handWrittenNormalised(p, params.maxMemory)],
    ['json-logic-js `apply`', 'json-logic-js', peers.jsonLogicJs(params)],
    ['json-logic-engine `build` (compiled)', 'json-logic-engine', peers.jsonLogicEngineBuild(params)],
    ['json-logic-engine `run`', 'json-logic-engine-run', peers.jsonLogicEngineRun(params)],
    ['CASL `ability.can`', 'casl', peers.casl(params)],
    ['casbin `enforceSync` ×3 containers', 'casbin', await peers.casbin(params)],
  ];
  const jre = peers.jsonRulesEngine(params);

  // Sanity: every engine allows the good Pods and denies the bad ones, before any timing.
  for (const input of good) expect(set.evaluate(input).allowed, `verdict allows ${input.object.metadata.name}`);
  for (const input of bad) expect(!set.evaluate(input).allowed, `verdict denies ${input.object.metadata.name}`);
  const big = { ...bad[0]!, namespaceLabels: { [PROJECT_KEY]: '32g-team' } };
  expect(set.evaluate(big).allowed, 'verdict selects 32Gi for 32g-team');
  expect(set.evaluate(good[0]!).trace[0]?.selection?.matched[0]?.name === 'everyone-else', 'inputs fall through to the last entry');
  for (const input of good) expect(handWritten(input).allowed, 'hand-written allows good Pods');
  for (const input of bad) expect(!handWritten(input).allowed, 'hand-written denies bad Pods');
  expect(handWritten(big).allowed, 'hand-written selects 32Gi for 32g-team');
  for (const [name, , check] of sync) {
    for (const p of normGood) expect(check(p), `${name} allows good Pods`);
    for (const p of normBad) expect(!check(p), `${name} denies bad Pods`);
  }
  for (const p of normGood) expect(await jre(p), 'json-rules-engine allows good Pods');
  for (const p of normBad) expect(!(await jre(p)), 'json-rules-engine denies bad Pods');

  const nextInput = rotate(good);
  const cases: Case[] = [
    { name: 'verdict `PolicySet.evaluate` (3 parameterSelection entries, raw Pod)', engine: 'verdict', reference: true, fn: () => set.evaluate(nextInput()) },
    { name: 'verdict `evaluate(input, {mutate: false})`', engine: 'verdict-nomutate', fn: () => set.evaluate(nextInput(), { mutate: false }) },
    { name: 'hand-written JS, raw Pod (selection + parse "512Mi" + image ref)', engine: 'baseline', fn: () => handWritten(nextInput()) },
  ];
  for (const [name, engine, check] of sync) {
    const next = rotate(normGood);
    cases.push({ name, engine, fn: () => check(next()) });
  }
  const nextNorm = rotate(normGood);
  cases.push({ name: 'json-rules-engine `engine.run` (async)', engine: 'json-rules-engine', async: true, fn: () => jre(nextNorm()) });
  return {
    id: 'rule',
    title: 'Workload 1: one admission decision (the default-and-overrides memory constraint + registry check, Pod with 3 containers)',
    cases,
    info: { pods: good.length, containers: 3, podJsonBytes: JSON.stringify(good[0]!.object).length },
  };
}
