/**
 * kinitiras' policies as core documents. Each override rule becomes a
 * policy whose mutate rules are the rule's overriders in kinitiras' order
 * (utils/overridemanager `applyPolicyOverriders`: the rendered template or
 * the template, then `cue`, then `origin`, and `plaintext` only when there is
 * no `origin`); each ClusterValidatePolicy a policy with one validate rule per
 * validate rule. A policy's match is the rule's targetOperations; its
 * resourceSelectors are parameterSelection entries (any one matching selects
 * the policy, none selects everything), so a trace names the selector that
 * matched. Orders follow kinitiras: ClusterOverridePolicies, then
 * OverridePolicies, each by name.
 */
import type { DocumentTranslator, PolicyDocument, TranslatedUnit, TranslationContext } from '@verdict/core';
import { kinitirasKindOf, kinitirasUnknown, readKinitirasPolicy } from './read.js';
import { KINITIRAS_PATCH_TYPE, KinitirasRuntime, type OverrideStep } from './runtime.js';
import type { KinitirasPolicy } from './types.js';

type Json = Record<string, unknown>;

const qualified = (p: KinitirasPolicy) => (p.namespace ? `${p.namespace}/${p.name}` : p.name);

/** kinitiras' order: cluster policies before namespaced ones, each by name (document order among equal names). */
function ranked(policies: readonly KinitirasPolicy[]): KinitirasPolicy[] {
  const group = (p: KinitirasPolicy) => (p.kind === 'ClusterOverridePolicy' ? 0 : p.kind === 'OverridePolicy' ? 1 : 2);
  return [...policies].sort((a, b) => group(a) - group(b) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The steps of one override rule, in the order kinitiras applies them. */
function stepsOf(rule: KinitirasPolicy['overrideRules'][number]): Array<OverrideStep['kind']> {
  const o = rule.overriders;
  const steps: Array<OverrideStep['kind']> = [];
  // A rendered template runs only beside its template (kinitiras checks both); a template alone is verdict's own rules.
  if (o.template && o.renderedCue !== '') steps.push('renderedCue');
  else if (o.template) steps.push('template');
  if (o.cue !== '') steps.push('cue');
  if (o.origin) steps.push('origin');
  else if (o.plaintext.length > 0) steps.push('plaintext');
  return steps;
}

function entries(p: KinitirasPolicy, phase: 'mutate' | 'validate'): Json[] {
  return p.selectors.map((s, j) => {
    const raw: Json = { apiVersion: s.apiVersion, kind: s.kind, phase };
    if (s.namespace) raw['namespace'] = s.namespace;
    if (s.name) raw['name'] = s.name;
    if (s.labelSelector) raw['labelSelector'] = s.labelSelector;
    if (s.fieldSelector) raw['fieldSelector'] = s.fieldSelector;
    return { name: `resourceSelectors[${j}]`, match: { kinitirasSelector: raw }, parameters: {} };
  });
}

/** Maps pointers of a generated policy to the kinitiras document. */
function policyPath(rule: string): (pointer: string) => string {
  return (pointer) => {
    const entry = /^\/spec\/parameterSelection\/(\d+)(?:\/match\/kinitirasSelector)?(.*)$/.exec(pointer);
    if (entry) return `/spec/resourceSelectors/${entry[1]}${entry[2]}`;
    return pointer.startsWith('/spec/match') ? `${rule}/targetOperations` : rule;
  };
}

/** Maps pointers of an override rule's template (`/spec/mutate/<j>`: its j-th step) to the rule's overrider (`renderedCue` is the template's CUE). */
function overriderPath(at: string, steps: ReadonlyArray<OverrideStep['kind']>): (pointer: string) => string {
  return (pointer) => {
    const step = /^\/spec\/mutate\/(\d+)/.exec(pointer);
    const kind = step ? steps[Number(step[1])] : undefined;
    return kind === undefined ? `${at}/overriders` : `${at}/overriders/${kind === 'renderedCue' ? 'template' : kind}`;
  };
}

/** The translator of one load, filling `runtime` with the rules it translates. */
export function kinitirasTranslator(runtime: KinitirasRuntime): DocumentTranslator {
  return {
    name: 'kinitiras',
    claim: (documents) => documents.flatMap((doc, i) => (kinitirasKindOf(doc) || kinitirasUnknown(doc) ? [i] : [])),
    translate(claimed: readonly number[], ctx: TranslationContext): TranslatedUnit[] {
      const read: KinitirasPolicy[] = [];
      const seen = new Map<string, number>();
      for (const i of claimed) {
        const doc = ctx.documents[i] as Json;
        const unknown = kinitirasUnknown(doc);
        if (unknown) {
          ctx.problem(i, '', unknown, 'UNSUPPORTED');
          continue;
        }
        const policy = readKinitirasPolicy(doc, i, (path, message) => ctx.problem(i, path, message));
        if (!policy) continue;
        const key = `${policy.kind}/${qualified(policy)}`;
        if (seen.has(key)) {
          ctx.problem(i, '/metadata/name', `${policy.kind} "${qualified(policy)}" is already defined by document ${seen.get(key)!}`, 'DUPLICATE');
          continue;
        }
        seen.set(key, i);
        read.push(policy);
      }
      const units: TranslatedUnit[] = [];
      let order = 0;
      for (const policy of ranked(read)) {
        runtime.policies.push(policy);
        const validate = policy.kind === 'ClusterValidatePolicy';
        const base = { apiVersion: 'verdict.dev/v1', kind: policy.kind };
        if (validate) {
          const name = qualified(policy);
          const validateRules = policy.validateRules.map((rule, i) => {
            const key = `${policy.kind}/${name}/${i}`;
            runtime.addValidation(key, { policy, rule });
            return { name: `validateRules[${i}]`, expression: `kinitiras.valid(${JSON.stringify(key)})`, messageExpression: `kinitiras.reason(${JSON.stringify(key)})` };
          });
          const template: PolicyDocument = { ...base, kind: 'PolicyTemplate', metadata: { name }, spec: { kind: policy.kind, validate: validateRules } };
          runtime.templates.add(template);
          const generated: PolicyDocument = { ...base, metadata: { name }, spec: { order, match: { kinitiras: { phase: 'validate' } }, parameterSelection: entries(policy, 'validate'), onParameterSelectionNoMatch: 'allow' } };
          units.push({
            template: { document: template, origin: policy.document, path: (p) => p.replace(/^\/spec\/validate\/(\d+).*$/, '/spec/validateRules/$1') },
            policies: [{ document: generated, origin: policy.document, path: policyPath('/spec/validateRules') }],
          });
          order++;
          continue;
        }
        policy.overrideRules.forEach((rule, i) => {
          const name = policy.overrideRules.length > 1 ? `${qualified(policy)}[${i}]` : qualified(policy);
          const mutate = stepsOf(rule).map((kind) => {
            const key = `${policy.kind}/${qualified(policy)}/${i}/${kind}`;
            runtime.addOverride(key, { kind, policy, rule });
            return { name: `overrideRules[${i}].${kind}`, expression: `kinitiras.step(${JSON.stringify(key)})`, patchType: KINITIRAS_PATCH_TYPE };
          });
          const template: PolicyDocument = { ...base, kind: 'PolicyTemplate', metadata: { name }, spec: { kind: policy.kind, mutate } };
          runtime.templates.add(template);
          const match = { kinitiras: { phase: 'mutate', operations: rule.operations, namespaced: policy.kind === 'OverridePolicy' } };
          const generated: PolicyDocument = { ...base, metadata: { name }, spec: { order: order++, match, parameterSelection: entries(policy, 'mutate'), onParameterSelectionNoMatch: 'allow' } };
          const at = `/spec/overrideRules/${i}`;
          units.push({
            template: { document: template, origin: policy.document, path: overriderPath(at, stepsOf(rule)) },
            policies: [{ document: generated, origin: policy.document, path: policyPath(at) }],
          });
        });
      }
      return units;
    },
  };
}

export { KinitirasRuntime };
