/**
 * `createAdmissionWebhook`: AdmissionReview in, AdmissionReview out. Validates
 * the request, looks up namespace labels (sync or async, with a timeout),
 * evaluates once, and answers in Gatekeeper's form.
 */
import { PolicySet, type Decision, type EvaluationLimits, type PolicySource } from '@verdict/core';
import { loadKubernetesPolicies, type KubernetesLoadOptions } from './load.js';
import type { ParamCache, ParamLookup } from './vap/params.js';
import { AdmissionError } from './errors.js';
import { createHandler } from './http.js';
import { inventoryProvider, type InventorySource } from './inventory.js';
import { createListener, type NodeListener } from './listener.js';
import { NamespaceCache, resolveNamespaceLabels, type NamespaceLabelsLookup } from './namespaces.js';
import { requestOf } from './review.js';
import { didYouMean } from './suggest.js';
import { namespaceToLookUp } from './toInput.js';
import { evaluateRequest } from './evaluate.js';
import { kinitirasOf } from './kinitiras/runtime.js';
import { failureResponse, toAdmissionResponse, type FailurePolicy, type ResponseOptions } from './toResponse.js';
import type { AdmissionInput, AdmissionRequest, AdmissionReviewResponse, LabelMap } from './types.js';

/** Options of {@link createAdmissionWebhook}. */
export interface AdmissionWebhookOptions {
  /** Policies: YAML/JSON text, parsed documents, or a set compiled with `kubernetesDialect` and `mutationTarget: "/object"`. */
  policies: PolicySource;
  /** The file name (or label) of `policies` when they are text, shown in load problems (`policies.yaml:12:5`). */
  source?: string;
  /**
   * Labels of a namespace by name (sync or async), or a {@link NamespaceCache}.
   * Without it, namespaced objects have no `namespaceLabels` and a Gatekeeper
   * `namespaceSelector` cannot match them (the constraint reports a match error).
   */
  namespaceLabels?: NamespaceLabelsLookup | NamespaceCache;
  /**
   * Parameter objects of ValidatingAdmissionPolicy bindings (`paramRef`) besides the documents of `policies`:
   * a {@link ParamCache} fed from watches, or a sync lookup. Give it to `loadKubernetesPolicies` instead when
   * `policies` is a compiled set.
   */
  params?: ParamLookup | ParamCache;
  /**
   * Which Kyverno ValidatingPolicies take part (see `loadKubernetesPolicies`): `admission` (default), `background`
   * or `all`. Give it to `loadKubernetesPolicies` instead when `policies` is a compiled set.
   */
  evaluation?: KubernetesLoadOptions['evaluation'];
  /**
   * The cluster's Kubernetes version, whose CEL environment the policies' expressions must fit (see
   * `loadKubernetesPolicies`; default: the newest verdict knows). Give it to `loadKubernetesPolicies` instead
   * when `policies` is a compiled set.
   */
  kubernetesVersion?: KubernetesLoadOptions['kubernetesVersion'];
  /**
   * How kinitiras policies' CUE programs run (see `loadKubernetesPolicies`): `timeoutMs` per evaluation
   * (default 10,000) and `workers` running at once (default 1). Give it to `loadKubernetesPolicies` instead
   * when `policies` is a compiled set.
   */
  cue?: KubernetesLoadOptions['cue'];
  /**
   * Other objects for referential policies (unique hosts, unique selectors): an
   * `InventoryCache` the host feeds (from an informer, as a NamespaceCache), or a
   * function returning the inventory for each review. Policies read it as
   * `inventory` (Gatekeeper's `data.inventory` layout). Without it, `inventory` is absent.
   */
  inventory?: InventorySource;
  /** How long an async lookup may take, in milliseconds (default 2000). On timeout, failurePolicy decides. */
  namespaceLabelsTimeoutMs?: number;
  /** `Fail` (default): evaluation failures deny with code 500. `Ignore`: they admit, noted in the `failed-open` audit annotation. */
  failurePolicy?: FailurePolicy;
  /**
   * `false` (default): a validating webhook, never returns a patch; MutatingAdmissionPolicies are refused at load
   * (`PolicyLoadError`, problem code `UNSUPPORTED`). `true`: a mutating webhook, returns the patch and still denies violations.
   */
  mutating?: boolean;
  /** Largest request body `handle` and `listener` read, in bytes (default 6 MiB); larger bodies get HTTP 400. */
  maxBodyBytes?: number;
  /**
   * Bounds of one evaluation, applied when `policies` is text or documents:
   * `costBudget` (units, default 10,000,000; past it the request fails and
   * `failurePolicy` decides), `maxViolations` (denial lines listed, default
   * 100, then "… and N more") and `maxMessageLength` (characters per message, default 4096).
   */
  limits?: EvaluationLimits;
  /**
   * Called after every review with what was decided (for logs and metrics).
   * `decision` is absent when evaluation could not run; exceptions thrown here are ignored.
   * `durationMs`: milliseconds from the start of `review` to the answer (namespace lookup and evaluation).
   */
  onDecision?: (event: DecisionEvent) => void;
}

/** What `onDecision` receives after every review. */
export interface DecisionEvent {
  input?: AdmissionInput;
  decision?: Decision;
  response: AdmissionReviewResponse;
  error?: Error;
  durationMs: number;
}

/** An admission webhook made by {@link createAdmissionWebhook}: `review` (an AdmissionReview object), `handle` (a Fetch request), `listener` (Node), and `update` to swap policies. */
export interface AdmissionWebhook {
  /**
   * Reviews an AdmissionReview v1 and returns the response AdmissionReview:
   * synchronously, or as a promise when the namespace lookup is async.
   * Throws `AdmissionError` when `review` is not an AdmissionReview v1.
   */
  review(review: unknown): AdmissionReviewResponse | Promise<AdmissionReviewResponse>;
  /** A Fetch-API handler serving `review` over HTTP (POST, JSON), for Bun, Deno, Hono and workers. Never throws. */
  handle(request: Request): Promise<Response>;
  /**
   * A Node request listener serving `review` (POST, JSON) at whatever path it
   * is mounted: `https.createServer(tls, webhook.listener)`, or Express/Connect
   * middleware (a body parsed by `express.json()` is accepted). Same limit,
   * errors and answers as `handle`. Never throws.
   */
  readonly listener: NodeListener;
  /**
   * Replaces the policies atomically and returns the compiled set. Reviews
   * already started finish on the set they started with. Throws core's
   * `PolicyLoadError` for an invalid set, and the current set stays.
   */
  update(policies: PolicySource, options?: { source?: string }): PolicySet;
  /** The compiled policies in use. */
  readonly policies: PolicySet;
}

const DEFAULT_TIMEOUT_MS = 2000;
/** Default `maxBodyBytes`: an UPDATE carries two objects of up to ~1.5 MiB (etcd's limit) plus JSON overhead. */
export const DEFAULT_MAX_BODY_BYTES = 6 * 1024 * 1024;

function positive(value: unknown, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new AdmissionError('INVALID_OPTIONS', `${name} must be a positive number (got ${String(value)})`);
  }
  return value;
}

function lookupOf(value: unknown): NamespaceLabelsLookup | undefined {
  if (value === undefined) return undefined;
  if (value instanceof NamespaceCache) return value.lookup;
  if (typeof value !== 'function') throw new AdmissionError('INVALID_OPTIONS', 'namespaceLabels must be a function (name) => labels | undefined (sync or async), or a NamespaceCache');
  return value as NamespaceLabelsLookup;
}

/**
 * Creates an admission webhook over a policy set. Throws core's
 * `PolicyLoadError` for invalid policies and `AdmissionError`
 * (`INVALID_OPTIONS`) for invalid options.
 */
export function createAdmissionWebhook(options: AdmissionWebhookOptions): AdmissionWebhook {
  if (options === null || typeof options !== 'object') throw new AdmissionError('INVALID_OPTIONS', 'createAdmissionWebhook expects an options object with policies');
  const failurePolicy = options.failurePolicy ?? 'Fail';
  if (failurePolicy !== 'Fail' && failurePolicy !== 'Ignore') {
    throw new AdmissionError('INVALID_OPTIONS', `failurePolicy must be "Fail" or "Ignore" (got "${String(failurePolicy)}")${didYouMean(String(failurePolicy), ['Fail', 'Ignore'])}`);
  }
  if (options.mutating !== undefined && typeof options.mutating !== 'boolean') throw new AdmissionError('INVALID_OPTIONS', `mutating must be a boolean (got ${typeof options.mutating})`);
  const mutating = options.mutating === true;
  const timeoutMs = positive(options.namespaceLabelsTimeoutMs, 'namespaceLabelsTimeoutMs', DEFAULT_TIMEOUT_MS);
  const maxBodyBytes = positive(options.maxBodyBytes, 'maxBodyBytes', DEFAULT_MAX_BODY_BYTES);
  const lookup = lookupOf(options.namespaceLabels);
  const inventory = inventoryProvider(options.inventory);
  if (options.policies === undefined || options.policies === null) throw new AdmissionError('INVALID_OPTIONS', 'policies is required: YAML text, parsed documents or a compiled PolicySet');
  const { params, evaluation, kubernetesVersion, cue } = options;
  const load = (source: PolicySource, loadOptions: { source?: string } = {}) => {
    if ((params !== undefined || evaluation !== undefined || kubernetesVersion !== undefined || cue !== undefined) && source instanceof PolicySet) {
      const option = params !== undefined ? 'params' : evaluation !== undefined ? 'evaluation' : kubernetesVersion !== undefined ? 'kubernetesVersion' : 'cue';
      throw new AdmissionError('INVALID_OPTIONS', `${option} cannot be added to a compiled policy set; pass it to loadKubernetesPolicies(source, {…}) when you compile it`);
    }
    return loadKubernetesPolicies(source, { ...loadOptions, webhook: mutating ? 'mutating' : 'validating', ...(params !== undefined ? { params } : {}), ...(evaluation !== undefined ? { evaluation } : {}), ...(kubernetesVersion !== undefined ? { kubernetesVersion } : {}), ...(cue !== undefined ? { cue } : {}), ...(options.limits ? { limits: options.limits } : {}) });
  };
  /** Swapped whole by `update`; each review reads it once, at its start. */
  if (options.source !== undefined && typeof options.source !== 'string') throw new AdmissionError('INVALID_OPTIONS', `source must be a string, the file name of the policies (got ${typeof options.source})`);
  let current = load(options.policies, options.source === undefined ? {} : { source: options.source });
  const onDecision = options.onDecision;

  /** `event` is completed with `durationMs` in place (no copy per review). */
  const notify = (event: DecisionEvent, started: number) => {
    if (!onDecision) return;
    event.durationMs = performance.now() - started;
    try {
      onDecision(event);
    } catch {
      // A failing logger must not change the admission answer.
    }
  };

  const failed = (request: AdmissionRequest, error: unknown, started: number): AdmissionReviewResponse => {
    const err = error instanceof Error ? error : new Error(String(error));
    const response = failureResponse(request.uid, err.message, failurePolicy);
    if (onDecision) notify({ response, error: err, durationMs: 0 }, started);
    return response;
  };

  /** The response options for a policy set, made once per set rather than once per review. */
  let answered: { policies: PolicySet; options: ResponseOptions } | undefined;
  const responseOptions = (policies: PolicySet): ResponseOptions => {
    if (answered?.policies !== policies) answered = { policies, options: Object.freeze({ mutating, failurePolicy, policies }) };
    return answered.options;
  };

  const finish = (policies: PolicySet, request: AdmissionRequest, labels: LabelMap | undefined, started: number): AdmissionReviewResponse | Promise<AdmissionReviewResponse> => {
    const cue = kinitirasOf(policies);
    let round = 0;
    const attempt = (): AdmissionReviewResponse | Promise<AdmissionReviewResponse> => {
      try {
        cue?.begin();
        const { input, decision } = evaluateRequest(policies, request, { namespaceLabels: labels, inventory: inventory?.() }, mutating);
        // kinitiras' CUE runs asynchronously: the review is evaluated again once the results it asked for are known.
        const waiting = cue && round++ <= cue.rounds ? cue.settle() : undefined;
        if (waiting) return waiting.then(attempt, (error: unknown) => failed(request, error, started));
        const options = responseOptions(policies);
        // A Kyverno MutatingPolicy's denial names the request's object.
        const response = toAdmissionResponse(request.uid, decision, decision.errors.length === 0 ? options : { ...options, resource: { namespace: request.namespace, name: request.name, kind: request.kind?.kind } });
        if (onDecision) notify({ input, decision, response, durationMs: 0 }, started);
        return response;
      } catch (error) {
        return failed(request, new Error(`internal error: ${(error as Error)?.message ?? String(error)}`), started);
      }
    };
    return attempt();
  };

  const review = (body: unknown): AdmissionReviewResponse | Promise<AdmissionReviewResponse> => {
    const started = onDecision ? performance.now() : 0;
    const policies = current;
    const request = requestOf(body);
    const namespace = namespaceToLookUp(request);
    if (!lookup || namespace === '') return finish(policies, request, undefined, started);
    let labels: ReturnType<typeof resolveNamespaceLabels>;
    try {
      labels = resolveNamespaceLabels(lookup, namespace, timeoutMs);
    } catch (error) {
      return failed(request, error, started);
    }
    if (labels instanceof Promise) return labels.then((l) => finish(policies, request, l, started), (error: unknown) => failed(request, error, started));
    return finish(policies, request, labels, started);
  };

  const update = (policies: PolicySource, updateOptions?: { source?: string }): PolicySet => {
    if (policies === undefined || policies === null) throw new AdmissionError('INVALID_OPTIONS', 'update expects policies: YAML text, parsed documents or a compiled PolicySet');
    current = load(policies, updateOptions);
    return current;
  };

  return Object.freeze({
    review,
    handle: createHandler(review, maxBodyBytes),
    listener: createListener(review, maxBodyBytes),
    update,
    get policies() {
      return current;
    },
  });
}
