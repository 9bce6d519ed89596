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
import { enforcementOf, readAuditAnnotations, readNamedExpressions, readValidations } from '../vap/read.js';
import { autogenVariants } from './autogen.js';
import { mutatingKindOf } from '../mpol/translate.js';
import { KYVERNO_POLICIES, KYVERNO_VERSIONS, readKyvernoPolicy } from './read.js';
import type { KyvernoPolicy, KyvernoPolicyKind } from './types.js';

type Doc = Readonly<Record<string, unknown>>;

/** Which evaluations a policy set is loaded for: `admission` (webhooks), `background` (audits), or `all` (Kyverno CLI tests). */
export type EvaluationMode = 'admission' | 'background' | 'all';

/** A compiled Kyverno policy (one variant), for the CEL profile and the answers. */
export interface KyvernoVariant {
  policy: KyvernoPolicy;
  /** `defaults` or `cronjobs` for an autogen variant. */
  autogen?: string;
  /** The core policy's kind (the Kyverno kind) and name. */
  kind: KyvernoPolicyKind;
  name: string;
  /** Its matchConstraints (an autogen variant's are generated). */
  matchConstraints: Readonly<Record<string, unknown>>;
}

const KINDS: readonly KyvernoPolicyKind[] = ['ValidatingPolicy', 'NamespacedValidatingPolicy'];

/** The Kyverno kind of a document, when it is one of Kyverno's CEL validating policies (any version). */
export function kyvernoKindOf(doc: unknown): KyvernoPolicyKind | undefined {
  if (!isObject(doc) || typeof doc['apiVersion'] !== 'string' || doc['apiVersion'].split('/')[0] !== KYVERNO_POLICIES) return undefined;
  return KINDS.find((k) => k === doc['kind']);
}

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

function matchOf(policy: KyvernoPolicy, constraints: Doc): Doc {
  // Kyverno's matcher compares resources exactly (no matchPolicy equivalence).
  const block = { ...constraints, matchPolicy: 'Exact' };
  return policy.namespace === undefined ? block : { all: [block, { fields: { path: 'namespace', values: [policy.namespace] } }] };
}

function applies(policy: KyvernoPolicy, mode: EvaluationMode): boolean {
  return mode === 'all' || (mode === 'admission' ? policy.admission : policy.background);
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
  const seen = new Map<string, number>();
  for (const i of claimed) {
    const doc = ctx.documents[i] as Doc;
    const kind = kyvernoKindOf(doc)!;
    const version = String(doc['apiVersion']).split('/')[1] ?? '';
    if (!KYVERNO_VERSIONS[kind].includes(version)) {
      ctx.problem(i, '/apiVersion', `Kyverno serves ${kind} as ${KYVERNO_VERSIONS[kind].map((v) => `${KYVERNO_POLICIES}/${v}`).join(', ')} (got "${String(doc['apiVersion'])}")`, 'SCHEMA');
      continue;
    }
    const policy = readKyvernoPolicy(doc, kind, i, (path, message) => ctx.problem(i, path, message));
    if (!policy) continue;
    const id = policy.namespace === undefined ? policy.name : `${policy.namespace}/${policy.name}`;
    const key = `${kind}/${id}`;
    if (seen.has(key)) {
      ctx.problem(i, '/metadata/name', `${kind} "${id}" is already defined by document ${seen.get(key)!}`, 'DUPLICATE');
      continue;
    }
    seen.set(key, i);
    const variants: Array<{ name: string; spec: Doc; autogen?: string }> = [
      { name: id, spec: policy.spec },
      ...autogenVariants(policy).map((v) => ({ name: `${id}/autogen-${v.config}`, spec: v.spec, autogen: v.config })),
    ];
    for (const v of variants) {
      const template = templateOf(v.name, kind, v.spec, policy);
      const variant: KyvernoVariant = { policy, kind, name: v.name, matchConstraints: v.spec['matchConstraints'] as Doc, ...(v.autogen ? { autogen: v.autogen } : {}) };
      // Autogen variants map their problems onto the policy as written (same structure; the match block is generated),
      // and repeat none that the policy itself has.
      const path = (pointer: string) => policyPath(pointer);
      const variantOf = v.autogen === undefined ? {} : { variant: true };
      if (!applies(policy, options.mode)) {
        // Not evaluated in this mode (evaluation.admission/background.enabled: false); its logic is still checked.
        options.found(variant, template, undefined);
        units.push({ template: { document: template, origin: i, path, ...variantOf }, policies: [] });
        continue;
      }
      const constraint: PolicyDocument = {
        apiVersion: 'verdict.dev/v1',
        kind,
        metadata: { name: v.name },
        spec: {
          match: matchOf(policy, v.spec['matchConstraints'] as Doc),
          enforcementAction: enforcementOf(policy.actions),
        },
      };
      options.found(variant, template, constraint);
      const inMatch = policy.namespace === undefined ? '/spec/match' : '/spec/match/all/0';
      units.push({
        template: { document: template, origin: i, path, ...variantOf },
        policies: [{
          document: constraint,
          origin: i,
          ...variantOf,
          path: (pointer) => (v.autogen === undefined && pointer.startsWith(inMatch) ? pointer.replace(inMatch, '/spec/matchConstraints') : '/spec/matchConstraints'),
        }],
      });
    }
  }
  return units;
}
