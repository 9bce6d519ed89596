/** Builders for Kyverno ValidatingPolicy tests: policies and Pod controllers as users write them. */
import type { KubernetesObject } from '@verdict/kubernetes';
import { uniqueName } from './helpers.js';

/** Pods, CREATE and UPDATE: the matchConstraints of most kyverno/policies ValidatingPolicies (autogen applies). */
export const PODS = { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['pods'] }] };

/** A ValidatingPolicy (`policies.kyverno.io/v1`) on Pods, with `spec` merged over it. */
export function validatingPolicy(name: string, spec: Record<string, unknown>, extra: { kind?: string; apiVersion?: string; namespace?: string } = {}): Record<string, unknown> {
  return {
    apiVersion: extra.apiVersion ?? 'policies.kyverno.io/v1',
    kind: extra.kind ?? 'ValidatingPolicy',
    metadata: { name, ...(extra.namespace ? { namespace: extra.namespace } : {}) },
    spec: { matchConstraints: PODS, ...spec },
  };
}

/** Every image must have a tag other than latest (kyverno/policies' disallow-latest-tag, shortened). */
export const NO_LATEST = {
  validations: [{ expression: "object.spec.containers.all(c, c.image.contains(':') && !c.image.endsWith(':latest'))", message: 'An image tag other than latest is required.' }],
};

const containers = (image: string) => [{ name: 'app', image }];

/** A Pod template of `image`. */
const template = (image: string) => ({ metadata: { labels: { app: 'web' } }, spec: { containers: containers(image) } });

/** A workload of `kind` whose pods run `image` (CronJobs nest the template under jobTemplate). */
export function controller(kind: string, image: string, namespace = 'default'): KubernetesObject {
  const group: Record<string, string> = { Deployment: 'apps/v1', StatefulSet: 'apps/v1', DaemonSet: 'apps/v1', ReplicaSet: 'apps/v1', Job: 'batch/v1', CronJob: 'batch/v1', ReplicationController: 'v1' };
  const spec = kind === 'CronJob' ? { schedule: '* * * * *', jobTemplate: { spec: { template: template(image) } } } : { template: template(image) };
  return { apiVersion: group[kind] ?? 'v1', kind, metadata: { name: uniqueName(kind.toLowerCase()), namespace }, spec };
}

/** A Pod running `image`. */
export function podWith(image: string, extra: { namespace?: string; labels?: Record<string, string> } = {}): KubernetesObject {
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name: uniqueName('pod'), namespace: extra.namespace ?? 'default', ...(extra.labels ? { labels: extra.labels } : {}) },
    spec: { containers: containers(image) },
  };
}
