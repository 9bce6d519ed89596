import { describe, expect, it } from 'vitest';
import {
  AdmissionError, admissionReviewFor, createAdmissionWebhook, InventoryCache, toAdmissionInput, type KubernetesObject,
} from '@verdict/kubernetes';

const service = (name: string, app: string, namespace = 'shop'): KubernetesObject => ({
  apiVersion: 'v1', kind: 'Service', metadata: { name, namespace }, spec: { selector: { app } },
});
const ingressClass = (name: string): KubernetesObject => ({ apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass', metadata: { name } });

describe('InventoryCache', () => {
  function setup() {
    const cache = new InventoryCache({ objects: [service('web', 'web'), ingressClass('nginx')] });
    return { cache };
  }

  it('files objects in Gatekeeper\'s data.inventory layout, namespaced and cluster-scoped', () => {
    const { cache } = setup();
    expect(cache.size).toBe(2);
    expect(cache.data.namespace['shop']?.['v1']?.['Service']?.['web']).toEqual(service('web', 'web'));
    expect(cache.data.cluster['networking.k8s.io/v1']?.['IngressClass']?.['nginx']).toEqual(ingressClass('nginx'));
    expect(cache.get('v1', 'Service', 'web', 'shop')).toBe(cache.data.namespace['shop']?.['v1']?.['Service']?.['web']);
    expect(cache.get('networking.k8s.io/v1', 'IngressClass', 'nginx')).toBeDefined();
  });

  it('files an object in the namespace it is given, whatever its metadata says', () => {
    const { cache } = setup();
    const bare = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings' } };
    cache.set(bare, 'default');
    expect(cache.get('v1', 'ConfigMap', 'settings', 'default')).toBe(bare);
    expect(cache.get('v1', 'ConfigMap', 'settings')).toBeUndefined();
  });

  it('replaces an object with the same keys instead of counting it twice', () => {
    const { cache } = setup();
    cache.set(service('web', 'web-v2'));
    expect(cache.size).toBe(2);
    expect(cache.get('v1', 'Service', 'web', 'shop')?.['spec']).toEqual({ selector: { app: 'web-v2' } });
  });

  it('forgets deleted objects and prunes the levels they leave empty', () => {
    const { cache } = setup();
    expect(cache.delete(service('web', 'ignored'))).toBe(true);
    expect(cache.delete(service('web', 'ignored'))).toBe(false);
    expect(Object.keys(cache.data.namespace)).toEqual([]);
    expect(cache.delete(ingressClass('nginx'))).toBe(true);
    expect(Object.keys(cache.data.cluster)).toEqual([]);
    expect(cache.size).toBe(0);
  });

  it('applies watch events: ADDED and MODIFIED store, DELETED forgets, BOOKMARK and ERROR are ignored', () => {
    const { cache } = setup();
    cache.apply({ type: 'ADDED', object: service('api', 'api') });
    cache.apply({ type: 'MODIFIED', object: service('api', 'api-v2') });
    cache.apply({ type: 'BOOKMARK', object: { apiVersion: 'v1', kind: 'Service', metadata: { resourceVersion: '12' } } });
    expect(cache.get('v1', 'Service', 'api', 'shop')?.['spec']).toEqual({ selector: { app: 'api-v2' } });
    cache.apply({ type: 'DELETED', object: service('api', 'api-v2') });
    expect(cache.get('v1', 'Service', 'api', 'shop')).toBeUndefined();
    expect(cache.size).toBe(2);
  });

  it('replaces its whole content all or nothing', () => {
    const { cache } = setup();
    expect(() => cache.replace([service('a', 'a'), { apiVersion: 'v1', kind: 'Service', metadata: {} }])).toThrow(AdmissionError);
    expect(cache.size).toBe(2);
    cache.replace([service('a', 'a')]);
    expect(cache.size).toBe(1);
    expect(cache.get('v1', 'Service', 'web', 'shop')).toBeUndefined();
  });

  it('refuses an object without apiVersion, kind or metadata.name, saying what is missing', () => {
    const { cache } = setup();
    expect(() => cache.set({ apiVersion: 'v1', kind: 'Pod', metadata: { generateName: 'web-' } })).toThrow(/needs apiVersion, kind and metadata\.name \(got Pod ""\)/);
    expect(() => cache.set(null as unknown as KubernetesObject)).toThrow(/got null/);
  });

  it('keeps names such as __proto__ as plain keys, polluting no prototype', () => {
    const { cache } = setup();
    cache.set({ apiVersion: 'v1', kind: '__proto__', metadata: { name: 'constructor', namespace: '__proto__' } });
    expect(cache.get('v1', '__proto__', 'constructor', '__proto__')).toBeDefined();
    expect(({} as Record<string, unknown>)['v1']).toBeUndefined();
    expect(Object.getPrototypeOf(cache.data.namespace)).toBeNull();
  });
});

const UNIQUE_APP = `
apiVersion: verdict.dev/v1
kind: Policy
metadata: {name: unique-service-app}
spec:
  match: {kinds: [{apiGroups: [""], kinds: [Service]}]}
  validate:
    - name: unique
      rule:
        none:
          - {entries: {get: [{var: inventory.namespace}, [{var: namespace}, v1, Service], {}]}}
          - and:
              - {"!=": [{var: key}, {input: name}]}
              - {"==": [{var: value.spec.selector.app}, {input: object.spec.selector.app}]}
      message: 'selects app {{object.spec.selector.app}} like another Service'
`;

describe('the webhook\'s inventory option', () => {
  function setup() {
    const cache = new InventoryCache({ objects: [service('web', 'web')] });
    const webhook = createAdmissionWebhook({ policies: UNIQUE_APP, inventory: cache });
    const review = async (object: KubernetesObject) => (await webhook.review(admissionReviewFor(object))).response;
    return { cache, webhook, review };
  }

  it('lets a policy deny an object that conflicts with another object of the inventory', async () => {
    const { review } = setup();
    expect(await review(service('web-copy', 'web'))).toMatchObject({ allowed: false, status: { message: '[unique-service-app] selects app web like another Service' } });
    expect((await review(service('web', 'web'))).allowed).toBe(true);
    expect((await review(service('web-copy', 'web', 'other'))).allowed).toBe(true);
  });

  it('shows every change of the cache in the next review', async () => {
    const { cache, review } = setup();
    cache.delete(service('web', 'web'));
    expect((await review(service('web-copy', 'web'))).allowed).toBe(true);
  });

  it('takes a function returning the inventory for each review', async () => {
    const other = new InventoryCache({ objects: [service('api', 'api')] });
    const webhook = createAdmissionWebhook({ policies: UNIQUE_APP, inventory: () => other.data });
    expect((await webhook.review(admissionReviewFor(service('api-copy', 'api')))).response.allowed).toBe(false);
  });

  it('leaves inventory off the input when none is given, and refuses an option of the wrong type', () => {
    const inputs: unknown[] = [];
    const webhook = createAdmissionWebhook({ policies: UNIQUE_APP, onDecision: ({ input }) => inputs.push(input) });
    void webhook.review(admissionReviewFor(service('a', 'a')));
    expect(inputs[0]).not.toHaveProperty('inventory');
    expect(() => createAdmissionWebhook({ policies: UNIQUE_APP, inventory: {} as never })).toThrow(/inventory must be an InventoryCache or a function/);
  });

  it('toAdmissionInput puts a given inventory on the input', () => {
    const { cache } = setup();
    expect(toAdmissionInput(admissionReviewFor(service('b', 'b')), { inventory: cache.data }).inventory).toBe(cache.data);
  });
});
