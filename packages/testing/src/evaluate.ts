/**
 * Turning an input into an {@link Outcome}: decide which evaluator answers
 * it (core, or an adapter, loaded only when an input needs it), build the
 * evaluator once per policy set, evaluate. Shared by the suite runner and
 * the CLI (`verdict eval` and `verdict explain`).
 */
import { compilePolicies, parsePolicyDocuments, type EvaluationLimits, type PolicyDocument } from '@verdict/core';
import { decisionOutcome, type Outcome } from './outcome.js';
import type { AdapterName, KubernetesSuiteOptions } from './suite/types.js';
import { loadAdapter } from './adapters/registry.js';

/** How one input is presented (used for bare Kubernetes objects). */
export interface InputOptions {
  operation?: 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
  namespaceLabels?: Record<string, string>;
  userInfo?: Record<string, unknown>;
  oldObject?: unknown;
  /**
   * Other objects policies may read as `inventory` (kubernetes): a list of objects (each in
   * its `metadata.namespace`, cluster-scoped without one), or an inventory already in
   * Gatekeeper's `data.inventory` layout (an `InventoryCache`'s `data`, reused across calls).
   */
  inventory?: readonly unknown[] | { readonly cluster: object; readonly namespace: object };
  /**
   * `true` (default): the outcome's decision has the full trace (every policy, why entries
   * did not match), which costs a second evaluation. `false`: the decision as the adapter
   * made it, policies ruled out by the selector index left out (kubernetes; `verdict audit`).
   */
  explain?: boolean;
  /**
   * Apply the API server's defaults for built-in kinds to a bare Kubernetes object (and `oldObject`) before the
   * review, as the API server does before admission (`admissionReviewFor`'s `defaults`). Default `false`: the object
   * as written, as suites, `gator verify` and `kyverno test` take it; `verdict eval` and `verdict audit` turn it on.
   */
  defaults?: boolean;
}

/** Adapter settings, as a suite's `kubernetes:`, `ci:` and `spinnaker:` blocks (or `verdict eval --config`) give them. */
export interface AdapterOptions {
  kubernetes?: KubernetesSuiteOptions;
  ci?: Record<string, unknown>;
  spinnaker?: Record<string, unknown>;
  /** Directory that relative paths inside adapter options are resolved against. */
  baseDir?: string;
  /** Core's evaluation limits (`costBudget`, `maxViolations`, `maxMessageLength`), given to whichever evaluator answers. */
  limits?: EvaluationLimits;
}

/** Answers inputs for one policy set. */
export interface Evaluator {
  readonly adapter: AdapterName;
  evaluate(input: unknown, options?: InputOptions): Promise<Outcome>;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isCiJob(value: unknown): boolean {
  return isObject(value) && 'id' in value && (isObject(value['variables']) || Array.isArray(value['variables']) || Array.isArray(value['tags']));
}

/**
 * Which evaluator an input needs: an AdmissionReview or a bare Kubernetes
 * object (`apiVersion`, `kind`, `metadata`) → `kubernetes`; a CI job
 * (`id` with `variables` or `tags`, or a list of them) → `ci`; a Fiat query
 * (`resourceType` and `resourceName`) → `spinnaker`; anything else → `core`.
 */
export function detectAdapter(input: unknown): AdapterName {
  if (Array.isArray(input)) return input.length > 0 && input.every(isCiJob) ? 'ci' : 'core';
  if (!isObject(input)) return 'core';
  if (input['kind'] === 'AdmissionReview' && isObject(input['request'])) return 'kubernetes';
  if (typeof input['apiVersion'] === 'string' && typeof input['kind'] === 'string' && isObject(input['metadata'])) return 'kubernetes';
  if (isCiJob(input)) return 'ci';
  if (typeof input['resourceType'] === 'string' && 'resourceName' in input) return 'spinnaker';
  return 'core';
}

function coreEvaluator(documents: readonly PolicyDocument[], limits: EvaluationLimits | undefined): Evaluator {
  const set = compilePolicies(documents, limits);
  return {
    adapter: 'core',
    async evaluate(input) {
      return decisionOutcome(set.evaluate(input, { explain: true }));
    },
  };
}

/**
 * Builds the evaluator for `adapter` over `documents`. The adapter's package
 * (`@verdict/kubernetes`, `@verdict/ci`, `@verdict/spinnaker`) is loaded on
 * first use; it is an optional peer dependency. Throws `PolicyLoadError` when
 * the policies do not load, `SuiteError('ADAPTER_NOT_INSTALLED')` when the
 * adapter's package is missing, and the adapter's own error for invalid
 * adapter options.
 */
export async function createEvaluator(adapter: AdapterName, documents: readonly PolicyDocument[], options: AdapterOptions = {}): Promise<Evaluator> {
  if (adapter === 'core') return coreEvaluator(documents, options.limits);
  const create = await loadAdapter(adapter);
  return create(documents, options);
}

/** A memo of evaluators per adapter for one policy set. */
export class EvaluatorCache {
  private readonly made = new Map<AdapterName, Promise<Evaluator>>();

  constructor(private readonly documents: readonly PolicyDocument[], private readonly options: AdapterOptions) {}

  get(adapter: AdapterName): Promise<Evaluator> {
    let evaluator = this.made.get(adapter);
    if (!evaluator) {
      evaluator = createEvaluator(adapter, this.documents, this.options);
      this.made.set(adapter, evaluator);
    }
    return evaluator;
  }
}

/** Options of {@link evaluateInput}. */
export type EvaluateInputOptions = InputOptions & AdapterOptions & {
  /** The evaluator to use (default: {@link detectAdapter}). */
  as?: AdapterName;
  /** The file name of `policies` when they are text, shown in load problems (`policies.yaml:12:5`). */
  source?: string;
};

/**
 * Evaluates one input the way `verdict test` does and returns the
 * {@link Outcome} (the adapter's answer is `outcome.answer`, the decision with
 * its full trace `outcome.decision`); every matcher accepts it. `policies` is
 * YAML/JSON text or parsed documents. Compiles the policies on every call:
 * build an evaluator with {@link createEvaluator} to reuse them.
 */
export async function evaluateInput(policies: string | readonly PolicyDocument[], input: unknown, options: EvaluateInputOptions = {}): Promise<Outcome> {
  const { as, kubernetes, ci, spinnaker, baseDir, limits, source, ...inputOptions } = options;
  const documents = typeof policies === 'string' ? parsePolicyDocuments(policies, source === undefined ? {} : { source }) : policies;
  const adapterOptions: AdapterOptions = {};
  if (kubernetes) adapterOptions.kubernetes = kubernetes;
  if (ci) adapterOptions.ci = ci;
  if (spinnaker) adapterOptions.spinnaker = spinnaker;
  if (baseDir) adapterOptions.baseDir = baseDir;
  if (limits) adapterOptions.limits = limits;
  const evaluator = await createEvaluator(as ?? detectAdapter(input), documents, adapterOptions);
  return evaluator.evaluate(input, inputOptions);
}
