/**
 * Gatekeeper match blocks without labelSelector or name give core a selection
 * key (kind, namespace, the namespace's frozen labels, which objects are
 * present): a constraint's matching and parameterSelection are remembered per
 * key. A long-lived webhook must answer every request as a fresh one does.
 */
import { describe, expect, it } from 'vitest';
import { admissionReviewFor, createAdmissionWebhook, NamespaceCache, type AdmissionReviewOptions, type KubernetesObject } from '@verdict/kubernetes';
import { namespace, pod } from './helpers.js';

const TEMPLATE = {
  apiVersion: 'verdict.dev/v1',
  kind: 'PolicyTemplate',
  metadata: { name: 'k8smemorylimits' },
  spec: {
    kind: 'K8sMemoryLimits',
    validate: [{
      name: 'limit',
      forEach: { var: 'object.spec.containers' },
      rule: { '<=': [{ quantity: { var: 'element.resources.limits.memory' } }, { quantity: { var: 'parameters.limit' } }] },
      message: 'over {{parameters.limit}}',
    }],
  },
};

const byProject = (name: string, match: Record<string, unknown>) => ({
  kind: 'K8sMemoryLimits',
  metadata: { name },
  spec: {
    match: { kinds: [{ apiGroups: [''], kinds: ['Pod', 'Namespace'] }], ...match },
    parameters: { limit: '1Gi' },
    parameterSelection: [
      { match: { namespaceSelector: { matchLabels: { project: 'big' } } }, parameters: { limit: '8Gi' } },
      { match: { namespaceSelector: { matchExpressions: [{ key: 'project', operator: 'In', values: ['medium', 'big'] }] } }, parameters: { limit: '4Gi' } },
    ],
  },
});

const POLICIES = [
  TEMPLATE,
  byProject('by-project', { namespaceSelector: { matchExpressions: [{ key: 'project', operator: 'NotIn', values: ['system'] }] }, excludedNamespaces: ['kube-*'] }),
  // labelSelector reads each object: this one is matched on every review.
  byProject('labelled', { labelSelector: { matchLabels: { tier: 'web' } }, scope: 'Namespaced' }),
];

function cache(): NamespaceCache {
  const namespaces = new NamespaceCache();
  namespaces.set('team-big', { project: 'big' });
  namespaces.set('team-medium', { project: 'medium' });
  namespaces.set('team-small', { project: 'small' });
  namespaces.set('platform', { project: 'system' });
  namespaces.set('kube-public', {});
  return namespaces;
}

const memory = (m: string, ns: string, labels?: Record<string, string>) => pod({ name: `p-${m}`, namespace: ns, memory: m, ...(labels ? { labels } : {}) });

/** Reviews covering every part the key must tell apart. */
function reviews(): Array<[KubernetesObject | null, AdmissionReviewOptions]> {
  const out: Array<[KubernetesObject | null, AdmissionReviewOptions]> = [];
  for (const ns of ['team-big', 'team-medium', 'team-small', 'platform', 'kube-public', 'unknown']) {
    for (const m of ['512Mi', '2Gi', '6Gi', '16Gi']) {
      out.push([memory(m, ns), {}]);
      out.push([memory(m, ns, { tier: 'web' }), {}]);
    }
    // DELETE: only oldObject is set.
    out.push([null, { operation: 'DELETE', oldObject: memory('6Gi', ns), namespace: ns, name: 'p-6Gi' }]);
  }
  // A Namespace is matched by its own labels, never by a remembered key.
  for (const labels of [{ project: 'big' }, { project: 'system' }, {}] as Array<Record<string, string>>) out.push([namespace('team-new', labels), {}]);
  return out;
}

async function answer(webhook: ReturnType<typeof createAdmissionWebhook>, [object, options]: [KubernetesObject | null, AdmissionReviewOptions]) {
  const { response } = await webhook.review(admissionReviewFor(object, { ...options, uid: 'u' }));
  return { allowed: response.allowed, message: response.status?.message ?? '', warnings: response.warnings ?? [] };
}

describe('remembered Gatekeeper matching', () => {
  it('answers every request of a long-lived webhook as a fresh webhook does, in any order', async () => {
    const namespaces = cache();
    const longLived = createAdmissionWebhook({ policies: POLICIES, namespaceLabels: namespaces });
    const cases = reviews();
    const expected = await Promise.all(cases.map((c) => answer(createAdmissionWebhook({ policies: POLICIES, namespaceLabels: namespaces }), c)));
    // The cases tell the parameters apart (a denial names the limit), and one namespace is unknown (a match error).
    expect(new Set(expected.map((e) => e.message.match(/over \dGi/)?.[0]))).toEqual(new Set([undefined, 'over 1Gi', 'over 4Gi', 'over 8Gi']));
    expect(expected.some((e) => e.message.includes('namespace lookup does not know it'))).toBe(true);
    for (let round = 0; round < 3; round++) {
      const order = cases.map((_, i) => (i * 7 + round * 5) % cases.length);
      for (const i of order) expect(await answer(longLived, cases[i]!), `case ${i} in round ${round}`).toEqual(expected[i]);
    }
  });

  it('follows a namespace whose labels the cache replaces', async () => {
    const namespaces = cache();
    const webhook = createAdmissionWebhook({ policies: POLICIES, namespaceLabels: namespaces });
    const review: [KubernetesObject, AdmissionReviewOptions] = [memory('6Gi', 'team-medium'), {}];
    expect((await answer(webhook, review)).message).toContain('over 4Gi');
    namespaces.set('team-medium', { project: 'big' });
    expect((await answer(webhook, review)).allowed).toBe(true);
    namespaces.set('team-medium', { project: 'system' });
    expect((await answer(webhook, review)).allowed).toBe(true);
    namespaces.set('team-medium', { project: 'small' });
    expect((await answer(webhook, review)).message).toContain('over 1Gi');
  });

  it('follows labels a lookup changes in place (labels that are not frozen are never a key)', async () => {
    const labels: Record<string, string> = { project: 'medium' };
    const webhook = createAdmissionWebhook({ policies: POLICIES, namespaceLabels: () => labels });
    const review: [KubernetesObject, AdmissionReviewOptions] = [memory('6Gi', 'team-x'), {}];
    expect((await answer(webhook, review)).message).toContain('over 4Gi');
    labels['project'] = 'big';
    expect((await answer(webhook, review)).allowed).toBe(true);
    labels['project'] = 'small';
    expect((await answer(webhook, review)).message).toContain('over 1Gi');
  });
});
