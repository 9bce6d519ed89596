/**
 * What every Kyverno CEL policy kind shares on its way to core documents: the
 * served-version and duplicate checks of the documents, which evaluations a
 * policy takes part in, and the unit of one variant (its template, and the
 * policy matching Kyverno's way: resources exactly, a namespaced kind in its
 * own namespace only).
 */
import type { PolicyDocument, TranslatedUnit, TranslationContext } from '@verdict/core';
import { isObject } from '../read.js';
import { KYVERNO_POLICIES } from './read.js';

type Doc = Readonly<Record<string, unknown>>;

/** Which evaluations a policy set is loaded for: `admission` (webhooks), `background` (audits), or `all` (Kyverno CLI tests). */
export type EvaluationMode = 'admission' | 'background' | 'all';

/** A compiled Kyverno policy of kind `K` (one variant), for the answers and the results. */
export interface CompiledVariant<P, K extends string> {
  policy: P;
  /** `defaults` or `cronjobs` for an autogen variant. */
  autogen?: string;
  /** The core policy's kind (the Kyverno kind) and name. */
  kind: K;
  name: string;
  /** Its matchConstraints (an autogen variant's are generated). */
  matchConstraints: Readonly<Record<string, unknown>>;
}

/** The Kyverno kind of a document when it is one of `kinds` of `policies.kyverno.io` (any version). */
export function kyvernoKindIn<K extends string>(kinds: readonly K[]): (doc: unknown) => K | undefined {
  return (doc) => {
    if (!isObject(doc) || typeof doc['apiVersion'] !== 'string' || doc['apiVersion'].split('/')[0] !== KYVERNO_POLICIES) return undefined;
    return kinds.find((k) => k === doc['kind']);
  };
}

/** What the shared steps read of a policy. */
export interface KyvernoPolicyCommon {
  name: string;
  namespace?: string;
  admission: boolean;
  background: boolean;
}

/**
 * Reads each claimed document of a Kyverno kind with `read` and hands the policies that load to `visit` with their
 * id (`<namespace>/<name>` when namespaced); a version the kind is not served in, or a second policy of the same kind
 * and id, is a problem instead.
 */
export function eachKyvernoPolicy<K extends string, P extends KyvernoPolicyCommon>(
  claimed: readonly number[],
  ctx: TranslationContext,
  kind: { of: (doc: Doc) => K; versions: Readonly<Record<K, readonly string[]>>; read: (doc: Doc, kind: K, i: number) => P | undefined },
  visit: (policy: P, id: string, i: number) => void,
): void {
  const seen = new Map<string, number>();
  for (const i of claimed) {
    const doc = ctx.documents[i] as Doc;
    const k = kind.of(doc);
    const versions = kind.versions[k];
    if (!versions.includes(String(doc['apiVersion']).split('/')[1] ?? '')) {
      ctx.problem(i, '/apiVersion', `Kyverno serves ${k} as ${versions.map((v) => `${KYVERNO_POLICIES}/${v}`).join(', ')} (got "${String(doc['apiVersion'])}")`, 'SCHEMA');
      continue;
    }
    const policy = kind.read(doc, k, i);
    if (!policy) continue;
    const id = policy.namespace === undefined ? policy.name : `${policy.namespace}/${policy.name}`;
    const key = `${k}/${id}`;
    if (seen.has(key)) {
      ctx.problem(i, '/metadata/name', `${k} "${id}" is already defined by document ${seen.get(key)!}`, 'DUPLICATE');
      continue;
    }
    seen.set(key, i);
    visit(policy, id, i);
  }
}

/** Whether a policy takes part in evaluations of `mode` (its `evaluation.admission/background.enabled`). */
export function applies(policy: KyvernoPolicyCommon, mode: EvaluationMode): boolean {
  return mode === 'all' || (mode === 'admission' ? policy.admission : policy.background);
}

/** One variant of a Kyverno policy as a unit. */
export interface VariantUnit {
  policy: KyvernoPolicyCommon;
  kind: string;
  /** The core name: the policy's id, `/autogen-<config>` appended for an autogen variant. */
  name: string;
  template: PolicyDocument;
  matchConstraints: Doc;
  enforcementAction: string;
  /** Every action the policy applies (its validationActions), for explained traces. */
  actions?: ReadonlyArray<'deny' | 'warn' | 'audit'>;
  /** Document index of the policy. */
  origin: number;
  /** Maps template pointers to the policy as written. */
  path: (pointer: string) => string;
  autogen?: string;
  /** false: not evaluated in this mode; its logic is still checked. */
  evaluated: boolean;
}

/** The unit of a variant: its template, and (when evaluated) the policy matching its matchConstraints as Kyverno matches. */
export function variantUnit(v: VariantUnit): { unit: TranslatedUnit; policy: PolicyDocument | undefined } {
  const variant = v.autogen === undefined ? {} : { variant: true };
  const template = { document: v.template, origin: v.origin, path: v.path, ...variant };
  if (!v.evaluated) return { unit: { template, policies: [] }, policy: undefined };
  // Kyverno's matcher compares resources exactly (no matchPolicy equivalence).
  const block = { ...v.matchConstraints, matchPolicy: 'Exact' };
  const namespace = v.policy.namespace;
  const constraint: PolicyDocument = {
    apiVersion: 'verdict.dev/v1',
    kind: v.kind,
    metadata: { name: v.name },
    spec: {
      match: namespace === undefined ? block : { all: [block, { fields: { path: 'namespace', values: [namespace] } }] },
      enforcementAction: v.enforcementAction,
    },
  };
  const inMatch = namespace === undefined ? '/spec/match' : '/spec/match/all/0';
  return {
    policy: constraint,
    unit: {
      template,
      policies: [{
        document: constraint,
        origin: v.origin,
        ...variant,
        ...(v.actions ? { actions: v.actions } : {}),
        // An autogen variant's match block is generated: its problems are the policy's matchConstraints'.
        // The document itself ('') is the policy (traces name it).
        path: (pointer) => (pointer === '' ? '' : v.autogen === undefined && pointer.startsWith(inMatch) ? pointer.replace(inMatch, '/spec/matchConstraints') : '/spec/matchConstraints'),
      }],
    },
  };
}
