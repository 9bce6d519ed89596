/** Builders for ValidatingAdmissionPolicy tests: documents and objects as users write them. */
import type { KubernetesObject } from '@verdict/kubernetes';
import { uniqueName } from './helpers.js';

const API = 'admissionregistration.k8s.io/v1';

/** Deployments in `apps/v1`, CREATE and UPDATE: the Kubernetes docs' matchConstraints. */
export const DEPLOYMENTS = { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['deployments'] }] };

export function policy(name: string, spec: Record<string, unknown>): Record<string, unknown> {
  return { apiVersion: API, kind: 'ValidatingAdmissionPolicy', metadata: { name }, spec: { matchConstraints: DEPLOYMENTS, ...spec } };
}

export function binding(name: string, policyName: string, spec: Record<string, unknown> = {}): Record<string, unknown> {
  return { apiVersion: API, kind: 'ValidatingAdmissionPolicyBinding', metadata: { name }, spec: { policyName, validationActions: ['Deny'], ...spec } };
}

export function deployment(options: { name?: string; namespace?: string; replicas?: number; labels?: Record<string, string>; image?: string } = {}): KubernetesObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: options.name ?? uniqueName('deploy'), namespace: options.namespace ?? 'default', ...(options.labels ? { labels: options.labels } : {}) },
    spec: { replicas: options.replicas ?? 1, template: { spec: { containers: [{ name: 'app', image: options.image ?? 'nginx' }] } } },
  };
}

export function configMap(name: string, data: Record<string, string>, extra: { namespace?: string; labels?: Record<string, string> } = {}): KubernetesObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...(extra.namespace ? { namespace: extra.namespace } : {}), ...(extra.labels ? { labels: extra.labels } : {}) }, data };
}
