/**
 * Which adapter a set of policy documents is written for, and compiling them
 * the way that adapter does (its match dialect, its mutation target). Used by
 * `verdict validate`.
 */
import { adapterOfMatchKey, compilePolicies, type PolicyDocument, type PolicySet } from '@verdict/core';
import type * as Ci from '@verdict/ci';
import type * as Kubernetes from '@verdict/kubernetes';
import type * as Spinnaker from '@verdict/spinnaker';
import type { AdapterName } from '@verdict/testing';
import { isMissing } from '@verdict/testing/internal';
import { CliError } from '../io.js';

/**
 * The adapter packages are optional peer dependencies of the CLI: a project
 * installs the ones it uses. {@link loadInstalledAdapters} imports those that
 * are installed, once, before a command runs; the functions below read them.
 */
interface Adapters {
  kubernetes?: typeof Kubernetes;
  ci?: typeof Ci;
  spinnaker?: typeof Spinnaker;
}
type AdapterPackage = keyof Adapters;

const installed: Adapters = {};
/** The optional adapter packages. */
export const adapterPackages = ['@verdict/kubernetes', '@verdict/ci', '@verdict/spinnaker'] as const;
let loading: Promise<void> | undefined;

/** `@verdict/spinnaker`'s `PERMISSIONS_KIND`, known here so that a document of it names the package when it is missing. */
export const PERMISSIONS_KIND = 'SpinnakerPermissions';

async function tryImport<T>(name: string, load: () => Promise<T>): Promise<T | undefined> {
  try {
    return await load();
  } catch (error) {
    if (isMissing(error, name)) return undefined;
    throw error;
  }
}

/** Imports every installed adapter package (once). */
export function loadInstalledAdapters(): Promise<void> {
  loading ??= (async () => {
    const [kubernetes, ci, spinnaker] = await Promise.all([
      tryImport('@verdict/kubernetes', () => import('@verdict/kubernetes')),
      tryImport('@verdict/ci', () => import('@verdict/ci')),
      tryImport('@verdict/spinnaker', () => import('@verdict/spinnaker')),
    ]);
    if (kubernetes) installed.kubernetes = kubernetes;
    if (ci) installed.ci = ci;
    if (spinnaker) installed.spinnaker = spinnaker;
  })();
  return loading;
}

/** The package of `adapter`; a `CliError` naming what to install when it is not installed. */
export function adapterPackage<A extends AdapterPackage>(adapter: A): NonNullable<Adapters[A]> {
  const module = installed[adapter];
  if (module) return module;
  throw new CliError(`these policies are written for @verdict/${adapter}, which is not installed: add it next to @verdict/cli (npm install --save-dev @verdict/${adapter})`);
}


function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Every key used in a match block, looking inside `all`, `any` and `not`. */
function matchKeys(block: unknown, out: string[]): void {
  if (Array.isArray(block)) {
    for (const item of block) matchKeys(item, out);
    return;
  }
  if (!isObject(block)) return;
  for (const [key, value] of Object.entries(block)) {
    out.push(key);
    if (key === 'all' || key === 'any' || key === 'not') matchKeys(value, out);
  }
}

/**
 * The adapter whose vocabulary the documents use (installed or not, so that a
 * missing adapter is named): Gatekeeper constraints and
 * templates, ValidatingAdmissionPolicies and their bindings, Kyverno ValidatingPolicies
 * (`admissionregistration.k8s.io/*`), Gatekeeper or webhook match keys →
 * `kubernetes`; `SpinnakerPermissions` and Fiat match keys → `spinnaker`; CI
 * match keys (`projects`, `users`, …) → `ci`; only core keys → `core`.
 */
export function detectPolicyAdapter(documents: readonly PolicyDocument[]): AdapterName {
  const score = new Map<AdapterName, number>();
  const add = (adapter: AdapterName, n = 1) => score.set(adapter, (score.get(adapter) ?? 0) + n);
  for (const doc of documents) {
    if (typeof doc['apiVersion'] === 'string' && /^(constraints|templates)\.gatekeeper\.sh\/|^admissionregistration\.k8s\.io\/|^(policies\.)?kyverno\.io\//.test(doc['apiVersion'])) add('kubernetes', 10);
    if (doc['kind'] === PERMISSIONS_KIND) add('spinnaker', 10);
    // A Kubernetes admission kind under a wrong apiVersion is still one: the adapter names the right versions.
    else if (typeof doc['kind'] === 'string' && /^(Validating|Mutating)AdmissionPolicy(Binding)?$/.test(doc['kind'])) add('kubernetes', 10);
    const spec = isObject(doc['spec']) ? doc['spec'] : {};
    const keys: string[] = [];
    matchKeys(spec['match'], keys);
    if (Array.isArray(spec['parameterSelection'])) for (const entry of spec['parameterSelection']) if (isObject(entry)) matchKeys(entry['match'], keys);
    for (const key of keys) {
      const adapter = adapterOfMatchKey(key);
      if (adapter) add(adapter);
    }
  }
  let best: AdapterName = 'core';
  let top = 0;
  for (const [adapter, n] of score) {
    if (n > top) {
      best = adapter;
      top = n;
    }
  }
  return best;
}

/**
 * Compiles documents as `adapter` does: core alone, `loadKubernetesPolicies`,
 * `loadJobPolicies`, or the Fiat policy source (which adds the
 * `SpinnakerPermissions` template). Throws core's `PolicyLoadError`, and a
 * `CliError` when the adapter's package is not installed.
 */
export function loadPoliciesFor(adapter: AdapterName, documents: readonly PolicyDocument[]): PolicySet {
  switch (adapter) {
    case 'core':
      return compilePolicies(documents);
    case 'kubernetes':
      return adapterPackage('kubernetes').loadKubernetesPolicies([...documents]);
    case 'ci':
      return adapterPackage('ci').loadJobPolicies([...documents]);
    case 'spinnaker':
      return adapterPackage('spinnaker').policyPermissionSource([...documents]).policies;
  }
}
