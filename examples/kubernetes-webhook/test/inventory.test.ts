/**
 * The inventory: Ingresses and Services from a fake API server through the
 * client-node informers into an InventoryCache, and the example server
 * denying an Ingress whose host another Ingress in the cluster already uses
 * (gatekeeper-library's uniqueingresshost, ported).
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { admissionReviewFor, InventoryCache, type AdmissionReviewResponse, type KubernetesObject } from '@verdict/kubernetes';
import { inventoryKinds, syncInventory } from '../src/inventory.js';
import { startWebhookServer } from '../src/server.js';
import { fakeApiServer, type Listing } from './fake-api-server.js';
import { captureLogs, send } from './helpers.js';

const INGRESSES = '/apis/networking.k8s.io/v1/ingresses';
const SERVICES = '/api/v1/services';

/** An Ingress as a LIST item: no apiVersion or kind, a creationTimestamp. */
const ingress = (name: string, host: string, resourceVersion = '5'): KubernetesObject =>
  ({ metadata: { name, namespace: 'default', resourceVersion, creationTimestamp: '2026-01-02T03:04:05Z' }, spec: { rules: [{ host }] } }) as unknown as KubernetesObject;
const service = (name: string, namespace: string): KubernetesObject =>
  ({ metadata: { name, namespace, resourceVersion: '6' }, spec: { selector: { app: name } } }) as unknown as KubernetesObject;

async function setup() {
  const collections: Record<string, Listing> = {
    [INGRESSES]: () => ({ resourceVersion: '5', items: [ingress('taken', 'shop.example.com')] }),
    [SERVICES]: () => ({ resourceVersion: '6', items: [service('web', 'shop')] }),
  };
  const api = await fakeApiServer(collections);
  const cache = new InventoryCache();
  const sync = syncInventory(api.config(), cache, ['ingresses', 'services'], { retryMs: 20 });
  return {
    api, cache, sync,
    cleanup: async () => {
      await sync.stop();
      await api.close();
    },
  };
}

describe('the inventory through client-node informers', () => {
  it('lists every kind, stores plain objects with their apiVersion and kind, and applies watch events', async () => {
    const { api, cache, sync, cleanup } = await setup();
    try {
      await sync.synced;
      expect(sync.isSynced()).toBe(true);
      expect(cache.get('networking.k8s.io/v1', 'Ingress', 'taken', 'default')).toEqual({
        apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'taken', namespace: 'default', resourceVersion: '5', creationTimestamp: '2026-01-02T03:04:05.000Z' },
        spec: { rules: [{ host: 'shop.example.com' }] },
      });
      expect(cache.get('v1', 'Service', 'web', 'shop')?.['spec']).toEqual({ selector: { app: 'web' } });
      await expect.poll(() => api.watchers.map((w) => w.path).sort()).toEqual([SERVICES, INGRESSES]);
      const watch = (path: string) => api.watchers.find((w) => w.path === path)!;
      watch(SERVICES).send('ADDED', { apiVersion: 'v1', kind: 'Service', ...service('api', 'shop') });
      watch(INGRESSES).send('DELETED', { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', ...ingress('taken', 'shop.example.com', '7') });
      await expect.poll(() => [cache.size, cache.get('v1', 'Service', 'api', 'shop') !== undefined]).toEqual([2, true]);
      expect(cache.get('networking.k8s.io/v1', 'Ingress', 'taken', 'default')).toBeUndefined();
    } finally {
      await cleanup();
    }
  });

  it('takes the kinds from INVENTORY and refuses one it does not know', () => {
    expect(inventoryKinds(' ingresses, services,ingresses ')).toEqual(['ingresses', 'services']);
    expect(inventoryKinds(undefined)).toEqual([]);
    expect(() => inventoryKinds('ingresses,secrets')).toThrow('INVENTORY lists "secrets", expected some of ingresses, services');
  });
});

describe('the example server with an inventory', () => {
  it('denies an Ingress whose host an Ingress in the cluster already uses', async () => {
    const { cache, sync, cleanup } = await setup();
    const folder = mkdtempSync(join(tmpdir(), 'verdict-inventory-policies-'));
    const library = fileURLToPath(new URL('../../gatekeeper-library/uniqueingresshost/', import.meta.url));
    mkdirSync(join(folder, 'validating'));
    mkdirSync(join(folder, 'mutating'));
    copyFileSync(join(library, 'template.yaml'), join(folder, 'validating/template.yaml'));
    copyFileSync(join(library, 'samples/unique-ingress-host/constraint.yaml'), join(folder, 'validating/constraint.yaml'));
    const server = await startWebhookServer({ port: 0, policies: folder, inventory: cache, logger: captureLogs().logger });
    const review = async (object: KubernetesObject) => {
      const reply = await send(server.url, '/validate', { body: JSON.stringify(admissionReviewFor(object)), ca: server.ca });
      return (JSON.parse(reply.body) as AdmissionReviewResponse).response;
    };
    try {
      await sync.synced;
      const create = (name: string, host: string) => ({ apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', ...ingress(name, host) });
      const denied = await review(create('second', 'shop.example.com'));
      expect(denied.allowed).toBe(false);
      expect(denied.status?.message).toContain('shop.example.com');
      expect((await review(create('other', 'blog.example.com'))).allowed).toBe(true);
      expect((await review(create('taken', 'shop.example.com'))).allowed).toBe(true);
    } finally {
      await server.shutdown();
      await cleanup();
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
