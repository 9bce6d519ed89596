/**
 * `createAdmissionWebhook`: AdmissionReview in, AdmissionReview out. Validates
 * the request, looks up namespace labels (sync or async, with a timeout),
 * evaluates once, and answers in Gatekeeper's form.
 */
import { PolicySet, type Decision, type PolicySource } from '@verdict/core';
import { loadKubernetesPolicies } from './load.js';
import type { ParamCache, ParamLookup } from './vap/params.js';
import { AdmissionError } from './errors.js';
import { createHandler } from './http.js';
import { NamespaceCache, resolveNamespaceLabels, type NamespaceLabelsLookup } from './namespaces.js';
import { requestOf } from './review.js';
import { didYouMean } from './suggest.js';
import { namespaceToLookUp } from './toInput.js';
import { evaluateRequest } from './evaluate.js';
import { failureResponse, toAdmissionResponse, type FailurePolicy } from './toResponse.js';
import type { AdmissionInput, AdmissionRequest, AdmissionReviewResponse, LabelMap } from './types.js';

export interface AdmissionWebhookOptions {
  /** Policies: YAML/JSON text, parsed documents, or a set compiled with `kubernetesDialect` and `mutationTarget: "/object"`. */
  policies: PolicySource;
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
  /** How long an async lookup may take, in milliseconds (default 2000). On timeout, failurePolicy decides. */
  namespaceLabelsTimeoutMs?: number;
  /** `Fail` (default): evaluation failures deny with code 500. `Ignore`: they admit, noted in the `failed-open` audit annotation. */
  failurePolicy?: FailurePolicy;
  /** `false` (default): a validating webhook, never returns a patch. `true`: a mutating webhook, returns the patch and still denies violations. */
  mutating?: boolean;
  /** Largest request body `handle` reads, in bytes (default 6 MiB); larger bodies get HTTP 400. */
  maxBodyBytes?: number;
  /**
   * Called after every review with what was decided (for logs and metrics).
   * `decision` is absent when evaluation could not run; exceptions thrown here are ignored.
   */
  onDecision?: (event: { input?: AdmissionInput; decision?: Decision; response: AdmissionReviewResponse; error?: Error }) => void;
}

export interface AdmissionWebhook {
  /**
   * Reviews an AdmissionReview v1 and returns the response AdmissionReview:
   * synchronously, or as a promise when the namespace lookup is async.
   * Throws `AdmissionError` when `review` is not an AdmissionReview v1.
   */
  review(review: unknown): AdmissionReviewResponse | Promise<AdmissionReviewResponse>;
  /** A Fetch-API handler serving `review` over HTTP (POST, JSON). Never throws. */
  handle(request: Request): Promise<Response>;
  /** The compiled policies. */
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
  if (options.policies === undefined || options.policies === null) throw new AdmissionError('INVALID_OPTIONS', 'policies is required: YAML text, parsed documents or a compiled PolicySet');
  if (options.params !== undefined && options.policies instanceof PolicySet) {
    throw new AdmissionError('INVALID_OPTIONS', 'params cannot be added to a compiled policy set; pass them to loadKubernetesPolicies(source, {params}) when you compile it');
  }
  const policies = loadKubernetesPolicies(options.policies, options.params === undefined ? {} : { params: options.params });
  const onDecision = options.onDecision;

  const notify = (event: Parameters<NonNullable<AdmissionWebhookOptions['onDecision']>>[0]) => {
    if (!onDecision) return;
    try {
      onDecision(event);
    } catch {
      // A failing logger must not change the admission answer.
    }
  };

  const failed = (request: AdmissionRequest, error: unknown): AdmissionReviewResponse => {
    const err = error instanceof Error ? error : new Error(String(error));
    const response = failureResponse(request.uid, err.message, failurePolicy);
    notify({ response, error: err });
    return response;
  };

  const finish = (request: AdmissionRequest, labels: LabelMap | undefined): AdmissionReviewResponse => {
    try {
      const { input, decision } = evaluateRequest(policies, request, labels, mutating);
      const response = toAdmissionResponse(request.uid, decision, { mutating, failurePolicy, policies });
      notify({ input, decision, response });
      return response;
    } catch (error) {
      return failed(request, new Error(`internal error: ${(error as Error)?.message ?? String(error)}`));
    }
  };

  const review = (body: unknown): AdmissionReviewResponse | Promise<AdmissionReviewResponse> => {
    const request = requestOf(body);
    const namespace = namespaceToLookUp(request);
    if (!lookup || namespace === '') return finish(request, undefined);
    let labels: ReturnType<typeof resolveNamespaceLabels>;
    try {
      labels = resolveNamespaceLabels(lookup, namespace, timeoutMs);
    } catch (error) {
      return failed(request, error);
    }
    if (labels instanceof Promise) return labels.then((l) => finish(request, l), (error: unknown) => failed(request, error));
    return finish(request, labels);
  };

  return Object.freeze({ review, handle: createHandler(review, maxBodyBytes), policies });
}
