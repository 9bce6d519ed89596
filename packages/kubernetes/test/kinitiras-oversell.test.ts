/**
 * kinitiras' resource oversell: the `resourcesOversell` override template (compiled into verdict's own
 * rules, compared with the CUE kinitiras renders from it, run by CUE) and the `resourceOversell` origin
 * overrider (rescaled requests and limits written back in resource.Quantity's canonical form).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PolicyLoadError } from '@verdict/core';
import { admissionReviewFor, createAdmissionWebhook, loadKubernetesPolicies, type KubernetesObject } from '@verdict/kubernetes';

type Json = Record<string, unknown>;
const API = 'policy.kcloudlabs.io/v1alpha1';
const RENDERED = (JSON.parse(readFileSync(new URL('./fixtures/kinitiras-rendered/rendered.json', import.meta.url), 'utf8')) as { templates: Array<{ template: Json; rendered: string }> }).templates;

const pod = (resources: Json | undefined, extra: Json = {}): KubernetesObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'nginx', ...(resources ? { resources } : {}) }, ...((extra['more'] as Json[] | undefined) ?? [])] } });
const deployment = (resources: Json | undefined): KubernetesObject => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'default' }, spec: { template: { spec: { containers: [{ name: 'c', image: 'nginx', ...(resources ? { resources } : {}) }] } } } });
const patchOf = (response: { patch?: string }) => JSON.parse(Buffer.from(response.patch ?? 'W10=', 'base64').toString('utf8')) as Json[];

async function review(overriders: Json, object: KubernetesObject) {
  const policies = [{ apiVersion: API, kind: 'ClusterOverridePolicy', metadata: { name: 'oversell' }, spec: { overrideRules: [{ overriders }] } }];
  return (await createAdmissionWebhook({ policies, mutating: true }).review(admissionReviewFor(object))).response;
}

const P = '/spec/containers/0/resources';
const D = '/spec/template/spec/containers/0/resources';
const FULL = { limits: { cpu: '2', memory: '1Gi', 'ephemeral-storage': '10Gi' }, requests: { cpu: '1', memory: '512Mi' } };

/** [name, template index in rendered.json, object, what kinitiras answers: the patch, or an error]. */
const CASES: Array<[string, number, KubernetesObject, Json[] | 'error']> = [
  ['requests from limits x factors (cpu in millicores, memory and disk in bytes, rounded half away from zero)', 0, pod(FULL), [
    { op: 'replace', path: `${P}/requests/cpu`, value: '1000m' },
    { op: 'replace', path: `${P}/requests/memory`, value: 214748365 },
    { op: 'add', path: `${P}/requests/ephemeral-storage`, value: 1073741824 },
  ]],
  ['a Deployment\'s first container, its requests made first; no disk limit, no disk request', 0, deployment({ limits: { cpu: '500m', memory: '300M' } }), [
    { op: 'add', path: `${D}/requests`, value: {} },
    { op: 'add', path: `${D}/requests/cpu`, value: '250m' },
    { op: 'add', path: `${D}/requests/memory`, value: 60000000 },
  ]],
  ['a cpu request of "0" stays 0; a plain memory limit is bytes', 0, pod({ limits: { cpu: '4', memory: '1000' }, requests: { cpu: '0' } }), [
    { op: 'replace', path: `${P}/requests/cpu`, value: '0m' },
    { op: 'add', path: `${P}/requests/memory`, value: 200 },
  ]],
  ['no memory limit: the rendered CUE cannot compute the memory request', 0, pod({ limits: { cpu: '1' } }), 'error'],
  ['no limits at all with only a cpu factor: "0m"', 2, pod(undefined), [
    { op: 'add', path: P, value: {} },
    { op: 'add', path: `${P}/requests`, value: {} },
    { op: 'add', path: `${P}/limits`, value: {} },
    { op: 'add', path: `${P}/requests/cpu`, value: '0m' },
  ]],
  ['exact decimals: 1 x 0.3 is 300m', 2, pod({ limits: { cpu: '1' }, requests: {} }), [{ op: 'add', path: `${P}/requests/cpu`, value: '300m' }]],
  ['remove drops the requests the factors name', 1, pod(FULL), [
    { op: 'remove', path: `${P}/requests/cpu` },
    { op: 'remove', path: `${P}/requests/memory` },
  ]],
  ['a cpu limit strconv.Atoi cannot read fails the request', 0, pod({ limits: { cpu: '1.5', memory: '1Gi' }, requests: {} }), 'error'],
  ['a memory suffix the template does not know counts as 0', 0, pod({ limits: { cpu: '1', memory: '1k' }, requests: {} }), [
    { op: 'add', path: `${P}/requests/cpu`, value: '500m' },
    { op: 'add', path: `${P}/requests/memory`, value: 0 },
  ]],
  ['a factor outside (0, 1) still applies when another is valid; add works as replace', 3, pod({ limits: { cpu: '3', memory: '2Gi' }, requests: {} }), [
    { op: 'add', path: `${P}/requests/cpu`, value: '4500m' },
    { op: 'add', path: `${P}/requests/memory`, value: 1073741824 },
  ]],
  ['no valid factor: the rule is skipped, its resources still made', 4, pod({ limits: { cpu: '1' } }), [{ op: 'add', path: `${P}/requests`, value: {} }]],
  ['an ephemeral-storage limit of "0" leaves the rendered CUE undecided', 0, pod({ limits: { cpu: '1', memory: '1Gi', 'ephemeral-storage': '0' }, requests: {} }), 'error'],
  ['a cpu request written as a number cannot be compared with "0" (CUE: invalid operands)', 2, pod({ limits: { cpu: '2' }, requests: { cpu: 0 } }), 'error'],
  ['remove needs no memory limit (the memory request is not computed)', 1, pod({ limits: { cpu: '1' }, requests: { cpu: '1' } }), [{ op: 'remove', path: `${P}/requests/cpu` }]],
  ['a cpu limit written as a number is not a string to strings.HasSuffix', 0, pod({ limits: { cpu: 2, memory: '1Gi' }, requests: {} }), 'error'],
];

describe('the resourcesOversell template', () => {
  it.each(CASES)('%s', async (_name, index, object, expected) => {
    const { template, rendered } = RENDERED[index]!;
    const ours = await review({ template }, object);
    const theirs = await review({ template, renderedCue: rendered }, object);
    if (expected === 'error') {
      expect(ours.allowed).toBe(false);
      expect(ours.status?.code).toBe(500);
      expect(theirs.allowed).toBe(false);
      expect(theirs.status?.code).toBe(500);
      return;
    }
    expect(ours.allowed).toBe(true);
    expect(patchOf(ours)).toEqual(expected);
    expect(theirs.allowed).toBe(true);
    expect(patchOf(theirs)).toEqual(expected);
  }, 60_000);

  it('refuses a factor that is not a number', () => {
    const load = () => loadKubernetesPolicies([{ apiVersion: API, kind: 'ClusterOverridePolicy', metadata: { name: 'o' }, spec: { overrideRules: [{ overriders: { template: { type: 'resourcesOversell', operation: 'replace', resourcesOversell: { cpuFactor: 'half' } } } }] } }]);
    expect(load).toThrow(PolicyLoadError);
    expect(load).toThrow(/resourcesOversell\/cpuFactor: a factor is a number written as a string/);
  });
});

describe('the resourceOversell origin overrider', () => {
  const origin = (o: Json) => ({ origin: [{ type: 'resourceOversell', operation: 'replace', ...o }] });

  it('rescales cpu in millicores and bytes in BinarySI, and writes every quantity canonically', async () => {
    const object = pod({ limits: { cpu: '2', memory: '1Gi', 'ephemeral-storage': '10G' }, requests: { cpu: '0.5', memory: '1024Mi', storage: '3', 'nvidia.com/gpu': '1' } });
    const response = await review(origin({ resourcesOversell: { requests: { cpu: '0.5', memory: '0.5', storage: '0.7' }, limits: { 'ephemeral-storage': '0.25' } } }), object);
    expect(patchOf(response)).toEqual([{ op: 'replace', path: P, value: {
      // limits: cpu kept as written ("2" is canonical); 10G x 0.25 is 2500000000 bytes, BinarySI, not a multiple of 1024.
      limits: { cpu: '2', memory: '1Gi', 'ephemeral-storage': '2500000000' },
      // requests: 500m x 0.5 = 250m; 1Gi x 0.5 = 512Mi; int64(3 x 0.7) = 2; the gpu rewritten untouched.
      requests: { cpu: '250m', memory: '512Mi', storage: '2', 'nvidia.com/gpu': '1' },
    } }]);
  });

  it('reads the container named by containerCount, of a Deployment too, and leaves zero quantities alone', async () => {
    const second = { name: 'b', image: 'busybox', resources: { limits: { cpu: '1500m', memory: '0' } } };
    const response = await review(origin({ containerCount: 1, resourcesOversell: { limits: { cpu: '0.33', memory: '0.5' } } }), pod({}, { more: [second] }));
    expect(patchOf(response)).toEqual([{ op: 'replace', path: '/spec/containers/1/resources', value: { limits: { cpu: '495m', memory: '0' } } }]);
    const d = await review(origin({ resourcesOversell: { requests: { cpu: '0.5' } } }), deployment({ requests: { cpu: 3 } }));
    expect(patchOf(d)).toEqual([{ op: 'replace', path: D, value: { requests: { cpu: '1500m' } } }]);
  });

  it('answers kinitiras\' errors: add and remove, other kinds, a missing container', async () => {
    for (const [o, object] of [
      [origin({ operation: 'add', resourcesOversell: {} }), pod({})],
      [origin({ resourcesOversell: {} }), { apiVersion: 'v1', kind: 'Service', metadata: { name: 's', namespace: 'default' } }],
      [origin({ containerCount: 3, resourcesOversell: {} }), pod({})],
      [origin({ resourcesOversell: { requests: { cpu: '0.5' } } }), pod({ requests: { cpu: 'lots' } })],
    ] as Array<[Json, KubernetesObject]>) {
      const response = await review(o, object);
      expect(response.allowed).toBe(false);
      expect(response.status?.code).toBe(500);
    }
  });

  it('refuses a factor that is not a number written as a string', () => {
    const load = () => loadKubernetesPolicies([{ apiVersion: API, kind: 'ClusterOverridePolicy', metadata: { name: 'o' }, spec: { overrideRules: [{ overriders: origin({ resourcesOversell: { requests: { cpu: 0.5 } } }) }] } }]);
    expect(load).toThrow(/resourcesOversell\/requests\/cpu: a factor is a number written as a string, like "0.5" \(got 0.5\)/);
  });
});
