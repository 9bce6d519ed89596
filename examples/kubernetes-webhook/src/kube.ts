/**
 * Feeding a NamespaceCache from the Kubernetes API: LIST the namespaces, then
 * WATCH from the list's resourceVersion, applying every event; when the watch
 * ends or fails (e.g. 410 Gone), list again. Uses node:https only.
 */
import { readFileSync } from 'node:fs';
import { request, type RequestOptions } from 'node:https';
import type { IncomingMessage } from 'node:http';
import type { KubernetesObject, NamespaceCache, NamespaceWatchEvent } from '@verdict/kubernetes';

export interface KubeAccess {
  /** API server URL, e.g. `https://10.96.0.1:443`. */
  server: string;
  /** Bearer token (a ServiceAccount token in a cluster). */
  token?: string;
  /** PEM CA certificate of the API server. */
  ca?: string;
}

const SERVICE_ACCOUNT = '/var/run/secrets/kubernetes.io/serviceaccount';

/** Access from inside a Pod (the ServiceAccount's token and CA), or `undefined` outside a cluster. */
export function inClusterAccess(env: NodeJS.ProcessEnv = process.env): KubeAccess | undefined {
  const host = env['KUBERNETES_SERVICE_HOST'];
  if (!host) return undefined;
  return {
    server: `https://${host.includes(':') ? `[${host}]` : host}:${env['KUBERNETES_SERVICE_PORT'] ?? '443'}`,
    token: readFileSync(`${SERVICE_ACCOUNT}/token`, 'utf8').trim(),
    ca: readFileSync(`${SERVICE_ACCOUNT}/ca.crt`, 'utf8'),
  };
}

function get(access: KubeAccess, path: string, track: (abort: () => void) => void): Promise<IncomingMessage> {
  const url = new URL(path, access.server);
  const options: RequestOptions = { method: 'GET', headers: { accept: 'application/json', ...(access.token ? { authorization: `Bearer ${access.token}` } : {}) } };
  if (access.ca) options.ca = access.ca;
  return new Promise((resolve, reject) => {
    const req = request(url, options, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        reject(new Error(`GET ${url.pathname}${url.search}: HTTP ${res.statusCode}`));
      } else resolve(res);
    });
    req.on('error', reject);
    track(() => req.destroy());
    req.end();
  });
}

async function readAll(res: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of res) text += String(chunk);
  return text;
}

/**
 * Keeps `cache` in sync with the cluster's namespaces until `stop()`.
 * `ready` resolves after the first complete list.
 */
export function watchNamespaces(access: KubeAccess, cache: NamespaceCache, options: { retryMs?: number; onError?: (error: Error) => void } = {}) {
  let stopped = false;
  let abort: () => void = () => undefined;
  const track = (fn: () => void) => (abort = fn);
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));

  const cycle = async () => {
    const list = JSON.parse(await readAll(await get(access, '/api/v1/namespaces', track))) as { items: KubernetesObject[]; metadata: { resourceVersion: string } };
    cache.replace(list.items);
    markReady();
    const stream = await get(access, `/api/v1/namespaces?watch=1&allowWatchBookmarks=true&resourceVersion=${encodeURIComponent(list.metadata.resourceVersion)}`, track);
    let buffered = '';
    for await (const chunk of stream) {
      buffered += String(chunk);
      let newline: number;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, newline).trim();
        buffered = buffered.slice(newline + 1);
        if (!line) continue;
        const event = JSON.parse(line) as NamespaceWatchEvent;
        if (event.type === 'ERROR') return; // e.g. 410 Gone: list again
        cache.apply(event);
      }
    }
  };

  void (async () => {
    while (!stopped) {
      try {
        await cycle();
      } catch (error) {
        if (!stopped) options.onError?.(error as Error);
      }
      if (!stopped) await new Promise((resolve) => setTimeout(resolve, options.retryMs ?? 1000));
    }
  })();

  return {
    ready,
    stop(): void {
      stopped = true;
      abort();
    },
  };
}
