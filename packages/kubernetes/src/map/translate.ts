/**
 * MutatingAdmissionPolicies with their bindings, turned into core documents:
 * a policy becomes a template whose mutate rules are computed patches (its
 * mutations, constructions rewritten by construct.ts), each binding a policy
 * of kind `MutatingAdmissionPolicyBinding` matching the policy's
 * matchConstraints and the binding's matchResources, with parameters resolved
 * per request as for ValidatingAdmissionPolicy bindings.
 */
import { didYouMean, type MatchDialect, type PolicyDocument, type TranslatedUnit, type TranslationContext } from '@verdict/core';
import type { ParamDocuments } from '../vap/params.js';
import { MUTATING_BINDING_KIND } from '../vap/registry.js';
import { bindingMatch, bindingPath, checkMatch, isAdmissionKind, type Translated } from '../vap/translate.js';
import type { NamedExpression } from '../vap/types.js';
import { rewriteConstructions } from './construct.js';
import { MAP_JSON_PATCH } from './json-patch.js';
import { EXPRESSION_FIELD, readMutatingBinding, readMutatingPolicy } from './read.js';
import type { Mutation, MutatingBinding, MutatingPolicy } from './types.js';


/** The MutatingAdmissionPolicies and bindings of one policy set, read as the translator meets them. */
export class MutatingDocuments {
  readonly policies = new Map<string, MutatingPolicy>();
  readonly bindings: MutatingBinding[] = [];
  /** Names of policies with problems (reported): their bindings are not reported as naming a missing policy. */
  readonly broken = new Set<string>();
  constructor(private readonly dialect: MatchDialect, private readonly ctx: TranslationContext) {}

  /** Reads document `i` when it is a MutatingAdmissionPolicy or binding (true), reporting its problems. */
  read(doc: unknown, i: number, report: (path: string, message: string) => void): boolean {
    const { ctx, dialect } = this;
    if (isAdmissionKind(doc, 'MutatingAdmissionPolicy')) {
      const policy = readMutatingPolicy(doc, i, report);
      const metadata = doc['metadata'];
      const name = typeof metadata === 'object' && metadata !== null ? (metadata as Record<string, unknown>)['name'] : undefined;
      if (!policy) {
        if (typeof name === 'string') this.broken.add(name);
        return true;
      }
      if (this.policies.has(policy.name)) ctx.problem(i, '/metadata/name', `MutatingAdmissionPolicy "${policy.name}" is already defined by document ${this.policies.get(policy.name)!.document}`, 'DUPLICATE');
      else if (this.rewrite(policy)) this.policies.set(policy.name, policy);
      else this.broken.add(policy.name);
      checkMatch(dialect, policy.matchConstraints, { document: i, at: '/spec/matchConstraints' }, ctx);
      return true;
    }
    if (!isAdmissionKind(doc, 'MutatingAdmissionPolicyBinding')) return false;
    const binding = readMutatingBinding(doc, i, report);
    if (!binding) return true;
    if (this.bindings.some((b) => b.name === binding.name)) ctx.problem(i, '/metadata/name', `MutatingAdmissionPolicyBinding "${binding.name}" is defined twice`, 'DUPLICATE');
    else this.bindings.push(binding);
    if (binding.matchResources) checkMatch(dialect, binding.matchResources, { document: i, at: '/spec/matchResources' }, ctx);
    return true;
  }

  /** Rewrites the constructions of every expression in place; false (problems reported) when one cannot be. */
  private rewrite(policy: MutatingPolicy): boolean {
    let ok = true;
    const at = (path: string, source: string, root?: 'Object'): string => {
      const out = rewriteConstructions(source, root);
      if (out.error === undefined) return out.expression;
      this.ctx.problem(policy.document, path, `invalid CEL expression: ${out.error}`, 'INVALID_RULE');
      ok = false;
      return source;
    };
    policy.variables = policy.variables.map((v: NamedExpression, i) => ({ name: v.name, expression: at(`/spec/variables/${i}/expression`, v.expression) }));
    policy.mutations = rewriteMutations(policy.mutations, at);
    return ok;
  }
}

/**
 * Each mutation with its expression passed through `rewrite`, given the expression's path in the policy and, for an
 * ApplyConfiguration, the root its construction must be (`Object`). Shared with Kyverno's MutatingPolicy.
 */
export function rewriteMutations(mutations: readonly Mutation[], rewrite: (path: string, source: string, root?: 'Object') => string): Mutation[] {
  return mutations.map((m, i) => ({
    patchType: m.patchType,
    expression: rewrite(`/spec/mutations/${i}/${EXPRESSION_FIELD[m.patchType]}/expression`, m.expression, m.patchType === 'ApplyConfiguration' ? 'Object' : undefined),
  }));
}

function templateOf(policy: MutatingPolicy): PolicyDocument {
  return {
    apiVersion: 'verdict.dev/v1',
    kind: 'PolicyTemplate',
    metadata: { name: policy.name },
    spec: {
      kind: 'MutatingAdmissionPolicy',
      failurePolicy: policy.failurePolicy,
      reinvocationPolicy: policy.reinvocationPolicy,
      ...(policy.variables.length ? { variables: policy.variables } : {}),
      ...(policy.matchConditions.length ? { matchConditions: policy.matchConditions } : {}),
      mutate: policy.mutations.map((m, i) => ({ name: `mutations[${i}]`, expression: m.expression, patchType: m.patchType === 'JSONPatch' ? MAP_JSON_PATCH : m.patchType })),
    },
  };
}

/**
 * `/spec/mutate/<i>/expression` of a translated template is the expression of `/spec/mutations/<i>` in the policy
 * (a MutatingAdmissionPolicy or Kyverno's MutatingPolicy).
 */
export function policyPath(policy: { mutations: readonly Mutation[] }): (pointer: string) => string {
  return (pointer) => {
    const m = /^\/spec\/mutate\/(\d+)(\/expression)?/.exec(pointer);
    if (!m) return pointer;
    const mutation = policy.mutations[Number(m[1])];
    return m[2] && mutation ? `/spec/mutations/${m[1]}/${EXPRESSION_FIELD[mutation.patchType]}/expression` : `/spec/mutations/${m[1]}`;
  };
}

function bindingOf(binding: MutatingBinding, policy: MutatingPolicy): PolicyDocument {
  return {
    apiVersion: 'verdict.dev/v1',
    kind: MUTATING_BINDING_KIND,
    metadata: { name: binding.name },
    // Errors deny unless the policy's failurePolicy is Ignore; no parameter found under Allow: the binding does nothing.
    spec: { match: bindingMatch(binding, policy), enforcementAction: 'deny', onParameterSelectionNoMatch: 'allow' },
  };
}

/** The units of the MutatingAdmissionPolicies read (one template per binding, so that `params` can depend on it). */
export function translateMutating(read: MutatingDocuments, at: { params: ParamDocuments; ctx: TranslationContext; out: Translated }): TranslatedUnit[] {
  const { params, ctx, out } = at;
  const units: TranslatedUnit[] = [];
  for (const binding of read.bindings) {
    if (read.policies.has(binding.policyName) || read.broken.has(binding.policyName)) continue;
    const known = [...read.policies.keys()];
    ctx.problem(binding.document, '/spec/policyName', `no MutatingAdmissionPolicy "${binding.policyName}" in the policy set${didYouMean(binding.policyName, known)}${known.length ? ` (defined: ${known.join(', ')})` : ''}`, 'UNKNOWN_KIND');
  }
  for (const policy of read.policies.values()) {
    const own = read.bindings.filter((b) => b.policyName === policy.name);
    if (own.length === 0) {
      const document = templateOf(policy);
      out.templates.set(document, { kind: 'map', policy });
      units.push({ template: { document, origin: policy.document, path: policyPath(policy) }, policies: [] });
    }
    for (const binding of own) {
      const document = templateOf(policy);
      out.templates.set(document, { kind: 'map', policy, binding });
      const generated = bindingOf(binding, policy);
      out.bindings.set(generated, { binding, policy, documents: policy.paramKind ? params.of(policy.paramKind) : [] });
      out.registry.mutating.set(binding.name, { policy: policy.name, binding: binding.name });
      units.push({
        template: { document, origin: policy.document, path: policyPath(policy) },
        policies: [{ document: generated, origin: binding.document, path: bindingPath(binding, policy) }],
      });
    }
  }
  return units;
}
