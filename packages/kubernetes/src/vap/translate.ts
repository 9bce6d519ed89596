/**
 * The Kubernetes document translator: ValidatingAdmissionPolicies with their
 * bindings and parameter objects, and Gatekeeper ConstraintTemplates with a
 * CEL block, turned into core documents. A policy becomes a template whose
 * validations are CEL; each of its bindings becomes a policy of kind
 * `ValidatingAdmissionPolicyBinding` matching the policy's matchConstraints
 * and the binding's matchResources, with parameters resolved per request.
 */
import {
  didYouMean, validateLabelSelector, type DialectContext, type DocumentTranslator, type MatchDialect, type PolicyDocument, type TranslatedUnit, type TranslationContext,
} from '@verdict/core';
import { celCodeIndex, GATEKEEPER_VARIABLES, isConstraintTemplate, readCelTemplate, type CelConstraintTemplate } from '../gatekeeper-cel.js';
import { isObject, metadataOf, str } from '../read.js';
import type { KubernetesObject } from '../types.js';
import { ParamDocuments } from './params.js';
import { actionsOf, ADMISSION_REGISTRATION, ADMISSION_REGISTRATION_VERSIONS, enforcementOf, readAdmissionPolicy, readPolicyBinding } from './read.js';
import { BINDING_KIND, TranslationRegistry } from './registry.js';
import type { AdmissionPolicy, BindingCommon, PolicyBinding, PolicyCommon } from './types.js';
import { MutatingDocuments, translateMutating } from '../map/translate.js';
import { kyvernoKindOf, kyvernoUnsupported, translateKyverno, type EvaluationMode, type KyvernoVariant } from '../kyverno/translate.js';
import { mutatingKindOf, translateKyvernoMutating, type MutatingVariant } from '../mpol/translate.js';

type Doc = Readonly<Record<string, unknown>>;

/** Kinds of `admissionregistration.k8s.io` the translator reads. */
const ADMISSION_KINDS = ['ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding', 'MutatingAdmissionPolicy', 'MutatingAdmissionPolicyBinding'];

/** What the translation produced, for the CEL hooks and the answers. */
export interface Translated {
  registry: TranslationRegistry;
  /** Per generated template document: the policy or ConstraintTemplate it came from. */
  templates: WeakMap<object, { kind: 'vap' | 'map'; policy: PolicyCommon; binding?: BindingCommon } | { kind: 'gatekeeper'; template: CelConstraintTemplate }>;
  /** Per generated binding document: the binding, its policy and the parameter objects of the set. */
  bindings: WeakMap<object, { binding: BindingCommon; policy: PolicyCommon; documents: readonly KubernetesObject[] }>;
  /** Per generated template document: the Kyverno policy (variant) it came from. */
  kyverno: WeakMap<object, KyvernoVariant>;
  /** Per generated template document: the Kyverno MutatingPolicy (variant) it came from. */
  kyvernoMutating: WeakMap<object, MutatingVariant>;
}

/** Whether `doc` is a document of `kind` in admissionregistration.k8s.io (v1, v1beta1 or v1alpha1). */
export function isAdmissionKind(doc: unknown, kind: string): doc is Doc {
  if (!isObject(doc) || doc['kind'] !== kind || typeof doc['apiVersion'] !== 'string') return false;
  const [group, version] = doc['apiVersion'].split('/');
  return group === ADMISSION_REGISTRATION && ADMISSION_REGISTRATION_VERSIONS.includes(version ?? '');
}

/**
 * Why a document of an admissionregistration.k8s.io kind under another apiVersion (`admission.k8s.io/v1`,
 * `admissionregistration.k8s.io/v2`) is not one, or undefined: one problem naming the kind's apiVersions,
 * instead of the problems of reading it as a verdict document.
 */
function wrongAdmissionVersion(doc: unknown): string | undefined {
  if (!isObject(doc) || typeof doc['kind'] !== 'string' || !ADMISSION_KINDS.includes(doc['kind'])) return undefined;
  if (isAdmissionKind(doc, doc['kind'])) return undefined;
  const versions = ADMISSION_REGISTRATION_VERSIONS.map((v) => `${ADMISSION_REGISTRATION}/${v}`).join(', ');
  return `${doc['kind']} is a Kubernetes kind of ${versions}, but this document has apiVersion ${JSON.stringify(doc['apiVersion'] ?? null)}; set apiVersion: ${ADMISSION_REGISTRATION}/v1`;
}

/** `paramKind` keys of every ValidatingAdmissionPolicy in the list (read leniently; checked when translated). */
function paramKinds(documents: readonly unknown[]): Set<string> {
  const out = new Set<string>();
  for (const doc of documents) {
    if (!(isAdmissionKind(doc, 'ValidatingAdmissionPolicy') || isAdmissionKind(doc, 'MutatingAdmissionPolicy')) || !isObject(doc['spec'])) continue;
    const kind = doc['spec']['paramKind'];
    if (isObject(kind) && typeof kind['apiVersion'] === 'string' && typeof kind['kind'] === 'string') out.add(ParamDocuments.key({ apiVersion: kind['apiVersion'], kind: kind['kind'] }));
  }
  return out;
}

/** Checks a match block at `at` of document `document` with the Kubernetes dialect, as core will when it compiles the bindings. */
export function checkMatch(dialect: MatchDialect, block: Doc, place: { document: number; at: string }, ctx: TranslationContext): void {
  const { document, at } = place;
  const context: DialectContext = {
    where: at,
    problem: (path, message) => ctx.problem(document, `${at}${path}`, message, 'INVALID_MATCH'),
    labelSelector: (value, path) => {
      const issues = validateLabelSelector(value);
      for (const issue of issues) ctx.problem(document, `${at}${path}${issue.path}`, issue.message, 'INVALID_SELECTOR');
      return issues.length === 0 ? (value as string) : undefined;
    },
  };
  try {
    dialect.compile(asMatchResources(block), context);
  } catch (error) {
    ctx.problem(document, at, (error as Error).message, 'INVALID_MATCH');
  }
}

/** A MatchResources block for the Kubernetes dialect: `matchPolicy` set (its API default) so the block reads as MatchResources. */
function asMatchResources(block: Doc): Doc {
  return block['matchPolicy'] === undefined ? { ...block, matchPolicy: 'Equivalent' } : block;
}

function templateOf(policy: AdmissionPolicy): PolicyDocument {
  return {
    apiVersion: 'verdict.dev/v1',
    kind: 'PolicyTemplate',
    metadata: { name: policy.name },
    spec: {
      kind: 'ValidatingAdmissionPolicy',
      failurePolicy: policy.failurePolicy,
      ...(policy.variables.length ? { variables: policy.variables } : {}),
      ...(policy.matchConditions.length ? { matchConditions: policy.matchConditions } : {}),
      validate: policy.validations.map((v, i) => ({ name: `validations[${i}]`, ...v })),
      ...(policy.auditAnnotations.length ? { auditAnnotations: policy.auditAnnotations } : {}),
    },
  };
}

/** `/spec/validate/<i>/...` of a translated template is `/spec/validations/<i>/...` of the policy. */
const policyPath = (pointer: string) => pointer.replace(/^\/spec\/validate\//, '/spec/validations/');

/** The match of a binding's generated policy: the policy's matchConstraints, and the binding's matchResources when it has some. */
export function bindingMatch(binding: BindingCommon, policy: PolicyCommon): Doc {
  return binding.matchResources
    ? { all: [asMatchResources(policy.matchConstraints), asMatchResources(binding.matchResources)] }
    : asMatchResources(policy.matchConstraints);
}

/** Maps pointers of a binding's generated policy to the policy's matchConstraints or the binding's matchResources. */
export function bindingPath(binding: BindingCommon, policy: PolicyCommon): (pointer: string) => string | { document: number; path: string } {
  const inPolicy = binding.matchResources ? '/spec/match/all/0' : '/spec/match';
  return (pointer: string) => {
    if (pointer.startsWith(inPolicy)) return { document: policy.document, path: pointer.replace(inPolicy, '/spec/matchConstraints') };
    if (binding.matchResources && pointer.startsWith('/spec/match/all/1')) return pointer.replace('/spec/match/all/1', '/spec/matchResources');
    return '';
  };
}

function bindingOf(binding: PolicyBinding, policy: AdmissionPolicy): PolicyDocument {
  const match = bindingMatch(binding, policy);
  return {
    apiVersion: 'verdict.dev/v1',
    kind: BINDING_KIND,
    metadata: { name: binding.name },
    spec: {
      match,
      enforcementAction: enforcementOf(binding.validationActions),
      // No parameter object found with parameterNotFoundAction Allow: the binding does nothing.
      onParameterSelectionNoMatch: 'allow',
    },
  };
}

function gatekeeperTemplateOf(t: CelConstraintTemplate): PolicyDocument {
  return {
    apiVersion: 'verdict.dev/v1',
    kind: 'PolicyTemplate',
    metadata: { name: t.name },
    spec: {
      kind: t.kind,
      ...(t.parametersSchema ? { parametersSchema: t.parametersSchema } : {}),
      failurePolicy: t.failurePolicy,
      variables: [...GATEKEEPER_VARIABLES, ...t.variables],
      ...(t.matchConditions.length ? { matchConditions: t.matchConditions } : {}),
      validate: t.validations.map((v, i) => ({ name: `validations[${i}]`, ...v })),
    },
  };
}

function gatekeeperPath(t: CelConstraintTemplate): (pointer: string) => string {
  const skip = GATEKEEPER_VARIABLES.length;
  return (pointer) => {
    if (pointer.startsWith('/spec/parametersSchema')) return pointer.replace('/spec/parametersSchema', '/spec/crd/spec/validation/openAPIV3Schema');
    if (pointer.startsWith('/spec/validate/')) return pointer.replace('/spec/validate/', `${t.source}/validations/`);
    if (pointer.startsWith('/spec/matchConditions')) return pointer.replace('/spec/matchConditions', `${t.source}/${t.matchConditionsKey}`);
    if (pointer === '/spec/failurePolicy') return `${t.source}/failurePolicy`;
    const variable = /^\/spec\/variables\/(\d+)(.*)$/.exec(pointer);
    if (variable) return Number(variable[1]) < skip ? `${t.source}/variables` : `${t.source}/variables/${Number(variable[1]) - skip}${variable[2]}`;
    return pointer.startsWith('/spec') ? t.source : pointer;
  };
}

/**
 * Why a MutatingAdmissionPolicy (or its binding) cannot be loaded for a validating webhook, or undefined:
 * the API server applies such a policy in its mutating admission phase only, and a validating webhook
 * never returns a patch, so loading it would silently drop its mutations.
 */
function mutatingRefused(doc: unknown): string | undefined {
  const kind = (['MutatingAdmissionPolicy', 'MutatingAdmissionPolicyBinding'] as const).find((k) => isAdmissionKind(doc, k)) ?? mutatingKindOf(doc);
  if (!kind) return undefined;
  const named = str(metadataOf(doc)?.['name']);
  const name = named === '' ? '' : ` "${named}"`;
  const what = kind === 'MutatingAdmissionPolicyBinding' ? `${kind}${name} binds a MutatingAdmissionPolicy` : `${kind}${name} mutates objects`;
  return `${what}, but these policies are loaded for a validating webhook, which never applies a mutation; load them for a mutating webhook (mutating: true in createAdmissionWebhook, kubernetes: {mutating: true} in a verdict config) or remove it`;
}

/**
 * A translator for one policy set (`dialect` checks match blocks; `mode`: which Kyverno policies are evaluated,
 * by their `evaluation` settings; `validating`: MutatingAdmissionPolicies and their bindings are refused);
 * `translated` fills as it runs.
 */
export function kubernetesTranslator(dialect: MatchDialect, mode: EvaluationMode = 'admission', { validating = false } = {}): { translator: DocumentTranslator; translated: Translated } {
  const translated: Translated = { registry: new TranslationRegistry(), templates: new WeakMap(), bindings: new WeakMap(), kyverno: new WeakMap(), kyvernoMutating: new WeakMap() };
  const translator: DocumentTranslator = {
    name: 'kubernetes',
    claim(documents) {
      const kinds = paramKinds(documents);
      return documents.flatMap((doc, i) => {
        if (ADMISSION_KINDS.some((kind) => isAdmissionKind(doc, kind))) return [i];
        if (wrongAdmissionVersion(doc)) return [i];
        if (isConstraintTemplate(doc) && celCodeIndex(doc) >= 0) return [i];
        if (kyvernoKindOf(doc) || mutatingKindOf(doc) || kyvernoUnsupported(doc)) return [i];
        return isObject(doc) && ParamDocuments.isParam(doc, kinds) ? [i] : [];
      });
    },
    translate(claimed, ctx) {
      const kyverno = claimed.filter((i) => kyvernoKindOf(ctx.documents[i]));
      // A compiled Kyverno variant: recorded by its template and by its core kind and name; the policy's own matchConstraints checked.
      const record = <V extends KyvernoVariant | MutatingVariant>(byTemplate: WeakMap<object, V>, byName: Map<string, V>) => (variant: V, template: object) => {
        byTemplate.set(template, variant);
        byName.set(`${variant.kind}\u0000${variant.name}`, variant);
        if (variant.autogen === undefined) checkMatch(dialect, variant.policy.matchConstraints, { document: variant.policy.document, at: '/spec/matchConstraints' }, ctx);
      };
      const found = record(translated.kyverno, translated.registry.kyverno);
      const mutatingFound = record(translated.kyvernoMutating, translated.registry.kyvernoMutating);
      const refused = claimed.filter((i) => {
        const why = kyvernoUnsupported(ctx.documents[i]) ?? (validating ? mutatingRefused(ctx.documents[i]) : undefined);
        if (why) ctx.problem(i, '', why, 'UNSUPPORTED');
        return why !== undefined;
      });
      const mutating = claimed.filter((i) => mutatingKindOf(ctx.documents[i]) && !refused.includes(i));
      return [
        ...translate(claimed.filter((i) => !kyverno.includes(i) && !mutating.includes(i) && !refused.includes(i)), ctx, { out: translated, dialect }),
        ...translateKyverno(kyverno, ctx, { mode, found }),
        ...translateKyvernoMutating(mutating, ctx, { mode, found: mutatingFound }),
      ];
    },
  };
  return { translator, translated };
}

function translate(claimed: readonly number[], ctx: TranslationContext, { out, dialect }: { out: Translated; dialect: MatchDialect }): TranslatedUnit[] {
  const policies = new Map<string, AdmissionPolicy>();
  const bindings: PolicyBinding[] = [];
  const params = new ParamDocuments();
  const mutating = new MutatingDocuments(dialect, ctx);
  const units: TranslatedUnit[] = [];
  // Policies that did not load: their own problem says why, so their bindings add none.
  const unloaded = new Set<string>();
  for (const i of claimed) {
    const doc = ctx.documents[i] as Doc;
    const report = (path: string, message: string) => ctx.problem(i, path, message);
    const version = wrongAdmissionVersion(doc);
    if (version) {
      ctx.problem(i, '/apiVersion', version, 'UNKNOWN_KIND');
      // Its bindings add no problem of their own: this one says why the policy is not there.
      const name = isObject(doc['metadata']) ? doc['metadata']['name'] : undefined;
      if (typeof name === 'string') unloaded.add(name);
      continue;
    }
    if (isAdmissionKind(doc, 'ValidatingAdmissionPolicy')) {
      const policy = readAdmissionPolicy(doc, i, report);
      if (!policy) {
        const name = isObject(doc['metadata']) ? doc['metadata']['name'] : undefined;
        if (typeof name === 'string') unloaded.add(name);
        continue;
      }
      if (policies.has(policy.name)) ctx.problem(i, '/metadata/name', `ValidatingAdmissionPolicy "${policy.name}" is already defined by document ${policies.get(policy.name)!.document}`, 'DUPLICATE');
      else policies.set(policy.name, policy);
      checkMatch(dialect, policy.matchConstraints, { document: i, at: '/spec/matchConstraints' }, ctx);
    } else if (isAdmissionKind(doc, 'ValidatingAdmissionPolicyBinding')) {
      const binding = readPolicyBinding(doc, i, report);
      if (!binding) continue;
      if (bindings.some((b) => b.name === binding.name)) ctx.problem(i, '/metadata/name', `ValidatingAdmissionPolicyBinding "${binding.name}" is defined twice`, 'DUPLICATE');
      else bindings.push(binding);
      if (binding.matchResources) checkMatch(dialect, binding.matchResources, { document: i, at: '/spec/matchResources' }, ctx);
    } else if (mutating.read(doc, i, report)) {
      // a MutatingAdmissionPolicy or its binding (map/translate.ts)
    } else if (isConstraintTemplate(doc)) {
      const template = readCelTemplate(doc, i, celCodeIndex(doc), report);
      if (!template) {
        const names = isObject(doc['spec']) && isObject(doc['spec']['crd']) && isObject(doc['spec']['crd']['spec']) ? doc['spec']['crd']['spec']['names'] : undefined;
        if (isObject(names) && typeof names['kind'] === 'string') ctx.broken(names['kind']);
        continue;
      }
      const document = gatekeeperTemplateOf(template);
      out.templates.set(document, { kind: 'gatekeeper', template });
      out.registry.celKinds.set(template.kind, { failurePolicy: template.failurePolicy, validations: template.validations });
      units.push({ template: { document, origin: i, path: gatekeeperPath(template) } });
    } else params.add(doc as KubernetesObject);
  }
  for (const binding of bindings) {
    if (!policies.has(binding.policyName) && !unloaded.has(binding.policyName)) {
      const known = [...policies.keys()];
      ctx.problem(binding.document, '/spec/policyName', `no ValidatingAdmissionPolicy "${binding.policyName}" in the policy set${didYouMean(binding.policyName, known)}${known.length ? ` (defined: ${known.join(', ')})` : ''}`, 'UNKNOWN_KIND');
    }
  }
  for (const policy of policies.values()) {
    const own = bindings.filter((b) => b.policyName === policy.name);
    // Without a binding the policy does nothing, but its logic is still checked.
    if (own.length === 0) {
      const document = templateOf(policy);
      out.templates.set(document, { kind: 'vap', policy });
      units.push({ template: { document, origin: policy.document, path: policyPath }, policies: [] });
    }
    // One template per binding, so that the names CEL sees (params) can depend on the binding.
    for (const binding of own) {
      const document = templateOf(policy);
      out.templates.set(document, { kind: 'vap', policy, binding });
      const generated = bindingOf(binding, policy);
      out.bindings.set(generated, { binding, policy, documents: policy.paramKind ? params.of(policy.paramKind) : [] });
      out.registry.bindings.set(binding.name, {
        policy: policy.name, binding: binding.name, actions: binding.validationActions, failurePolicy: policy.failurePolicy,
        validations: policy.validations,
      });
      units.push({
        template: { document, origin: policy.document, path: policyPath },
        policies: [{ document: generated, origin: binding.document, path: bindingPath(binding, policy), actions: actionsOf(binding.validationActions) }],
      });
    }
  }
  units.push(...translateMutating(mutating, { params, ctx, out }));
  return units;
}
