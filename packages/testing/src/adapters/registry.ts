/**
 * The adapters' evaluators, loaded on first use. `@verdict/kubernetes`,
 * `@verdict/ci` and `@verdict/spinnaker` are optional peer dependencies: a
 * project that tests only core policies installs none of them, and an input
 * that needs a missing one gets an error naming the package to install.
 */
import type { PolicyDocument } from '@verdict/core';
import { SuiteError } from '../errors.js';
import type { AdapterOptions, Evaluator } from '../evaluate.js';
import type { AdapterName } from '../suite/types.js';

type AdapterPackage = Exclude<AdapterName, 'core'>;

/** Builds an adapter's evaluator over a policy set. */
export type EvaluatorFactory = (documents: readonly PolicyDocument[], options: AdapterOptions) => Evaluator;

const loaders: Record<AdapterPackage, () => Promise<EvaluatorFactory>> = {
  kubernetes: async () => (await import('./kubernetes.js')).createKubernetesEvaluator,
  ci: async () => (await import('./ci.js')).createCiEvaluator,
  spinnaker: async () => (await import('./spinnaker.js')).createSpinnakerEvaluator,
};

/** What an input of each adapter looks like, for the error message. */
const INPUTS: Record<AdapterPackage, string> = {
  kubernetes: 'a Kubernetes object or AdmissionReview',
  ci: 'a CI job',
  spinnaker: 'a Fiat query',
};

/** True when `error` says that `specifier` (a package) could not be found. */
export function isMissing(error: unknown, specifier: string): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  const missing = code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND' || /cannot find (package|module)|failed to (load|resolve)/i.test(String(message));
  return missing && String(message).includes(specifier);
}

/**
 * The evaluator factory of `adapter`. Throws
 * `SuiteError('ADAPTER_NOT_INSTALLED')` when its package is not installed.
 */
export async function loadAdapter(adapter: AdapterPackage): Promise<EvaluatorFactory> {
  const name = `@verdict/${adapter}`;
  try {
    return await loaders[adapter]();
  } catch (error) {
    if (!isMissing(error, name)) throw error;
    throw new SuiteError(
      'ADAPTER_NOT_INSTALLED',
      `evaluating ${INPUTS[adapter]} needs ${name}, which is not installed: add it next to @verdict/testing (npm install --save-dev ${name})`,
      { cause: error },
    );
  }
}
