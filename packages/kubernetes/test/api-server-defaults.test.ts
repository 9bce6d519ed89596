import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { admissionReviewFor, applyApiServerDefaults, type KubernetesObject } from '@verdict/kubernetes';
// @ts-expect-error: a plain ES module script without declarations
import { generate } from '../../../scripts/kubernetes-defaults/generate.mjs';

const ROOT = join(__dirname, '../../..');

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

const deployment = (spec: Record<string, unknown> = {}, container: Record<string, unknown> = {}): KubernetesObject => ({
  apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' },
  spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: 'nginx:1.27', ...container }] } }, ...spec },
});

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('applyApiServerDefaults', () => {
  it('gives a Deployment the defaults of SetDefaults_Deployment, its PodSpec and its containers, and leaves the input as it was', () => {
    const input = deepFreeze(deployment());
    const out = applyApiServerDefaults(input) as Json;
    expect(out['spec']).toMatchObject({
      replicas: 1, revisionHistoryLimit: 10, progressDeadlineSeconds: 600,
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } },
    });
    expect(out['spec'].template.spec).toMatchObject({ dnsPolicy: 'ClusterFirst', restartPolicy: 'Always', schedulerName: 'default-scheduler', terminationGracePeriodSeconds: 30, securityContext: {} });
    expect(out['spec'].template.spec.containers[0]).toEqual({
      name: 'app', image: 'nginx:1.27', imagePullPolicy: 'IfNotPresent', terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File',
    });
    expect((input['spec'] as Json)['replicas']).toBeUndefined();
  });

  it('keeps what is set, and replaces a zero value only where Kubernetes compares with the zero value', () => {
    const out = applyApiServerDefaults(deployment({ replicas: 0, strategy: { type: 'Recreate' } }, { livenessProbe: { timeoutSeconds: 0, periodSeconds: 5, exec: { command: ['true'] } } })) as Json;
    // replicas is a pointer (nil check): 0 stays; timeoutSeconds is not (== 0 check): 0 becomes 1.
    expect(out['spec'].replicas).toBe(0);
    expect(out['spec'].strategy).toEqual({ type: 'Recreate' });
    expect(out['spec'].template.spec.containers[0].livenessProbe).toEqual({ timeoutSeconds: 1, periodSeconds: 5, successThreshold: 1, failureThreshold: 3, exec: { command: ['true'] } });
  });

  it.each([
    ['nginx', 'Always'], ['nginx:latest', 'Always'], ['registry:5000/team/nginx', 'Always'], ['nginx:1.27', 'IfNotPresent'],
    ['nginx@sha256:0d17b565c37bcbd895e9d92315a05c1c3c9a29f762b011a10c54a66cd53c9b31', 'IfNotPresent'], ['registry:5000/nginx:latest@sha256:0d17', 'Always'],
  ])('pulls image %s with policy %s, as SetDefaults_Container reads its tag', (image, policy) => {
    const out = applyApiServerDefaults(deployment({}, { image })) as Json;
    expect(out['spec'].template.spec.containers[0].imagePullPolicy).toBe(policy);
  });

  it('defaults Service ports and the traffic policies by type', () => {
    const service = (spec: Json) => applyApiServerDefaults({ apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec }) as Json;
    expect(service({ ports: [{ port: 80 }, { port: 443, targetPort: 'https', protocol: 'UDP' }] })['spec']).toEqual({
      type: 'ClusterIP', sessionAffinity: 'None', internalTrafficPolicy: 'Cluster',
      ports: [{ port: 80, targetPort: 80, protocol: 'TCP' }, { port: 443, targetPort: 'https', protocol: 'UDP' }],
    });
    expect(service({ type: 'LoadBalancer', ports: [] })['spec']).toMatchObject({ externalTrafficPolicy: 'Cluster', allocateLoadBalancerNodePorts: true });
    expect(service({ externalIPs: ['1.2.3.4'] })['spec'].externalTrafficPolicy).toBe('Cluster');
    expect(service({ type: 'ExternalName', externalName: 'x.example' })['spec']).toEqual({ type: 'ExternalName', externalName: 'x.example', sessionAffinity: 'None' });
    expect(service({ sessionAffinity: 'ClientIP' })['spec'].sessionAffinityConfig).toEqual({ clientIP: { timeoutSeconds: 10800 } });
  });

  it('gives a Pod requests from its limits, host ports on the host network, and a Namespace its name label', () => {
    const pod = applyApiServerDefaults({
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' },
      spec: { hostNetwork: true, containers: [{ name: 'a', image: 'a:1', ports: [{ containerPort: 8080 }], resources: { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '500m' } } }] },
    }) as Json;
    expect(pod['spec'].containers[0].resources).toEqual({ limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '500m', memory: '1Gi' } });
    expect(pod['spec'].containers[0].ports).toEqual([{ containerPort: 8080, hostPort: 8080, protocol: 'TCP' }]);
    expect(pod['spec'].enableServiceLinks).toBe(true);
    const ns = applyApiServerDefaults({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop', labels: { team: 'a' } } }) as Json;
    expect(ns['metadata'].labels).toEqual({ team: 'a', 'kubernetes.io/metadata.name': 'shop' });
  });

  it('defaults Jobs, CronJobs, NetworkPolicies and RBAC bindings', () => {
    const job = applyApiServerDefaults({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j' }, spec: { template: { metadata: { labels: { app: 'j' } }, spec: { restartPolicy: 'Never', containers: [] } } } }) as Json;
    expect(job['spec']).toMatchObject({ completions: 1, parallelism: 1, backoffLimit: 6, completionMode: 'NonIndexed', suspend: false });
    expect(job['metadata'].labels).toEqual({ app: 'j' });
    const parallel = applyApiServerDefaults({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j' }, spec: { parallelism: 3, template: { spec: { containers: [] } } } }) as Json;
    expect(parallel['spec'].completions).toBeUndefined();
    const cron = applyApiServerDefaults({ apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'c' }, spec: { schedule: '* * * * *', jobTemplate: { spec: { template: { spec: { containers: [{ name: 'a', image: 'a' }] } } } } } }) as Json;
    expect(cron['spec']).toMatchObject({ concurrencyPolicy: 'Allow', suspend: false, successfulJobsHistoryLimit: 3, failedJobsHistoryLimit: 1 });
    expect(cron['spec'].jobTemplate.spec.template.spec.containers[0].imagePullPolicy).toBe('Always');
    expect(cron['spec'].jobTemplate.spec.backoffLimit).toBeUndefined(); // a JobTemplateSpec is not a Job: SetDefaults_Job does not run on it
    const np = applyApiServerDefaults({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'n' }, spec: { egress: [{ ports: [{ port: 53 }] }] } }) as Json;
    expect(np['spec']).toEqual({ policyTypes: ['Ingress', 'Egress'], egress: [{ ports: [{ port: 53, protocol: 'TCP' }] }] });
    const binding = applyApiServerDefaults({
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'b' },
      roleRef: { kind: 'Role', name: 'r' }, subjects: [{ kind: 'User', name: 'u' }, { kind: 'ServiceAccount', name: 'sa' }],
    }) as Json;
    expect(binding['roleRef'].apiGroup).toBe('rbac.authorization.k8s.io');
    expect(binding['subjects']).toEqual([{ kind: 'User', name: 'u', apiGroup: 'rbac.authorization.k8s.io' }, { kind: 'ServiceAccount', name: 'sa' }]);
  });

  it('returns other kinds, other versions and non-objects as they are', () => {
    const crd = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: {} };
    expect(applyApiServerDefaults(crd)).toBe(crd);
    const beta = { apiVersion: 'apps/v1beta1', kind: 'Deployment', metadata: { name: 'w' }, spec: {} };
    expect(applyApiServerDefaults(beta)).toBe(beta);
    expect(applyApiServerDefaults(null)).toBeNull();
    expect(applyApiServerDefaults('text')).toBe('text');
  });

  it('copies keys such as __proto__ from the input as plain data', () => {
    const pod = JSON.parse('{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"a","image":"a:1","resources":{"limits":{"__proto__":{"polluted":true},"cpu":"1"}}}]}}') as KubernetesObject;
    const out = applyApiServerDefaults(pod) as Json;
    const requests = out['spec'].containers[0].resources.requests as Record<string, unknown>;
    expect(Object.keys(requests).sort()).toEqual(['__proto__', 'cpu']);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(Object.getPrototypeOf(requests)).toBe(Object.prototype);
  });

  it('defaults every element of long lists, and skips values of the wrong type instead of failing', () => {
    const big = deployment() as Json;
    big['spec'].template.spec.containers = Array.from({ length: 2000 }, (_, i) => (i === 7 ? 'not a container' : { name: `c${i}`, image: 'a:1', ports: [{ containerPort: 80 }] }));
    big['spec'].template.spec.volumes = 'not a list';
    const out = applyApiServerDefaults(big) as Json;
    expect(out['spec'].template.spec.containers[1999]).toMatchObject({ imagePullPolicy: 'IfNotPresent', ports: [{ containerPort: 80, protocol: 'TCP' }] });
    expect(out['spec'].template.spec.containers[7]).toBe('not a container');
    expect(out['spec'].template.spec.volumes).toBe('not a list');
  });
});

describe('admissionReviewFor with defaults', () => {
  it('sends the object and the old object as the API server defaults them, and only when asked', () => {
    const review = admissionReviewFor(deployment({ replicas: 2 }), { oldObject: deployment(), defaults: true });
    expect((review.request.object as Json)['spec'].replicas).toBe(2);
    expect((review.request.oldObject as Json)['spec'].replicas).toBe(1);
    expect((admissionReviewFor(deployment()).request.object as Json)['spec'].replicas).toBeUndefined();
  });
});

describe('the defaulting table', () => {
  it('is what scripts/kubernetes-defaults/generate.mjs makes of the extracted data', () => {
    const data = JSON.parse(readFileSync(join(ROOT, 'scripts/kubernetes-defaults/defaulting.json'), 'utf8')) as unknown;
    expect(readFileSync(join(ROOT, 'packages/kubernetes/src/defaults/table.ts'), 'utf8')).toBe((generate as (d: unknown) => string)(data));
  });
});
