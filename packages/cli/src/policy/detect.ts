/**
 * Which adapter a set of policy documents is written for, and compiling them
 * the way that adapter does (its match dialect, its mutation target). Used by
 * `verdict validate`.
 */
import { compilePolicies, type MatchDialect, type PolicyDocument, type PolicySet } from '@verdict/core';
import { ciMatchDialect, loadJobPolicies } from '@verdict/ci';
import { kubernetesDialect, loadKubernetesPolicies } from '@verdict/kubernetes';
import { PERMISSIONS_KIND, policyPermissionSource } from '@verdict/spinnaker';
import { spinnakerMatchDialect } from '@verdict/spinnaker';
import type { AdapterName } from '@verdict/testing';

const DIALECTS: ReadonlyArray<[AdapterName, MatchDialect]> = [['kubernetes', kubernetesDialect], ['ci', ciMatchDialect], ['spinnaker', spinnakerMatchDialect]];
const CORE_KEYS = new Set(['labels', 'fields', 'when', 'all', 'any', 'not']);

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
 * The adapter whose vocabulary the documents use: Gatekeeper constraints and
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
    const spec = isObject(doc['spec']) ? doc['spec'] : {};
    const keys: string[] = [];
    matchKeys(spec['match'], keys);
    if (Array.isArray(spec['parameterSelection'])) for (const entry of spec['parameterSelection']) if (isObject(entry)) matchKeys(entry['match'], keys);
    for (const key of keys) {
      if (CORE_KEYS.has(key)) continue;
      for (const [adapter, dialect] of DIALECTS) if (dialect.keys.includes(key)) add(adapter);
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
 * `SpinnakerPermissions` template). Throws core's `PolicyLoadError`.
 */
export function loadPoliciesFor(adapter: AdapterName, documents: readonly PolicyDocument[]): PolicySet {
  switch (adapter) {
    case 'core':
      return compilePolicies(documents);
    case 'kubernetes':
      return loadKubernetesPolicies([...documents]);
    case 'ci':
      return loadJobPolicies([...documents]);
    case 'spinnaker':
      return policyPermissionSource([...documents]).policies;
  }
}
