import { describe, expect, it } from 'vitest';
import { PolicyLoadError } from '@verdict/core';
import { admissionReviewFor, createAdmissionWebhook, toAdmissionInput, type AdmissionReviewOptions, type KubernetesObject } from '@verdict/kubernetes';
import { flagPolicy, namespace, pod, webhookFor } from './helpers.js';

const NAMESPACES: Record<string, Record<string, string>> = {
  'team-a': { team: 'a', env: 'prod' },
  'team-b': { team: 'b' },
  'kube-system': { 'field.cattle.io/projectId': 'system' },
  default: {},
};

type Outcome = 'match' | 'no match' | 'error';

function setup(match: unknown) {
  const { run } = webhookFor({ policies: flagPolicy(match) as never, namespaceLabels: (name) => NAMESPACES[name] });
  const outcome = async (object: KubernetesObject | null, options: AdmissionReviewOptions = {}): Promise<Outcome> => {
    const { response } = await run(object, options);
    if (response.allowed) return 'no match';
    return response.status!.message!.includes('unable to match') ? 'error' : 'match';
  };
  return { outcome };
}

function loadProblems(match: unknown): string[] {
  try {
    createAdmissionWebhook({ policies: flagPolicy(match) as never });
  } catch (error) {
    expect(error).toBeInstanceOf(PolicyLoadError);
    return (error as PolicyLoadError).problems.map((p) => `${p.path}: ${p.message}`);
  }
  throw new Error('expected a load error');
}

const deployment = (ns = 'team-a'): KubernetesObject => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: ns }, spec: {} });
const clusterRole: KubernetesObject = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'reader' }, rules: [] };

describe('kinds', () => {
  it('matches a kind in the listed apiGroups only', async () => {
    const { outcome } = setup({ kinds: [{ apiGroups: [''], kinds: ['Pod'] }] });
    expect(await outcome(pod({ namespace: 'team-a' }))).toBe('match');
    expect(await outcome(deployment())).toBe('no match');
    const wrongGroup = setup({ kinds: [{ apiGroups: [''], kinds: ['Deployment'] }] });
    expect(await wrongGroup.outcome(deployment())).toBe('no match');
  });

  it('ORs entries and treats "*" as any kind or any group', async () => {
    const either = setup({ kinds: [{ apiGroups: [''], kinds: ['Pod'] }, { apiGroups: ['apps'], kinds: ['Deployment'] }] });
    expect(await either.outcome(deployment())).toBe('match');
    const star = setup({ kinds: [{ apiGroups: ['*'], kinds: ['*'] }] });
    expect(await star.outcome(clusterRole)).toBe('match');
  });

  it('matches every kind of a group when an entry lists apiGroups but no kinds', async () => {
    const { outcome } = setup({ kinds: [{ apiGroups: ['apps'] }] });
    expect(await outcome(deployment())).toBe('match');
    expect(await outcome(pod({ namespace: 'team-a' }))).toBe('no match');
  });

  it('matches a kind in any group when an entry lists kinds but no apiGroups, and everything with kinds: []', async () => {
    expect(await setup({ kinds: [{ kinds: ['Deployment'] }] }).outcome(deployment())).toBe('match');
    expect(await setup({ kinds: [] }).outcome(clusterRole)).toBe('match');
  });

  it('lets core skip policies of other kinds without evaluating them, and names the failing part in the trace', () => {
    const webhook = createAdmissionWebhook({ policies: flagPolicy({ kinds: [{ apiGroups: [''], kinds: ['Pod'] }] }) as never });
    const input = toAdmissionInput(admissionReviewFor(deployment()));
    expect(webhook.policies.evaluate(input).skipped).toBe(1);
    const explained = webhook.policies.evaluate(input, { explain: true });
    expect(explained.trace[0]!.mismatch).toEqual({ at: '/spec/match/kinds', selector: 'kinds: Pod in apiGroups ""' });
  });

  it('reports unknown fields in a kinds entry with a did-you-mean hint', () => {
    expect(loadProblems({ kinds: [{ apiGroup: [''], kinds: ['Pod'] }] })).toEqual(['/spec/match/kinds/0/apiGroup: unknown field "apiGroup" in a kinds entry; did you mean "apiGroups"?']);
  });
});

describe('scope', () => {
  it('Cluster matches Namespaces and cluster-scoped objects only', async () => {
    const { outcome } = setup({ scope: 'Cluster' });
    expect(await outcome(namespace('team-a'))).toBe('match');
    expect(await outcome(clusterRole)).toBe('match');
    expect(await outcome(pod({ namespace: 'team-a' }))).toBe('no match');
  });

  it('Namespaced matches namespaced objects but not Namespaces', async () => {
    const { outcome } = setup({ scope: 'Namespaced' });
    expect(await outcome(pod({ namespace: 'team-a' }))).toBe('match');
    expect(await outcome(namespace('team-a'))).toBe('no match');
    expect(await outcome(clusterRole)).toBe('no match');
  });

  it('"*" and "" match every scope', async () => {
    expect(await setup({ scope: '*' }).outcome(clusterRole)).toBe('match');
    expect(await setup({ scope: '' }).outcome(pod({ namespace: 'team-a' }))).toBe('match');
  });

  it('refuses a misspelt scope that Gatekeeper would silently treat as "*"', () => {
    expect(loadProblems({ scope: 'cluster' })[0]).toMatch(/^\/spec\/match\/scope: scope must be "\*", "Cluster" or "Namespaced" \(got "cluster"\); did you mean "Cluster"\?/);
  });
});

describe('namespaces and excludedNamespaces (Gatekeeper wildcards)', () => {
  it.each([
    ['kube-system', 'kube-system', true],
    ['kube-*', 'kube-system', true],
    ['*-system', 'kube-public', false],
    ['*-system', 'kube-system', true],
    ['*-kube-*', 'test-kube-test', true],
    ['*-kube-*', 'my-kub-controller', false],
    ['-kube-', 'test-kube-test', false],
    ['kube-', 'kube-system', false],
    ['*--*', 'my--namespace', true],
    ['**', 'team-a', true],
  ])('namespaces [%s] against a Pod in %s is %s', async (pattern, ns, expected) => {
    const { outcome } = setup({ namespaces: [pattern] });
    expect(await outcome(pod({ namespace: ns }))).toBe(expected ? 'match' : 'no match');
  });

  it('reads a Namespace object\'s own name, and never disqualifies other cluster-scoped objects', async () => {
    const { outcome } = setup({ namespaces: ['kube-*'] });
    expect(await outcome(namespace('kube-public'))).toBe('match');
    expect(await outcome(namespace('team-a'))).toBe('no match');
    expect(await outcome(clusterRole)).toBe('match');
  });

  it('excludes matching namespaces, Namespace objects by name, and never excludes cluster-scoped objects', async () => {
    const { outcome } = setup({ excludedNamespaces: ['kube-*', '*-b'] });
    expect(await outcome(pod({ namespace: 'kube-system' }))).toBe('no match');
    expect(await outcome(pod({ namespace: 'team-b' }))).toBe('no match');
    expect(await outcome(pod({ namespace: 'team-a' }))).toBe('match');
    expect(await outcome(namespace('kube-public'))).toBe('no match');
    expect(await outcome(clusterRole)).toBe('match');
  });

  it('refuses a "*" in the middle, which Gatekeeper wildcards do not support', () => {
    expect(loadProblems({ namespaces: ['kube*system'] })[0]).toMatch(/^\/spec\/match\/namespaces\/0: "kube\*system" has a "\*" in the middle/);
  });
});

describe('labelSelector', () => {
  it('matches the labels of the object, or else of the oldObject', async () => {
    const { outcome } = setup({ labelSelector: { matchLabels: { app: 'web' } } });
    const labelled = pod({ name: 'p', namespace: 'team-a', labels: { app: 'web' } });
    const plain = pod({ name: 'p', namespace: 'team-a' });
    expect(await outcome(labelled)).toBe('match');
    expect(await outcome(plain)).toBe('no match');
    expect(await outcome(plain, { oldObject: labelled })).toBe('match');
    expect(await outcome(labelled, { operation: 'DELETE' })).toBe('match');
  });

  it('matches everything with {} and treats missing labels as empty', async () => {
    expect(await setup({ labelSelector: {} }).outcome(pod({ namespace: 'team-a' }))).toBe('match');
    const absent = setup({ labelSelector: { matchExpressions: [{ key: 'app', operator: 'DoesNotExist' }] } });
    expect(await absent.outcome(pod({ namespace: 'team-a' }))).toBe('match');
  });

  it('reports a misspelt operator with a did-you-mean hint', () => {
    const problems = loadProblems({ labelSelector: { matchExpressions: [{ key: 'app', operator: 'NotIN', values: ['x'] }] } });
    expect(problems[0]).toMatch(/^\/spec\/match\/labelSelector\/matchExpressions\/0\/operator: "NotIN" is not a valid label selector operator.*did you mean "NotIn"\?/);
  });
});

describe('namespaceSelector', () => {
  it('matches the labels of the object\'s namespace from the host lookup, with kubernetes.io/metadata.name', async () => {
    const { outcome } = setup({ namespaceSelector: { matchLabels: { team: 'a' } } });
    expect(await outcome(pod({ namespace: 'team-a' }))).toBe('match');
    expect(await outcome(pod({ namespace: 'team-b' }))).toBe('no match');
    const byName = setup({ namespaceSelector: { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: ['team-b'] }] } });
    expect(await byName.outcome(pod({ namespace: 'team-b' }))).toBe('match');
  });

  it('matches a Namespace object by its own labels, and an UPDATE by old or new labels', async () => {
    const { outcome } = setup({ namespaceSelector: { matchLabels: { protected: 'true' } } });
    expect(await outcome(namespace('brand-new', { protected: 'true' }))).toBe('match');
    expect(await outcome(namespace('brand-new'))).toBe('no match');
    expect(await outcome(namespace('n'), { oldObject: namespace('n', { protected: 'true' }) })).toBe('match');
    expect(await setup({ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'brand-new' } } }).outcome(namespace('brand-new'))).toBe('match');
  });

  it('decides a namespaced object by its namespace whichever of object and oldObject the request carries', async () => {
    const { outcome } = setup({ namespaceSelector: { matchLabels: { team: 'a' } } });
    const deleted = (ns: string) => outcome(null, { operation: 'DELETE', oldObject: pod({ namespace: ns }), namespace: ns, name: 'p' });
    expect(await deleted('team-a')).toBe('match');
    expect(await deleted('team-b')).toBe('no match');
    expect(await deleted('ghost')).toBe('error');
    expect(await outcome(pod({ namespace: 'team-b' }), { operation: 'UPDATE', oldObject: pod({ namespace: 'team-b' }) })).toBe('no match');
    expect(await outcome(pod({ namespace: 'team-a' }), { operation: 'UPDATE', oldObject: pod({ namespace: 'team-a' }) })).toBe('match');
  });

  it('always matches cluster-scoped objects that are not Namespaces', async () => {
    expect(await setup({ namespaceSelector: { matchLabels: { team: 'nobody' } } }).outcome(clusterRole)).toBe('match');
  });

  it('is a match error (Gatekeeper\'s autoreject) for a namespaced object whose namespace is unknown, even with {}', async () => {
    expect(await setup({ namespaceSelector: {} }).outcome(pod({ namespace: 'ghost' }))).toBe('error');
    expect(await setup({ namespaceSelector: { matchLabels: { team: 'a' } } }).outcome(pod({ namespace: 'ghost' }))).toBe('error');
  });

  it('is not evaluated when an earlier matcher already failed', async () => {
    expect(await setup({ kinds: [{ kinds: ['Deployment'] }], namespaceSelector: {} }).outcome(pod({ namespace: 'ghost' }))).toBe('no match');
  });
});

describe('name', () => {
  it.each([
    ['web', 'web', true],
    ['web-*', 'web-1', true],
    ['*-db', 'orders-db', true],
    ['*ord*', 'my-orders-db', true],
    ['web', 'web-1', false],
    ['*', 'anything', true],
  ])('name %s against %s is %s', async (pattern, name, expected) => {
    expect(await setup({ name: pattern }).outcome(pod({ name, namespace: 'team-a' }))).toBe(expected ? 'match' : 'no match');
  });

  it('matches generateName with the prefix and contains forms only', async () => {
    const generated = pod({ generateName: 'web-', namespace: 'team-a' });
    expect(await setup({ name: 'web-*' }).outcome(generated)).toBe('match');
    expect(await setup({ name: '*eb-*' }).outcome(generated)).toBe('match');
    expect(await setup({ name: '*-' }).outcome(generated)).toBe('no match');
    expect(await setup({ name: 'web-' }).outcome(generated)).toBe('no match');
  });

  it('refuses a "*" in the middle', () => {
    expect(loadProblems({ name: 'web*db' })[0]).toMatch(/^\/spec\/match\/name: "web\*db" has a "\*" in the middle/);
  });
});

describe('source, objects and vocabulary', () => {
  it('treats admission requests as Original: Generated never matches, All and Original always do', async () => {
    expect(await setup({ source: 'Generated' }).outcome(pod({ namespace: 'team-a' }))).toBe('no match');
    expect(await setup({ source: 'Original' }).outcome(pod({ namespace: 'team-a' }))).toBe('match');
    expect(await setup({ source: 'All' }).outcome(pod({ namespace: 'team-a' }))).toBe('match');
    expect(loadProblems({ source: 'Orignal' })[0]).toMatch(/did you mean "Original"\?$/);
  });

  it('is a match error when the request has neither object nor oldObject', async () => {
    const { outcome } = setup({ kinds: [{ kinds: ['PodExecOptions'] }] });
    const connect = { kind: { group: '', version: 'v1', kind: 'PodExecOptions' }, resource: 'pods', subResource: 'exec', operation: 'CONNECT' as const, namespace: 'team-a', name: 'p', options: null };
    expect(await outcome(null, connect)).toBe('error');
  });

  it('needs labelSelector and namespaceSelector to hold on the same object of an UPDATE', async () => {
    const { outcome } = setup({ labelSelector: { matchLabels: { a: '1' } }, namespaceSelector: { matchLabels: { b: '2' } } });
    expect(await outcome(namespace('n', { b: '2' }), { oldObject: namespace('n', { a: '1' }) })).toBe('no match');
    expect(await outcome(namespace('n', { a: '1', b: '2' }), { oldObject: namespace('n', { a: '1' }) })).toBe('match');
  });

  it('reports unknown match keys with a did-you-mean hint', () => {
    expect(loadProblems({ kind: [{ kinds: ['Pod'] }] })[0]).toMatch(/^\/spec\/match\/kind: unknown match field "kind"; did you mean "kinds"\?/);
  });

  it('refuses Gatekeeper and webhook keys in one block, and accepts them in separate blocks', async () => {
    const problems = loadProblems({ kinds: [{ kinds: ['Pod'] }], rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] }] });
    expect(problems[0]).toMatch(/^\/spec\/match\/kinds: "kinds" is Gatekeeper match vocabulary but this block uses the webhook key "rules"/);
    const { outcome } = setup({ all: [{ kinds: [{ kinds: ['Pod'] }] }, { rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] }] });
    expect(await outcome(pod({ namespace: 'team-a' }))).toBe('match');
    expect(await outcome(pod({ namespace: 'team-a' }), { operation: 'DELETE' })).toBe('no match');
  });
});
