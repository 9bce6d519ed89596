/**
 * The inventory referential policies read (`inventory`, Gatekeeper's
 * `data.inventory` layout): the cluster's objects of a few kinds, one
 * informer per kind feeding one `InventoryCache`, with a periodic resync from
 * the informers' stores. Kinds are named as `INVENTORY` lists them
 * (`ingresses,services`); each needs `list` and `watch` in the ClusterRole.
 */
import { CoreV1Api, NetworkingV1Api, type KubeConfig } from '@kubernetes/client-node';
import type { InventoryCache, KubernetesObject } from '@verdict/kubernetes';
import { watchResource, type Sync, type SyncOptions, type Watched, type WatchSource } from './informer.js';

interface InventoryKind {
  apiVersion: string;
  kind: string;
  source: (config: KubeConfig) => WatchSource;
}

/** The kinds the inventory can hold, by resource name: those the ported gatekeeper-library policies read. */
const INVENTORY_KINDS: Readonly<Record<string, InventoryKind>> = {
  ingresses: {
    apiVersion: 'networking.k8s.io/v1', kind: 'Ingress',
    source: (config) => ({ path: '/apis/networking.k8s.io/v1/ingresses', list: () => config.makeApiClient(NetworkingV1Api).listIngressForAllNamespaces() }),
  },
  services: {
    apiVersion: 'v1', kind: 'Service',
    source: (config) => ({ path: '/api/v1/services', list: () => config.makeApiClient(CoreV1Api).listServiceForAllNamespaces() }),
  },
};

/** Resource names from `INVENTORY` (comma-separated); throws for a name it does not know. */
export function inventoryKinds(value: string | undefined): string[] {
  const names = (value ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  for (const name of names) {
    if (!Object.hasOwn(INVENTORY_KINDS, name)) throw new Error(`INVENTORY lists "${name}", expected some of ${Object.keys(INVENTORY_KINDS).join(', ')}`);
  }
  return [...new Set(names)];
}

/**
 * The object as policies see it in `inventory`: plain JSON (the typed list
 * call gives class instances and `Date`s) with its `apiVersion` and `kind`
 * (a LIST's items carry neither).
 */
function asStored(object: KubernetesObject, kind: InventoryKind): KubernetesObject {
  return { ...(JSON.parse(JSON.stringify(object)) as KubernetesObject), apiVersion: kind.apiVersion, kind: kind.kind };
}

/** Keeps `cache` equal to the cluster's objects of `kinds` (resource names: ingresses, services) until `stop()`. */
export function syncInventory(config: KubeConfig, cache: InventoryCache, kinds: readonly string[], options: SyncOptions = {}): Sync {
  const changed = () => options.onChange?.(cache.size);
  const watched: Array<{ kind: InventoryKind; watch: Watched }> = inventoryKinds(kinds.join(',')).map((name) => {
    const kind = INVENTORY_KINDS[name]!;
    const watch = watchResource(config, kind.source(config), (event) => {
      cache.apply({ type: event.type, object: asStored(event.object, kind) });
      changed();
    }, options);
    return { kind, watch };
  });
  const isSynced = () => watched.every((w) => w.watch.isSynced());
  const resync = setInterval(() => {
    if (!isSynced()) return;
    cache.replace(watched.flatMap((w) => w.watch.list().map((o) => asStored(o, w.kind))));
    changed();
  }, options.resyncMs ?? 10 * 60_000).unref();
  return {
    synced: Promise.all(watched.map((w) => w.watch.synced)).then(() => undefined),
    isSynced,
    async stop() {
      clearInterval(resync);
      await Promise.all(watched.map((w) => w.watch.stop()));
    },
  };
}
