/**
 * Workload 2 in plain JS and in each peer's native form. Each constraint
 * becomes "selector ⇒ rule": with a parameterSelection entry, two branches
 * (selector ∧ entry ⇒ rule(merged parameters), selector ∧ ¬entry ⇒ rule(parameters)).
 * Peers get the normalised input (memory in bytes, registry and tag split
 * out); none of them has an index, so they test every constraint.
 */
import { createMongoAbility, type MongoAbility } from '@casl/ability';
import { LogicEngine } from 'json-logic-engine';
import jsonLogic from 'json-logic-js';
import { Engine, type NestedCondition } from 'json-rules-engine';
import { handRule, limitBytes, reqsMatch, type Params, type Req, type ScaleInput, type Spec } from './scale-gen.js';

/** Number of constraints that fail for an input (0 = allowed). */
export type Violations = (input: ScaleInput) => number;

// ---- hand-written ----------------------------------------------------------------------

function handCheck(s: Spec, input: ScaleInput): number {
  if (!reqsMatch(input, s.reqs)) return 0;
  const params = s.entry && reqsMatch(input, s.entry.reqs) ? s.entry.merged : s.params;
  return handRule(s.kind, params, input.object) ? 0 : 1;
}

/** A linear scan over every constraint's selector (tight loops). */
export function handScan(specs: readonly Spec[]): Violations {
  return (input) => {
    let failed = 0;
    for (let i = 0; i < specs.length; i++) failed += handCheck(specs[i]!, input);
    return failed;
  };
}

function readKey(r: Req): string {
  return r.where === 'namespace' ? 'namespace' : `${r.where}\u0000${r.key}`;
}

function inputValue(input: ScaleInput, key: string): string | undefined {
  if (key === 'namespace') return input.namespace;
  const [where, label] = key.split('\u0000') as [string, string];
  return where === 'labels' ? input.object.metadata.labels[label] : input.namespaceLabels[label];
}

/** `Map<key, Map<value, constraints>>` on each constraint's first `In` requirement, plus an always-check list. */
export function handIndex(specs: readonly Spec[]): Violations {
  const index = new Map<string, Map<string, Spec[]>>();
  const always: Spec[] = [];
  for (const s of specs) {
    const r = s.reqs.find((q) => q.op === 'In');
    if (!r) {
      always.push(s);
      continue;
    }
    const key = readKey(r);
    let buckets = index.get(key);
    if (!buckets) index.set(key, (buckets = new Map()));
    for (const v of r.values) {
      const list = buckets.get(v);
      if (list) list.push(s);
      else buckets.set(v, [s]);
    }
  }
  const keys = [...index.keys()];
  const lookups = keys.map((k) => ({ key: k, buckets: index.get(k)! }));
  return (input) => {
    let failed = 0;
    for (let i = 0; i < always.length; i++) failed += handCheck(always[i]!, input);
    for (const { key, buckets } of lookups) {
      const v = inputValue(input, key);
      const list = v === undefined ? undefined : buckets.get(v);
      if (list) for (let i = 0; i < list.length; i++) failed += handCheck(list[i]!, input);
    }
    return failed;
  };
}

// ---- json-logic (json-logic-js and json-logic-engine) -------------------------------------

function varPath(r: Req): string {
  return r.where === 'namespace' ? 'namespace' : r.where === 'labels' ? `object.metadata.labels.${r.key}` : `namespaceLabels.${r.key}`;
}

function logicReqs(reqs: readonly Req[]): unknown {
  const parts = reqs.map((r) => {
    const test = r.values.length === 1 ? { '==': [{ var: varPath(r) }, r.values[0]] } : { in: [{ var: varPath(r) }, r.values] };
    return r.op === 'In' ? test : { '!': test };
  });
  return parts.length === 1 ? parts[0] : { and: parts };
}

function logicRule(s: Spec, p: Params): unknown {
  const containers = { var: 'object.spec.containers' };
  switch (s.kind) {
    case 'K8sMemoryLimits': return { all: [containers, { '<=': [{ var: 'resources.limits.memory' }, limitBytes(p)] }] };
    case 'K8sAllowedRegistries': return { all: [containers, { in: [{ var: 'registry' }, p.registries] }] };
    case 'K8sRequiredLabels': return { '!': { missing: p.labels!.map((k) => `object.metadata.labels.${k}`) } };
    default: return { none: [containers, { in: [{ var: 'tag' }, p.tags] }] };
  }
}

/** `{if: [selector, {if: [entry, rule(merged), rule(params)]}, true]}`: false is a violation. */
export function logicConstraint(s: Spec): unknown {
  const body = s.entry ? { if: [logicReqs(s.entry.reqs), logicRule(s, s.entry.merged), logicRule(s, s.params)] } : logicRule(s, s.params);
  return { if: [logicReqs(s.reqs), body, true] };
}

export function jsonLogicJs(specs: readonly Spec[]): Violations {
  const rules = specs.map(logicConstraint) as jsonLogic.RulesLogic[];
  return (input) => {
    let failed = 0;
    for (let i = 0; i < rules.length; i++) if (jsonLogic.apply(rules[i]!, input) !== true) failed++;
    return failed;
  };
}

export function jsonLogicEngineBuild(specs: readonly Spec[]): Violations {
  const engine = new LogicEngine();
  const fns = specs.map((s) => engine.build(logicConstraint(s)) as (data: unknown) => unknown);
  return (input) => {
    let failed = 0;
    for (let i = 0; i < fns.length; i++) if (fns[i]!(input) !== true) failed++;
    return failed;
  };
}

// ---- CASL: one inverted rule per branch; `can` is false when any matches ------------------

function mongoReqs(reqs: readonly Req[], negate = false): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const r of reqs) out[varPath(r)] = { [(r.op === 'In') !== negate ? '$in' : '$nin']: r.values };
  return out;
}

function mongoViolation(s: Spec, p: Params): Record<string, unknown> {
  switch (s.kind) {
    case 'K8sMemoryLimits': return { 'object.spec.containers': { $elemMatch: { 'resources.limits.memory': { $gt: limitBytes(p) } } } };
    case 'K8sAllowedRegistries': return { 'object.spec.containers': { $elemMatch: { registry: { $nin: p.registries } } } };
    case 'K8sRequiredLabels': return { $or: p.labels!.map((k) => ({ [`object.metadata.labels.${k}`]: { $exists: false } })) };
    default: return { 'object.spec.containers': { $elemMatch: { tag: { $in: p.tags } } } };
  }
}

export function casl(specs: readonly Spec[]): Violations {
  const rules: unknown[] = [{ action: 'admit', subject: 'Input' }];
  for (const s of specs) {
    if (!s.entry) rules.push({ action: 'admit', subject: 'Input', inverted: true, conditions: { ...mongoReqs(s.reqs), ...mongoViolation(s, s.params) } });
    else {
      rules.push({ action: 'admit', subject: 'Input', inverted: true, conditions: { ...mongoReqs(s.reqs), ...mongoReqs(s.entry.reqs), ...mongoViolation(s, s.entry.merged) } });
      rules.push({ action: 'admit', subject: 'Input', inverted: true, conditions: { ...mongoReqs(s.reqs), ...mongoReqs(s.entry.reqs, true), ...mongoViolation(s, s.params) } });
    }
  }
  const ability: MongoAbility = createMongoAbility(rules as never, { detectSubjectType: () => 'Input' });
  return (input) => (ability.can('admit', input as never) ? 0 : 1);
}

// ---- json-rules-engine: one rule per branch, event "violation" ---------------------------

function jreReqs(reqs: readonly Req[], negate = false): NestedCondition[] {
  return reqs.map((r) => ({ fact: 'input', path: `$.${varPath(r)}`, operator: (r.op === 'In') !== negate ? 'in' : 'notIn', value: r.values }));
}

function jreViolation(s: Spec, p: Params): NestedCondition {
  const containers = '$.object.spec.containers[*]';
  switch (s.kind) {
    case 'K8sMemoryLimits': return { fact: 'input', path: `${containers}.resources.limits.memory`, operator: 'someFact:greaterThan', value: limitBytes(p) };
    case 'K8sAllowedRegistries': return { fact: 'input', path: `${containers}.registry`, operator: 'someFact:notIn', value: p.registries! };
    case 'K8sRequiredLabels': return { fact: 'input', path: '$.object.metadata.labels', operator: 'lacksKeys', value: p.labels! };
    default: return { fact: 'input', path: `${containers}.tag`, operator: 'someFact:in', value: p.tags! };
  }
}

export function jsonRulesEngine(specs: readonly Spec[]): (input: ScaleInput) => Promise<number> {
  const engine = new Engine([], { allowUndefinedFacts: true });
  engine.addOperator('lacksKeys', (labels: unknown, keys: unknown) => (keys as string[]).some((k) => !(labels as Record<string, string> | undefined)?.[k]));
  const add = (conditions: NestedCondition[]) => engine.addRule({ conditions: { all: conditions }, event: { type: 'violation' } });
  for (const s of specs) {
    if (!s.entry) add([...jreReqs(s.reqs), jreViolation(s, s.params)]);
    else {
      add([...jreReqs(s.reqs), ...jreReqs(s.entry.reqs), jreViolation(s, s.entry.merged)]);
      add([...jreReqs(s.reqs), ...jreReqs(s.entry.reqs, true), jreViolation(s, s.params)]);
    }
  }
  return async (input) => (await engine.run({ input })).events.length;
}
