/**
 * Workload 1 in each peer engine's native form (peer-bench.md, "How the rule
 * was written in each engine"). Peers get the pre-normalised Pod (memory in
 * bytes, registry split out) and the default parameters inlined: they do not
 * select parameters or parse quantities, which favours them.
 */
import { createMongoAbility, type MongoAbility } from '@casl/ability';
import { newEnforcer, newModelFromString, StringAdapter } from 'casbin';
import { LogicEngine } from 'json-logic-engine';
import jsonLogic from 'json-logic-js';
import { Engine } from 'json-rules-engine';
import type { Pod } from '../pods.js';

export interface RuleParams {
  maxMemory: number;
  allowedRegistries: readonly string[];
}

/** An engine's answer for one normalised Pod: allowed or not. */
export type Check = (pod: Pod) => boolean;
export type AsyncCheck = (pod: Pod) => Promise<boolean>;

export function jsonLogicRule(p: RuleParams): jsonLogic.RulesLogic {
  return {
    all: [
      { var: 'spec.containers' },
      { and: [{ '<=': [{ var: 'resources.limits.memory' }, p.maxMemory] }, { in: [{ var: 'registry' }, [...p.allowedRegistries]] }] },
    ],
  } as unknown as jsonLogic.RulesLogic;
}

export function jsonLogicJs(p: RuleParams): Check {
  const rule = jsonLogicRule(p);
  return (pod) => jsonLogic.apply(rule, pod) === true;
}

export function jsonLogicEngineBuild(p: RuleParams): Check {
  const engine = new LogicEngine();
  const fn = engine.build(jsonLogicRule(p)) as (data: unknown) => unknown;
  return (pod) => fn(pod) === true;
}

export function jsonLogicEngineRun(p: RuleParams): Check {
  const engine = new LogicEngine();
  const rule = jsonLogicRule(p);
  return (pod) => engine.run(rule, pod) === true;
}

export function casl(p: RuleParams): Check {
  const ability: MongoAbility = createMongoAbility(
    [
      { action: 'admit', subject: 'Pod' },
      { action: 'admit', subject: 'Pod', inverted: true, conditions: { 'spec.containers': { $elemMatch: { 'resources.limits.memory': { $gt: p.maxMemory } } } } },
      { action: 'admit', subject: 'Pod', inverted: true, conditions: { 'spec.containers': { $elemMatch: { registry: { $nin: [...p.allowedRegistries] } } } } },
    ],
    { detectSubjectType: (o) => (o as { kind: string }).kind },
  );
  return (pod) => ability.can('admit', pod as never);
}

const CASBIN_MODEL = `
[request_definition]
r = obj, act
[policy_definition]
p = registry, maxmem, act
[policy_effect]
e = some(where (p.eft == allow))
[matchers]
m = r.act == p.act && r.obj.registry == p.registry && r.obj.resources.limits.memory <= p.maxmem
`;

/** casbin has no quantifier over containers: one `enforceSync` per container. */
export async function casbin(p: RuleParams): Promise<Check> {
  const lines = p.allowedRegistries.map((r) => `p, ${r}, ${p.maxMemory}, admit`).join('\n');
  const enforcer = await newEnforcer(newModelFromString(CASBIN_MODEL), new StringAdapter(lines));
  return (pod) => {
    const containers = pod.spec.containers;
    for (let i = 0; i < containers.length; i++) if (!enforcer.enforceSync(containers[i], 'admit')) return false;
    return true;
  };
}

export function jsonRulesEngine(p: RuleParams): AsyncCheck {
  const engine = new Engine([], { allowUndefinedFacts: true });
  engine.addRule({
    conditions: {
      all: [
        { fact: 'pod', path: '$.spec.containers[*].resources.limits.memory', operator: 'everyFact:lessThanInclusive', value: { fact: 'params', path: '$.maxMemory' } },
        { fact: 'pod', path: '$.spec.containers[*].registry', operator: 'everyFact:in', value: { fact: 'params', path: '$.allowedRegistries' } },
      ],
    },
    event: { type: 'admit' },
  });
  const params = { maxMemory: p.maxMemory, allowedRegistries: [...p.allowedRegistries] };
  return async (pod) => (await engine.run({ pod, params })).events.length > 0;
}
