/**
 * Kyverno ValidatingPolicies and NamespacedValidatingPolicies as core
 * documents, a variation of the ValidatingAdmissionPolicy translation: the
 * policy is its own binding (its validationActions, no parameters), and each
 * autogen variant (Pod controllers) is one more policy with the rewritten
 * expressions. A NamespacedValidatingPolicy also matches only requests in its
 * namespace. Core kind: `ValidatingPolicy` or `NamespacedValidatingPolicy`;
 * core name: `<name>` (`<namespace>/<name>` when namespaced), with
 * `/autogen-<config>` appended for an autogen variant.
 */
import type { PolicyDocument, TranslatedUnit, TranslationContext } from '@verdict/core';
import { isObject } from '../read.js';
import type { Report } from '../vap/fields.js';
import { actionsOf, enforcementOf, readAuditAnnotations, readNamedExpressions, readValidations } from '../vap/read.js';
import { autogenVariants } from './autogen.js';
import { mutatingKindOf } from '../mpol/translate.js';
import { KYVERNO_POLICIES, KYVERNO_VERSIONS, readKyvernoPolicy } from './read.js';
import { applies, eachKyvernoPolicy, kyvernoKindIn, variantUnit, type CompiledVariant, type EvaluationMode } from './units.js';
import type { KyvernoPolicy, KyvernoPolicyKind } from './types.js';

type Doc = Readonly<Record<string, unknown>>;

export type { EvaluationMode } from './units.js';

/** A compiled Kyverno policy (one variant), for the CEL profile and the answers. */
export type KyvernoVariant = CompiledVariant<KyvernoPolicy, KyvernoPolicyKind>;

/** The Kyverno kind of a document, when it is one of Kyverno's CEL validating policies (any version). */
export const kyvernoKindOf = kyvernoKindIn<KyvernoPolicyKind>(['ValidatingPolicy', 'NamespacedValidatingPolicy']);

/**
 * Why a Kyverno document verdict does not load is refused (other kinds of `policies.kyverno.io`, and `kyverno.io`'s
 * ClusterPolicy, Policy, PolicyException…), or `undefined` for any other document.
 */
export function kyvernoUnsupported(doc: unknown): string | undefined {
  if (!isObject(doc) || typeof doc['apiVersion'] !== 'string' || kyvernoKindOf(doc) || mutatingKindOf(doc)) return undefined;
  const group = doc['apiVersion'].split('/')[0];
  const kind = typeof doc['kind'] === 'string' ? doc['kind'] : '(no kind)';
  if (group === KYVERNO_POLICIES) return `Kyverno's ${kind} is not supported: verdict loads ValidatingPolicy, NamespacedValidatingPolicy, MutatingPolicy and NamespacedMutatingPolicy of ${KYVERNO_POLICIES} (docs/kyverno.md#what-is-refused)`;
  if (group === 'kyverno.io') return `Kyverno's ${kind} (kyverno.io) is not supported: verdict loads Kyverno's CEL policies (${KYVERNO_POLICIES}: ValidatingPolicy, MutatingPolicy and their namespaced kinds); write the rules as one of them or as a verdict Policy (docs/kyverno.md#what-is-refused)`;
  return undefined;
}

/** `validations[i]` → `/spec/validations/i` of the policy. */
const policyPath = (pointer: string) => pointer.replace(/^\/spec\/validate\//, '/spec/validations/');

function templateOf(name: string, kind: string, spec: Doc, policy: KyvernoPolicy): PolicyDocument {
  // Variants re-read their rewritten spec: it passed the same checks before it was rewritten.
  const quiet: Report = () => {};
  const variables = spec === policy.spec ? policy.variables : readNamedExpressions(spec, 'variables', quiet);
  const matchConditions = spec === policy.spec ? policy.matchConditions : readNamedExpressions(spec, 'matchConditions', quiet);
  const validations = spec === policy.spec ? policy.validations : readValidations(spec, quiet, false);
  const auditAnnotations = spec === policy.spec ? policy.auditAnnotations : readAuditAnnotations(spec, policy.name, quiet);
  return {
    apiVersion: 'verdict.dev/v1',
    kind: 'PolicyTemplate',
    metadata: { name },
    spec: {
      kind,
      // Kyverno applies failurePolicy to matchConditions only (the CEL profile); validation errors are always errors.
      failurePolicy: 'Fail',
      ...(variables.length ? { variables } : {}),
      ...(matchConditions.length ? { matchConditions } : {}),
      validate: validations.map((v, i) => ({ name: `validations[${i}]`, ...v })),
      ...(auditAnnotations.length ? { auditAnnotations } : {}),
    },
  };
}

/**
 * Reads the claimed Kyverno documents and returns their units; `found` gets
 * each compiled variant by its template and policy documents.
 */
export function translateKyverno(
  claimed: readonly number[],
  ctx: TranslationContext,
  options: { mode: EvaluationMode; found: (variant: KyvernoVariant, template: object, policy: object | undefined) => void },
): TranslatedUnit[] {
  const units: TranslatedUnit[] = [];
  const kind = { of: (doc: Doc) => kyvernoKindOf(doc)!, versions: KYVERNO_VERSIONS, read: (doc: Doc, k: KyvernoPolicyKind, i: number) => readKyvernoPolicy(doc, k, i, (path, message) => ctx.problem(i, path, message)) };
  eachKyvernoPolicy(claimed, ctx, kind, (policy, id, i) => {
    const variants: Array<{ name: string; spec: Doc; autogen?: string }> = [
      { name: id, spec: policy.spec },
      ...autogenVariants(policy).map((v) => ({ name: `${id}/autogen-${v.config}`, spec: v.spec, autogen: v.config })),
    ];
    for (const v of variants) {
      const template = templateOf(v.name, policy.kind, v.spec, policy);
      const matchConstraints = v.spec['matchConstraints'] as Doc;
      const variant: KyvernoVariant = { policy, kind: policy.kind, name: v.name, matchConstraints, ...(v.autogen ? { autogen: v.autogen } : {}) };
      // Autogen variants map their problems onto the policy as written (same structure; the match block is generated),
      // and repeat none that the policy itself has.
      const { unit, policy: constraint } = variantUnit({
        policy, kind: policy.kind, name: v.name, template, matchConstraints, enforcementAction: enforcementOf(policy.actions), actions: actionsOf(policy.actions),
        origin: i, path: policyPath, evaluated: applies(policy, options.mode), ...(v.autogen ? { autogen: v.autogen } : {}),
      });
      options.found(variant, template, constraint);
      units.push(unit);
    }
  });
  return units;
}
