import { describe, expect, it } from 'vitest';
import { compilePolicies, type PolicyLoadError, parsePolicyDocuments } from '@verdict/core';
import {
  AdmissionError, admissionReviewFor, createAdmissionWebhook, kubernetesDialect, loadKubernetesPolicies, MUTATION_TARGET, NAMESPACE_NAME_LABEL,
  NamespaceCache, toAdmissionInput,
} from '@verdict/kubernetes';
import { checked, namespace, pod } from './helpers.js';

describe('toAdmissionInput', () => {
  it('builds the documented input for a Pod CREATE without copying the object', () => {
    const object = pod({ name: 'web-1', namespace: 'team-a', labels: { app: 'web' } });
    const review = admissionReviewFor(object, { uid: 'u-1', userInfo: { username: 'alice', groups: ['dev'] } });
    const input = toAdmissionInput(review, { namespaceLabels: { team: 'a' } });
    expect(input).toEqual({
      uid: 'u-1',
      kind: { group: '', version: 'v1', kind: 'Pod' },
      apiVersion: 'v1',
      resource: { group: '', version: 'v1', resource: 'pods' },
      subResource: '',
      requestKind: { group: '', version: 'v1', kind: 'Pod' },
      requestResource: { group: '', version: 'v1', resource: 'pods' },
      requestSubResource: '',
      operation: 'CREATE',
      name: 'web-1',
      namespace: 'team-a',
      scope: 'Namespaced',
      labels: { app: 'web' },
      annotations: {},
      namespaceLabels: { team: 'a', [NAMESPACE_NAME_LABEL]: 'team-a' },
      userInfo: { username: 'alice', groups: ['dev'] },
      object,
      oldObject: null,
      options: { apiVersion: 'meta.k8s.io/v1', kind: 'CreateOptions' },
      dryRun: false,
    });
    expect(input.object).toBe(object);
    expect(input.labels).toBe((object['metadata'] as { labels: unknown }).labels);
  });

  it('reads labels, annotations and the name from oldObject on DELETE', () => {
    const old = pod({ name: 'gone', namespace: 'team-a', labels: { app: 'db' } });
    const input = toAdmissionInput(admissionReviewFor(old, { operation: 'DELETE' }));
    expect(input).toMatchObject({ operation: 'DELETE', name: 'gone', labels: { app: 'db' }, object: null, oldObject: old, options: { kind: 'DeleteOptions' } });
    expect(input.namespaceLabels).toBeUndefined();
  });

  it('makes a Namespace its own namespace, with its own labels as namespaceLabels', () => {
    const input = toAdmissionInput(admissionReviewFor(namespace('prod', { env: 'prod' })), { namespaceLabels: { ignored: 'yes' } });
    expect(input).toMatchObject({ name: 'prod', namespace: 'prod', scope: 'Cluster', namespaceLabels: { env: 'prod', [NAMESPACE_NAME_LABEL]: 'prod' } });
  });

  it('gives cluster-scoped objects an empty namespace and no namespaceLabels', () => {
    const input = toAdmissionInput(admissionReviewFor({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'r' } }), { namespaceLabels: { a: 'b' } });
    expect(input).toMatchObject({ namespace: '', scope: 'Cluster', apiVersion: 'rbac.authorization.k8s.io/v1', resource: { resource: 'clusterroles' } });
    expect('namespaceLabels' in input).toBe(false);
  });

  it('fills userInfo.username and groups when the request leaves them out', () => {
    const review = admissionReviewFor(pod({ namespace: 'a' }), { userInfo: { uid: '42' } });
    expect(toAdmissionInput(review).userInfo).toEqual({ uid: '42', username: '', groups: [] });
  });

  it('throws AdmissionError for something that is not an AdmissionReview v1', () => {
    expect(() => toAdmissionInput({ kind: 'Pod' })).toThrow(AdmissionError);
    expect(() => toAdmissionInput(pod())).toThrow('expected apiVersion "admission.k8s.io/v1" and kind "AdmissionReview" (got apiVersion "v1", kind "Pod"); pass the AdmissionReview that wraps the object (admissionReviewFor builds one)');
  });
});

describe('admissionReviewFor', () => {
  it('fills a CREATE review as the apiserver sends it after kubectl apply', () => {
    const review = admissionReviewFor({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' } });
    expect(review).toMatchObject({
      apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview',
      request: {
        kind: { group: 'apps', version: 'v1', kind: 'Deployment' }, resource: { group: 'apps', version: 'v1', resource: 'deployments' },
        name: 'web', namespace: 'default', operation: 'CREATE', oldObject: null, dryRun: false,
        userInfo: { username: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] },
      },
    });
    expect(review.request.uid).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('infers UPDATE from an oldObject and DELETE from a null object, moving a DELETEd object to oldObject', () => {
    const p = pod({ name: 'p', namespace: 'a' });
    expect(admissionReviewFor(p, { oldObject: p }).request.operation).toBe('UPDATE');
    expect(admissionReviewFor(null, { oldObject: p }).request).toMatchObject({ operation: 'DELETE', object: null, oldObject: p });
    expect(admissionReviewFor(p, { operation: 'DELETE' }).request).toMatchObject({ object: null, oldObject: p, name: 'p' });
  });

  it.each([
    ['Ingress', 'ingresses'], ['NetworkPolicy', 'networkpolicies'], ['Endpoints', 'endpoints'], ['Gateway', 'gateways'], ['Pod', 'pods'],
  ])('guesses the resource of %s as %s', (kind, resource) => {
    expect(admissionReviewFor({ apiVersion: 'v1', kind, metadata: { name: 'x' } }).request.resource.resource).toBe(resource);
  });

  it('takes explicit kind, resource, subResource and namespace', () => {
    const review = admissionReviewFor(null, { operation: 'CONNECT', kind: { group: '', version: 'v1', kind: 'PodExecOptions' }, resource: 'pods', subResource: 'exec', namespace: 'a', name: 'p' });
    expect(review.request).toMatchObject({ resource: { resource: 'pods' }, subResource: 'exec', requestSubResource: 'exec', namespace: 'a', options: null, object: null });
  });

  it('refuses an object without apiVersion and kind', () => {
    expect(() => admissionReviewFor({ metadata: { name: 'x' } })).toThrow(new AdmissionError('INVALID_OPTIONS', 'admissionReviewFor needs an object with apiVersion and kind, or options.kind and options.resource'));
  });
});

describe('NamespaceCache', () => {
  function setup() {
    const asked: string[] = [];
    const cache = new NamespaceCache({ namespaces: [namespace('a', { team: 'a' })], fallback: (name) => (asked.push(name), name === 'late' ? { team: 'late' } : undefined) });
    return { cache, asked };
  }

  it('holds frozen labels with kubernetes.io/metadata.name, fed by hand, by watch events and by a list', () => {
    const { cache } = setup();
    expect(cache.get('a')).toEqual({ team: 'a', [NAMESPACE_NAME_LABEL]: 'a' });
    expect(Object.isFrozen(cache.get('a'))).toBe(true);
    cache.set('b', { team: 'b' });
    cache.apply({ type: 'MODIFIED', object: namespace('a', { team: 'aa' }) });
    cache.apply({ type: 'ADDED', object: namespace('c') });
    cache.apply({ type: 'BOOKMARK', object: {} });
    expect(cache.get('a')!['team']).toBe('aa');
    expect(cache.size).toBe(3);
    cache.apply({ type: 'DELETED', object: namespace('b') });
    expect(cache.get('b')).toBeUndefined();
    cache.replace([namespace('z')]);
    expect([cache.size, cache.get('a'), cache.get('z')]).toEqual([1, undefined, { [NAMESPACE_NAME_LABEL]: 'z' }]);
    expect(cache.delete('z')).toBe(true);
  });

  it('answers lookups from the cache first, then the fallback', () => {
    const { cache, asked } = setup();
    expect(cache.lookup('a')).toEqual({ team: 'a', [NAMESPACE_NAME_LABEL]: 'a' });
    expect(cache.lookup('late')).toEqual({ team: 'late' });
    expect(cache.lookup('ghost')).toBeUndefined();
    expect(asked).toEqual(['late', 'ghost']);
  });

  it('refuses a watch event without a Namespace name', () => {
    expect(() => setup().cache.apply({ type: 'ADDED', object: { kind: 'Namespace' } })).toThrow(AdmissionError);
  });

  it('can be given to createAdmissionWebhook directly', async () => {
    const cache = new NamespaceCache();
    const webhook = createAdmissionWebhook({
      policies: [{ apiVersion: 'verdict.dev/v1', kind: 'Policy', metadata: { name: 'p' }, spec: { match: { namespaceSelector: { matchLabels: { team: 'a' } } }, validate: [{ name: 'r', rule: false, message: 'no' }] } }],
      namespaceLabels: cache,
    });
    cache.set('x', { team: 'a' });
    expect((await checked(webhook, admissionReviewFor(pod({ namespace: 'x' })))).response.allowed).toBe(false);
  });
});

describe('loading policies', () => {
  const text = 'apiVersion: verdict.dev/v1\nkind: Policy\nmetadata: {name: p}\nspec:\n  match: {kinds: [{kinds: [Pod]}]}\n  validate: [{name: r, rule: true, message: m}]\n';

  it('loadKubernetesPolicies accepts text, documents and a compiled set', () => {
    const set = loadKubernetesPolicies(text, { source: 'p.yaml' });
    expect(set.mutationTarget).toBe(MUTATION_TARGET);
    expect(loadKubernetesPolicies(parsePolicyDocuments(text)).policies).toHaveLength(1);
    expect(loadKubernetesPolicies(set)).toBe(set);
  });

  it('names the source file and line of a problem', () => {
    try {
      loadKubernetesPolicies(text.replace('kinds: [{kinds: [Pod]}]', 'kinds: [{kinds: Pod}]'), { source: 'p.yaml' });
      expect.unreachable();
    } catch (error) {
      expect((error as PolicyLoadError).problems[0]).toMatchObject({ source: 'p.yaml', line: 5, path: '/spec/match/kinds/0/kinds', message: 'kinds must be a list of strings (got a string)' });
    }
  });

  it('kubernetesDialect works with compilePolicies, and a set patching something else than /object is refused', () => {
    const docs = parsePolicyDocuments(text);
    expect(compilePolicies(docs, { dialects: [kubernetesDialect], mutationTarget: '/object' }).policies[0]!.name).toBe('p');
    const other = compilePolicies(docs, { dialects: [kubernetesDialect] });
    expect(() => createAdmissionWebhook({ policies: other })).toThrow(/admission patches must address the object/);
  });
});
