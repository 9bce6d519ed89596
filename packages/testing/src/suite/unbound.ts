/**
 * Kubernetes admission policies that no binding names. The API server
 * evaluates a ValidatingAdmissionPolicy (or MutatingAdmissionPolicy) only
 * through its bindings, so one without a binding does nothing: it loads, and
 * admits everything. Read from the documents alone (no adapter needed), for
 * `verdict validate` and `verdict test` to name.
 */
import { sourceLocation, type PolicyDocument } from '@verdict/core';

const BINDING_OF: Readonly<Record<string, string>> = {
  ValidatingAdmissionPolicy: 'ValidatingAdmissionPolicyBinding',
  MutatingAdmissionPolicy: 'MutatingAdmissionPolicyBinding',
};

/** A policy no binding names. */
export interface UnboundPolicy {
  /** Index of the policy's document. */
  document: number;
  kind: string;
  policy: string;
  /** `/metadata/name`. */
  path: string;
  message: string;
  source?: string;
  line?: number;
  column?: number;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isAdmission = (doc: PolicyDocument) => typeof doc['apiVersion'] === 'string' && doc['apiVersion'].startsWith('admissionregistration.k8s.io/');

/** Every ValidatingAdmissionPolicy and MutatingAdmissionPolicy of `documents` that no binding of its kind names in `spec.policyName`. */
export function unboundAdmissionPolicies(documents: readonly PolicyDocument[]): UnboundPolicy[] {
  const named = new Set<string>();
  for (const doc of documents) {
    if (isAdmission(doc) && isObject(doc['spec']) && typeof doc['spec']['policyName'] === 'string') named.add(`${String(doc['kind'])}\u0000${doc['spec']['policyName']}`);
  }
  const out: UnboundPolicy[] = [];
  documents.forEach((doc, document) => {
    const kind = typeof doc['kind'] === 'string' ? doc['kind'] : '';
    const binding = BINDING_OF[kind];
    const name = isObject(doc['metadata']) ? doc['metadata']['name'] : undefined;
    if (!binding || !isAdmission(doc) || typeof name !== 'string' || named.has(`${binding}\u0000${name}`)) return;
    const at = sourceLocation(doc, '/metadata/name');
    out.push({
      document, kind, policy: name, path: '/metadata/name',
      message: `${kind} "${name}" is named by no ${binding} (spec.policyName): the API server never evaluates it, so it admits everything; add a binding`,
      ...(at ? { ...(at.source ? { source: at.source } : {}), line: at.line, column: at.column } : {}),
    });
  });
  return out;
}
