/**
 * Namespace labels from the API server, through @kubernetes/client-node's
 * informer: it lists the namespaces, watches from the list's
 * resourceVersion, lists again when the watch says 410 Gone, and resumes a
 * watch that the server closed. What the informer leaves to its user is done
 * here: restarting after an error (API server down, connection dropped) with
 * a capped backoff, and a periodic resync of the label cache from the
 * informer's store.
 */
import { ApiException, CoreV1Api, KubeConfig, makeInformer, type V1Namespace } from '@kubernetes/client-node';
import type { KubernetesObject, NamespaceCache, NamespaceLabelsLookup } from '@verdict/kubernetes';

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

export interface NamespaceSyncOptions {
  /** Rebuild the label cache from the informer's store this often, in ms (default 10 minutes). */
  resyncMs?: number;
  /** First delay before restarting after an error, in ms (default 500); doubles up to `maxRetryMs`. */
  retryMs?: number;
  /** Longest delay between restarts, in ms (default 30 s). */
  maxRetryMs?: number;
  onError?: (error: Error) => void;
  /** After every change of the cache (for the namespaces gauge). */
  onChange?: (size: number) => void;
}

export interface NamespaceSync {
  /** Resolves after the first complete list. */
  synced: Promise<void>;
  isSynced(): boolean;
  stop(): Promise<void>;
}

const asObject = (namespace: V1Namespace) => namespace as unknown as KubernetesObject;

/** Keeps `cache` equal to the cluster's namespaces (their labels) until `stop()`. */
export function syncNamespaces(config: KubeConfig, cache: NamespaceCache, options: NamespaceSyncOptions = {}): NamespaceSync {
  const api = config.makeApiClient(CoreV1Api);
  const informer = makeInformer<V1Namespace>(config, '/api/v1/namespaces', () => api.listNamespace());
  const changed = () => options.onChange?.(cache.size);
  const baseRetry = options.retryMs ?? 500;
  let retry = baseRetry;
  let stopped = false;
  let synced = false;
  let failedThisStart = false;
  let restart: NodeJS.Timeout | undefined;
  let markSynced: () => void = () => undefined;
  const syncedPromise = new Promise<void>((resolve) => (markSynced = resolve));

  informer.on('add', (ns) => {
    cache.apply({ type: 'ADDED', object: asObject(ns) });
    changed();
  });
  informer.on('update', (ns) => {
    cache.apply({ type: 'MODIFIED', object: asObject(ns) });
    changed();
  });
  informer.on('delete', (ns) => {
    cache.apply({ type: 'DELETED', object: asObject(ns) });
    changed();
  });
  /** The informer stops after an error: report it and start again after the backoff. */
  const failed = (error?: unknown) => {
    failedThisStart = true;
    // stop() aborts the watch, which the informer reports as an error.
    if (stopped) return;
    options.onError?.(error instanceof Error ? error : new Error(String((error as { message?: unknown })?.message ?? error)));
    clearTimeout(restart);
    restart = setTimeout(() => void start(), retry);
    retry = Math.min(retry * 2, options.maxRetryMs ?? 30_000);
  };
  informer.on('error', failed);

  async function start(): Promise<void> {
    if (stopped) return;
    failedThisStart = false;
    await informer.start().catch(failed);
    // start() resolves once the list is in and the watch is open, or after an error was reported.
    if (failedThisStart || stopped) return;
    retry = baseRetry;
    if (!synced) {
      synced = true;
      markSynced();
    }
  }

  const resync = setInterval(() => {
    if (!synced) return;
    cache.replace(informer.list().map(asObject));
    changed();
  }, options.resyncMs ?? 10 * 60_000).unref();

  void start();
  return {
    synced: syncedPromise,
    isSynced: () => synced,
    async stop() {
      stopped = true;
      clearTimeout(restart);
      clearInterval(resync);
      await informer.stop();
    },
  };
}
