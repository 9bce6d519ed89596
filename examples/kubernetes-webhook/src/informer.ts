/**
 * One resource of the API server kept in sync through
 * @kubernetes/client-node's informer: it lists, watches from the list's
 * resourceVersion, lists again when the watch says 410 Gone, and resumes a
 * watch that the server closed. What the informer leaves to its user is done
 * here: restarting after an error (API server down, connection dropped) with
 * a capped backoff. The namespace labels and the inventory both use it.
 */
import { makeInformer, type KubeConfig, type KubernetesListObject, type KubernetesObject as ClientObject } from '@kubernetes/client-node';
import type { KubernetesObject } from '@verdict/kubernetes';

/** What to watch: the collection's path (`/api/v1/namespaces`) and the typed list call of the same collection. */
export interface WatchSource {
  path: string;
  list: () => Promise<KubernetesListObject<ClientObject>>;
}

export interface RetryOptions {
  /** First delay before restarting after an error, in ms (default 500); doubles up to `maxRetryMs`. */
  retryMs?: number;
  /** Longest delay between restarts, in ms (default 30 s). */
  maxRetryMs?: number;
  onError?: (error: Error) => void;
}

/** Options of a cache kept in sync (namespace labels, the inventory). */
export interface SyncOptions extends RetryOptions {
  /** Rebuild the cache from the informers' stores this often, in ms (default 10 minutes). */
  resyncMs?: number;
  /** After every change of the cache (for a gauge). */
  onChange?: (size: number) => void;
}

/** A cache kept in sync until `stop()`. */
export interface Sync {
  /** Resolves after the first complete list (of every resource). */
  synced: Promise<void>;
  isSynced(): boolean;
  stop(): Promise<void>;
}

/** An informer event, in the shape `NamespaceCache.apply` and `InventoryCache.apply` take. */
export interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  object: KubernetesObject;
}

export interface Watched extends Sync {
  /** The informer's store: the objects as last listed and watched. */
  list(): KubernetesObject[];
}

const asObject = (object: ClientObject) => object as unknown as KubernetesObject;

/** Calls `onEvent` for every change of the resource at `source` until `stop()`. */
export function watchResource(config: KubeConfig, source: WatchSource, onEvent: (event: WatchEvent) => void, options: RetryOptions = {}): Watched {
  const informer = makeInformer<ClientObject>(config, source.path, source.list);
  const baseRetry = options.retryMs ?? 500;
  let retry = baseRetry;
  let stopped = false;
  let synced = false;
  let failedThisStart = false;
  let restart: NodeJS.Timeout | undefined;
  let markSynced: () => void = () => undefined;
  const syncedPromise = new Promise<void>((resolve) => (markSynced = resolve));

  informer.on('add', (object) => onEvent({ type: 'ADDED', object: asObject(object) }));
  informer.on('update', (object) => onEvent({ type: 'MODIFIED', object: asObject(object) }));
  informer.on('delete', (object) => onEvent({ type: 'DELETED', object: asObject(object) }));
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

  void start();
  return {
    synced: syncedPromise,
    isSynced: () => synced,
    list: () => informer.list().map(asObject),
    async stop() {
      stopped = true;
      clearTimeout(restart);
      await informer.stop();
    },
  };
}
