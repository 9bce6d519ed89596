/**
 * Kyverno MutatingPolicies and NamespacedMutatingPolicies as core documents,
 * a variation of the MutatingAdmissionPolicy translation: the policy is its
 * own binding (no parameters), its mutations are computed patches (JSONPatch,
 * or ApplyConfiguration merged as the API server merges it, or as server-side
 * apply does with `evaluation.useServerSideApply`), and each autogen variant
 * (Pod controllers) is one more policy. A NamespacedMutatingPolicy matches only
 * requests in its namespace. Core kind: `MutatingPolicy` or
 * `NamespacedMutatingPolicy`; core name: `<name>` (`<namespace>/<name>` when
 * namespaced), with `/autogen-<config>` appended for an autogen variant.
 */
import type { PolicyDocument, TranslatedUnit, TranslationContext } from '@verdict/core';
import { applies, eachKyvernoPolicy, kyvernoKindIn, variantUnit, type CompiledVariant, type EvaluationMode } from '../kyverno/units.js';
import { rewriteConstructions, rewriteHas } from '../map/construct.js';
import { policyPath, rewriteMutations } from '../map/translate.js';
import type { Mutation } from '../map/types.js';
import type { NamedExpression } from '../vap/types.js';
import { mutatingAutogenVariants } from './autogen.js';
import { AUTOGEN_ERROR } from './profile.js';
import { MUTATING_VERSIONS, readKyvernoMutatingPolicy } from './read.js';
import type { KyvernoMutatingKind, KyvernoMutatingPolicy } from './types.js';

type Doc = Readonly<Record<string, unknown>>;

/** The patch type of an apply configuration under `evaluation.useServerSideApply` (registered by the loader). */
export const SERVER_SIDE_APPLY = 'ServerSideApply';

/** A compiled MutatingPolicy (one variant), for the answers and the results. */
export type MutatingVariant = CompiledVariant<KyvernoMutatingPolicy, KyvernoMutatingKind>;

/** The Kyverno kind of a document, when it is one of Kyverno's CEL mutating policies (any version). */
export const mutatingKindOf = kyvernoKindIn<KyvernoMutatingKind>(['MutatingPolicy', 'NamespacedMutatingPolicy']);

interface Expressions {
  variables: NamedExpression[];
  matchConditions: NamedExpression[];
  mutations: Mutation[];
}

/**
 * Rewrites the constructions (`Object{}`, `JSONPatch{}`) of every expression. A problem is reported for the
 * policy as written (`report`); an autogen variant's mismatch (no `report`) becomes an evaluation error, as in Kyverno.
 */
function rewrite(e: Expressions, report?: (path: string, message: string) => void): Expressions | undefined {
  let ok = true;
  const at = (path: string, source: string, root?: 'Object'): string => {
    const out = rewriteConstructions(source, root);
    if (out.error === undefined) return rewriteHas(out.expression);
    if (!report) return `${AUTOGEN_ERROR}(${JSON.stringify(out.error)})`;
    report(path, `invalid CEL expression: ${out.error}`);
    ok = false;
    return source;
  };
  const named = (list: NamedExpression[], key: string) => list.map((v, i) => ({ name: v.name, expression: at(`/spec/${key}/${i}/expression`, v.expression) }));
  const out: Expressions = {
    variables: named(e.variables, 'variables'),
    matchConditions: named(e.matchConditions, 'matchConditions'),
    mutations: rewriteMutations(e.mutations, at),
  };
  return ok ? out : undefined;
}

function templateOf(name: string, policy: KyvernoMutatingPolicy, e: Expressions): PolicyDocument {
  const apply = policy.serverSideApply ? SERVER_SIDE_APPLY : 'ApplyConfiguration';
  return {
    apiVersion: 'verdict.dev/v1',
    kind: 'PolicyTemplate',
    metadata: { name },
    spec: {
      kind: policy.kind,
      failurePolicy: policy.failurePolicy,
      reinvocationPolicy: policy.reinvocationPolicy,
      // Kyverno's engine stops at a policy's first failing mutation and keeps none of its patches.
      mutationUnit: 'policy',
      ...(e.variables.length ? { variables: e.variables } : {}),
      ...(e.matchConditions.length ? { matchConditions: e.matchConditions } : {}),
      mutate: e.mutations.map((m, i) => ({ name: `mutations[${i}]`, expression: m.expression, patchType: m.patchType === 'JSONPatch' ? 'JSONPatch' : apply })),
    },
  };
}

/** Reads the claimed MutatingPolicies and returns their units; `found` gets each compiled variant by its template. */
export function translateKyvernoMutating(
  claimed: readonly number[],
  ctx: TranslationContext,
  options: { mode: EvaluationMode; found: (variant: MutatingVariant, template: object) => void },
): TranslatedUnit[] {
  const units: TranslatedUnit[] = [];
  const kind = { of: (doc: Doc) => mutatingKindOf(doc)!, versions: MUTATING_VERSIONS, read: (doc: Doc, k: KyvernoMutatingKind, i: number) => readKyvernoMutatingPolicy(doc, k, i, (path, message) => ctx.problem(i, path, message)) };
  eachKyvernoPolicy(claimed, ctx, kind, (policy, id, i) => {
    const expressions = rewrite(policy, (path, message) => ctx.problem(i, path, message, 'INVALID_RULE'));
    if (!expressions) return;
    const variants = [
      { name: id, matchConstraints: policy.matchConstraints, expressions },
      ...mutatingAutogenVariants(policy).map((v) => ({ name: `${id}/autogen-${v.config}`, matchConstraints: v.matchConstraints, expressions: rewrite({ ...v, variables: policy.variables })!, autogen: v.config })),
    ];
    for (const v of variants) {
      const template = templateOf(v.name, policy, v.expressions);
      const autogen = 'autogen' in v ? { autogen: v.autogen } : {};
      options.found({ policy, kind: policy.kind, name: v.name, matchConstraints: v.matchConstraints, ...autogen }, template);
      // Errors deny unless the policy's failurePolicy is Ignore (the template's).
      units.push(variantUnit({
        policy, kind: policy.kind, name: v.name, template, matchConstraints: v.matchConstraints, enforcementAction: 'deny',
        origin: i, path: policyPath(policy), evaluated: applies(policy, options.mode), ...autogen,
      }).unit);
    }
  });
  return units;
}
