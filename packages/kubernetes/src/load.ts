/**
 * `loadKubernetesPolicies`: everything a Kubernetes policy set may hold
 * (verdict documents, Gatekeeper constraints, ConstraintTemplates with CEL,
 * ValidatingAdmissionPolicies with their bindings and parameter objects)
 * compiled with the Kubernetes match dialect, the CEL names admission
 * policies see, parameters resolved per request, and the ApplyConfiguration
 * patch type of MutatingAdmissionPolicies.
 */
import { loadPolicySet, NEWEST_KUBERNETES_VERSION, PolicySet, type CelProfile, type EvaluationLimits, type ParameterSetResolver, type PolicySource } from '@verdict/core';
import { kubernetesDialect, MUTATION_TARGET } from './dialect.js';
import { gatekeeperInput, isGatekeeperConstraint } from './match-gatekeeper.js';
import { AdmissionError } from './errors.js';
import { ADMISSION_CEL_NAMES, ADMISSION_PARTIAL_ROOTS, admissionActivation, API_SERVER_COST_LIMITS } from './vap/activation.js';
import { collectParams, ParamCache, type CollectedParams, type ParamLookup } from './vap/params.js';
import { MUTATING_BINDING_KIND, register } from './vap/registry.js';
import { kubernetesTranslator, type Translated } from './vap/translate.js';
import { kyvernoProfile } from './kyverno/profile.js';
import { applyConfiguration, serverSideApplyConfiguration } from './map/apply.js';
import { apiServerJsonPatch, MAP_JSON_PATCH } from './map/json-patch.js';
import { MUTATING_POLICY_PROFILE } from './mpol/profile.js';
import { SERVER_SIDE_APPLY } from './mpol/translate.js';
import { mutatingProfile } from './map/library.js';
import type { EvaluationMode } from './kyverno/translate.js';
import { KINITIRAS_PATCH_TYPE, KinitirasRuntime, registerKinitiras } from './kinitiras/runtime.js';
import type { CueOptions } from './kinitiras/cue.js';
import { kinitirasDialect } from './kinitiras/select.js';
import { kinitirasTranslator } from './kinitiras/translate.js';

/** Options of {@link loadKubernetesPolicies}. */
export interface KubernetesLoadOptions {
  /** A file name or label for problems (`policies.yaml:12:5`). */
  source?: string;
  /**
   * Parameter objects of ValidatingAdmissionPolicy bindings beyond the documents of the set
   * (a {@link ParamCache}, or a lookup), read on every request. Ignored when `source` is a compiled set.
   */
  params?: ParamLookup | ParamCache;
  /**
   * Which Kyverno ValidatingPolicies take part, by their `evaluation` settings: `admission` (default: those
   * with `evaluation.admission.enabled`, as a webhook), `background` (those with `evaluation.background.enabled`,
   * as an audit of existing objects), or `all` (as `kyverno test` applies them). Other documents always do.
   */
  evaluation?: EvaluationMode;
  /** core's evaluation limits (`costBudget`, `maxViolations`, `maxMessageLength`); ignored when `source` is a compiled set. */
  limits?: EvaluationLimits;
  /**
   * The webhook the policies are for. `validating`: MutatingAdmissionPolicies and their bindings are refused
   * (problem code `UNSUPPORTED` at each document; for a compiled set, `AdmissionError` `INVALID_OPTIONS`),
   * since a validating webhook never applies a mutation. Default (and `mutating`): accepted, as audits and
   * tests use them. `createAdmissionWebhook` sets it from its `mutating` option.
   */
  webhook?: 'validating' | 'mutating';
  /**
   * The Kubernetes version of the cluster the policies are for (`"1.30"`; default: the newest verdict knows,
   * `NEWEST_KUBERNETES_VERSION`). The API server refuses a ValidatingAdmissionPolicy or Gatekeeper CEL
   * template whose expressions use what its CEL environment lacks (a library of a later release, `cel.bind`,
   * mixed list literals, an invalid duration literal); so does verdict, at load, with the file, line and
   * column. Kyverno policies keep Kyverno's environment; MutatingAdmissionPolicies are not held to a version yet.
   */
  kubernetesVersion?: string;
  /**
   * How kinitiras policies' CUE programs run: `timeoutMs` per evaluation (default 10,000) and `workers` running
   * at once (default 1); see {@link CueOptions}. Checked for every set, used by those with CUE; refused for a compiled set.
   */
  cue?: CueOptions;
}

/** Compiled policy kinds whose rules mutate (refused by a validating webhook). */
const MUTATING_KINDS = [MUTATING_BINDING_KIND, 'MutatingPolicy', 'NamespacedMutatingPolicy'];

function profile(translated: Translated, template: { document: object }, kubernetesVersion: string): CelProfile | undefined {
  const kyverno = translated.kyverno.get(template.document);
  if (kyverno) return kyvernoProfile(kyverno.policy);
  if (translated.kyvernoMutating.has(template.document)) return MUTATING_POLICY_PROFILE;
  const admission = admissionProfile(translated, template);
  // MutatingAdmissionPolicy expressions are compiled with their object constructions rewritten to map literals
  // (map/construct.ts), whose values mix types: they are not held to a version's environment yet.
  if (!admission || translated.templates.get(template.document)?.kind === 'map') return admission;
  return { ...admission, kubernetesVersion };
}

function admissionProfile(translated: Translated, template: { document: object }): CelProfile | undefined {
  const origin = translated.templates.get(template.document);
  if (!origin) return undefined;
  if (origin.kind === 'gatekeeper') {
    return {
      names: ADMISSION_CEL_NAMES,
      literalMessages: true,
      partialRoots: ADMISSION_PARTIAL_ROOTS,
      // `params` is the constraint: Gatekeeper's variables.params reads its spec.parameters (null when it has none).
      activation: (input, parameters) => admissionActivation(input, { spec: Object.keys(parameters).length > 0 ? { parameters } : {} }),
    };
  }
  const usesParams = origin.policy.paramKind !== undefined && origin.binding?.paramRef !== undefined;
  if (origin.kind === 'map') return mutatingProfile(usesParams);
  return { names: ADMISSION_CEL_NAMES, literalMessages: true, partialRoots: ADMISSION_PARTIAL_ROOTS, costLimits: API_SERVER_COST_LIMITS, activation: (input, parameters) => admissionActivation(input, usesParams ? parameters : null) };
}

function parameterSets(translated: Translated, document: object, lookup: ParamLookup | undefined): ParameterSetResolver | undefined {
  const origin = translated.bindings.get(document);
  if (!origin?.binding.paramRef || !origin.policy.paramKind) return undefined;
  const { binding, policy, documents } = origin;
  // Without a lookup the parameters come from the set alone, so the answer per namespace never changes.
  const cache = lookup ? undefined : new Map<string, CollectedParams>();
  return (input) => {
    const namespace = typeof input['namespace'] === 'string' ? input['namespace'] : '';
    let found = cache?.get(namespace);
    if (!found) {
      found = collectParams(policy.paramKind, binding.paramRef, namespace, { documents, ...(lookup ? { lookup } : {}) });
      if (cache) {
        if (cache.size >= 1024) cache.clear();
        cache.set(namespace, found);
      }
    }
    if ('error' in found) throw new Error(`failed to configure binding: ${found.error}`);
    return found.params as ReadonlyArray<Readonly<Record<string, unknown>>>;
  };
}

const OPEN = { type: 'object', additionalProperties: true } as const;

/**
 * The top of the admission input (`AdmissionInput`, docs/kubernetes.md), for
 * core's load-time check of the paths the user's rules, selectors and messages
 * read: `{"var": "objcet.spec"}` does not load. Only the top is known: the
 * contents of `object`, `oldObject` and the other fields are open.
 */
const ADMISSION_INPUT_SHAPE = {
  title: 'the admission input',
  type: 'object',
  properties: Object.fromEntries([
    'uid', 'kind', 'apiVersion', 'resource', 'subResource', 'requestKind', 'requestResource', 'requestSubResource', 'operation', 'name', 'namespace',
    'scope', 'labels', 'annotations', 'namespaceLabels', 'userInfo', 'object', 'oldObject', 'options', 'dryRun', 'inventory',
  ].map((key) => [key, OPEN])),
} as const;

/**
 * Loads policies for Kubernetes inputs: YAML/JSON text, parsed documents, or a
 * compiled set (returned as is when it patches `/object`). Compiles with
 * {@link kubernetesDialect}, `mutationTarget: "/object"` and the Kubernetes
 * document translator (ValidatingAdmissionPolicy, its bindings and parameter
 * objects; Gatekeeper ConstraintTemplates with a K8sNativeValidation block),
 * and `limits` (core's evaluation limits) when given. Throws core's
 * `PolicyLoadError` listing every problem.
 */
export function loadKubernetesPolicies(source: PolicySource, options: KubernetesLoadOptions = {}): PolicySet {
  const webhook = options.webhook;
  if (webhook !== undefined && webhook !== 'validating' && webhook !== 'mutating') throw new AdmissionError('INVALID_OPTIONS', `webhook must be "validating" or "mutating" (got ${JSON.stringify(webhook)})`);
  if (source instanceof PolicySet) {
    if (options.limits) loadPolicySet(source, options.limits); // core refuses limits for a compiled set, with its message
    if (options.cue !== undefined) throw new AdmissionError('INVALID_OPTIONS', 'cue cannot be added to a compiled policy set: pass it to loadKubernetesPolicies(source, {cue}) when you compile it', { path: '/cue' });
    const binding = webhook === 'validating' ? source.policies.find((p) => MUTATING_KINDS.includes(p.kind)) : undefined;
    if (binding) throw new AdmissionError('INVALID_OPTIONS', `the policy set holds ${binding.kind} "${binding.name}", but a validating webhook never applies a mutation: create the webhook with mutating: true`);
    if (source.mutationTarget !== MUTATION_TARGET) {
      throw new AdmissionError('INVALID_OPTIONS', `the policy set patches "${source.mutationTarget || '(the whole input)'}", but admission patches must address the object; compile it with mutationTarget: "/object" and dialects: [kubernetesDialect]`);
    }
    return source;
  }
  const lookup = options.params instanceof ParamCache ? options.params.lookup : options.params;
  if (lookup !== undefined && typeof lookup !== 'function') throw new AdmissionError('INVALID_OPTIONS', 'params must be a ParamCache or a function ({apiVersion, kind, namespace?}) => objects | undefined');
  const evaluation = options.evaluation ?? 'admission';
  if (evaluation !== 'admission' && evaluation !== 'background' && evaluation !== 'all') throw new AdmissionError('INVALID_OPTIONS', `evaluation must be "admission", "background" or "all" (got ${JSON.stringify(evaluation)})`);
  const kubernetesVersion = options.kubernetesVersion ?? NEWEST_KUBERNETES_VERSION;
  const { translator, translated } = kubernetesTranslator(kubernetesDialect, evaluation, { validating: webhook === 'validating' });
  const kinitiras = new KinitirasRuntime(options.cue);
  const set = loadPolicySet(source, {
    ...options.limits,
    dialects: [kubernetesDialect, kinitirasDialect],
    mutationTarget: MUTATION_TARGET,
    inputShape: ADMISSION_INPUT_SHAPE,
    translators: [translator, kinitirasTranslator(kinitiras)],
    cel: { profile: (template) => (kinitiras.templates.has(template.document) ? kinitiras.profile() : profile(translated, template, kubernetesVersion)) },
    patchTypes: {
      ApplyConfiguration: applyConfiguration,
      [MAP_JSON_PATCH]: apiServerJsonPatch,
      [SERVER_SIDE_APPLY]: serverSideApplyConfiguration,
      [KINITIRAS_PATCH_TYPE]: kinitiras.patchType,
    },
    parameterSets: (policy) => parameterSets(translated, policy.document, lookup),
    inputView: (policy) => (isGatekeeperConstraint(policy.document) ? gatekeeperInput : undefined),
    ...(options.source ? { source: options.source } : {}),
  });
  register(set, translated.registry);
  registerKinitiras(set, kinitiras);
  return set;
}
