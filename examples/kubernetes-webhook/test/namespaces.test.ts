/**
 * The namespace informer (@kubernetes/client-node) against a fake API server
 * on 127.0.0.1 over HTTPS, reached through a kubeconfig file: the list, watch
 * events, a watch that answers 410 Gone, a dropped connection, and resync.
 */
import { describe, expect, it } from 'vitest';
import { NamespaceCache, type KubernetesObject } from '@verdict/kubernetes';
import { readNamespaceLabels, syncNamespaces, type NamespaceSyncOptions } from '../src/namespaces.js';
import { fakeApiServer } from './fake-api-server.js';

const ns = (name: string, team: string, resourceVersion: string): KubernetesObject =>
  ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, resourceVersion, labels: { team } } });

async function setup(options: NamespaceSyncOptions = {}) {
  let listed: { resourceVersion: string; items: KubernetesObject[] } = { resourceVersion: '10', items: [ns('a', 'a', '10')] };
  const api = await fakeApiServer({ '/api/v1/namespaces': () => listed });
  const cache = new NamespaceCache();
  const errors: string[] = [];
  const sync = syncNamespaces(api.config(), cache, { retryMs: 20, onError: (e) => errors.push(e.message), ...options });
  const teams = () => Object.fromEntries(['a', 'b', 'c', 'd'].map((n) => [n, cache.get(n)?.['team']]).filter(([, t]) => t !== undefined));
  return {
    api, cache, sync, errors, teams,
    relist: (next: typeof listed) => (listed = next),
    cleanup: async () => {
      await sync.stop();
      await api.close();
    },
  };
}

describe('namespace labels through the client-node informer', () => {
  it('lists with the kubeconfig\'s token, applies watch events, and lists again after a 410 Gone', async () => {
    const { api, sync, teams, relist, cleanup } = await setup();
    try {
      await sync.synced;
      expect(sync.isSynced()).toBe(true);
      expect(teams()).toEqual({ a: 'a' });
      expect(api.requests[0]).toEqual({ path: '/api/v1/namespaces', authorization: 'Bearer secret-token' });
      await expect.poll(() => api.watchers.length).toBe(1);
      const first = api.watchers[0]!;
      expect(first.resourceVersion).toBe('10');
      first.send('ADDED', ns('b', 'b', '11'));
      first.send('MODIFIED', ns('a', 'a2', '12'));
      await expect.poll(teams).toEqual({ a: 'a2', b: 'b' });

      relist({ resourceVersion: '20', items: [ns('a', 'a3', '20'), ns('c', 'c', '19')] });
      first.send('ERROR', { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Expired', code: 410 });
      first.res.end();
      await expect.poll(teams).toEqual({ a: 'a3', c: 'c' });
      expect(api.lists()).toBe(2);
      await expect.poll(() => api.watchers.length).toBe(2);
      expect(api.watchers[1]!.resourceVersion).toBe('20');
    } finally {
      await cleanup();
    }
  });

  it('restarts after a dropped connection and resumes watching from the last resourceVersion', async () => {
    const { api, sync, teams, errors, cleanup } = await setup();
    try {
      await sync.synced;
      await expect.poll(() => api.watchers.length).toBe(1);
      api.watchers[0]!.send('ADDED', ns('d', 'd', '15'));
      await expect.poll(teams).toEqual({ a: 'a', d: 'd' });
      api.watchers[0]!.res.socket?.destroy();
      await expect.poll(() => api.watchers.length, { timeout: 5000 }).toBe(2);
      expect(api.watchers[1]!.resourceVersion).toBe('15');
      api.watchers[1]!.send('DELETED', ns('d', 'd', '16'));
      await expect.poll(teams).toEqual({ a: 'a' });
      expect(api.lists()).toBe(1);
      expect(errors.length).toBeLessThanOrEqual(1);
    } finally {
      await cleanup();
    }
  });

  it('keeps retrying while the API server is unreachable, and is not synced until a list succeeds', async () => {
    const { api, sync, errors, cleanup } = await setup();
    await sync.synced;
    const config = api.config();
    await cleanup();
    const cache = new NamespaceCache();
    const failures: string[] = [];
    const offline = syncNamespaces(config, cache, { retryMs: 10, maxRetryMs: 20, onError: (e) => failures.push(e.message) });
    try {
      await expect.poll(() => failures.length, { timeout: 5000 }).toBeGreaterThanOrEqual(3);
      expect(offline.isSynced()).toBe(false);
      expect(errors).toEqual([]);
    } finally {
      await offline.stop();
    }
  });

  it('resyncs the label cache from the informer\'s store', async () => {
    const { cache, sync, teams, cleanup } = await setup({ resyncMs: 30 });
    try {
      await sync.synced;
      cache.delete('a');
      expect(teams()).toEqual({});
      await expect.poll(teams, { timeout: 2000 }).toEqual({ a: 'a' });
    } finally {
      await cleanup();
    }
  });

  it('reads a namespace the watch has not delivered yet from the API server, and says a missing one does not exist', async () => {
    const { api, sync, relist, cleanup } = await setup();
    try {
      await sync.synced;
      relist({ resourceVersion: '30', items: [ns('a', 'a', '10'), ns('fresh', 'new-team', '30')] });
      const lookup = readNamespaceLabels(api.config());
      expect(await lookup('fresh')).toEqual({ team: 'new-team' });
      expect(await lookup('ghost')).toBeUndefined();
      const cache = new NamespaceCache({ fallback: lookup });
      expect(await cache.lookup('fresh')).toEqual({ team: 'new-team' });
    } finally {
      await cleanup();
    }
  });
});
