/**
 * Namespace labels from the API server, through @kubernetes/client-node's
 * informer (`watchResource`: list, watch, restart with a capped backoff), with
 * a periodic resync of the label cache from the informer's store, and a
 * direct read for a namespace the watch has not delivered yet.
 */
import { ApiException, CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import type { NamespaceCache, NamespaceLabelsLookup } from '@verdict/kubernetes';
import { watchResource, type Sync, type SyncOptions } from './informer.js';

/**
 * Access to the API server: the Pod's ServiceAccount inside a cluster, else
 * the file named by `KUBECONFIG` (its current context). `undefined` when
 * neither is there (local development: no namespace labels).
 */
export function kubeConfig(env: NodeJS.ProcessEnv = process.env): KubeConfig | undefined {
  const config = new KubeConfig();
  if (env['KUBERNETES_SERVICE_HOST']) config.loadFromCluster();
  else if (env['KUBECONFIG']) config.loadFromFile(env['KUBECONFIG']);
  else return undefined;
  return config;
}

/**
 * Reads one namespace's labels from the API server: the `NamespaceCache`
 * fallback for a namespace the watch has not delivered yet (created a moment
 * before the request). `undefined` when it does not exist; other failures
 * reject, and the webhook's failurePolicy answers.
 */
export function readNamespaceLabels(config: KubeConfig): NamespaceLabelsLookup {
  const api = config.makeApiClient(CoreV1Api);
  return async (name) => {
    try {
      return (await api.readNamespace({ name })).metadata?.labels ?? {};
    } catch (error) {
      if (error instanceof ApiException && error.code === 404) return undefined;
      throw error;
    }
  };
}

/** Options of {@link syncNamespaces}: backoff, resync period (default 10 minutes), a change callback. */
export type NamespaceSyncOptions = SyncOptions;
export type NamespaceSync = Sync;

/** Keeps `cache` equal to the cluster's namespaces (their labels) until `stop()`. */
export function syncNamespaces(config: KubeConfig, cache: NamespaceCache, options: NamespaceSyncOptions = {}): NamespaceSync {
  const api = config.makeApiClient(CoreV1Api);
  const changed = () => options.onChange?.(cache.size);
  const watched = watchResource(config, { path: '/api/v1/namespaces', list: () => api.listNamespace() }, (event) => {
    cache.apply(event);
    changed();
  }, options);
  const resync = setInterval(() => {
    if (!watched.isSynced()) return;
    cache.replace(watched.list());
    changed();
  }, options.resyncMs ?? 10 * 60_000).unref();
  return {
    synced: watched.synced,
    isSynced: watched.isSynced,
    async stop() {
      clearInterval(resync);
      await watched.stop();
    },
  };
}
