/**
 * A fake Kubernetes API server on 127.0.0.1 over HTTPS, reached through a
 * kubeconfig file with a bearer token: each collection path answers LISTs
 * (and GETs of one object by name) from its function; each WATCH is handed
 * to the test as a `Watcher`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubernetesObject } from '@verdict/kubernetes';
import { developmentCertificate } from '../src/cert.js';
import { kubeConfig } from '../src/namespaces.js';

export interface Watcher {
  /** The collection watched (`/api/v1/namespaces`). */
  path: string;
  resourceVersion: string;
  res: ServerResponse;
  send(type: string, object: unknown): void;
}

/** A collection's current content. */
export type Listing = () => { resourceVersion: string; items: KubernetesObject[] };

const nameOf = (object: KubernetesObject) => (object['metadata'] as { name: string }).name;

export async function fakeApiServer(collections: Record<string, Listing>) {
  const tls = await developmentCertificate(['127.0.0.1']);
  const watchers: Watcher[] = [];
  const requests: Array<{ path: string; authorization: string | undefined }> = [];
  const server: Server = createServer({ cert: tls.cert, key: tls.key }, (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'https://api');
    requests.push({ path: `${url.pathname}${url.search}`, authorization: req.headers.authorization });
    const slash = url.pathname.lastIndexOf('/');
    const parent = collections[url.pathname.slice(0, slash)];
    if (parent && !collections[url.pathname]) {
      const found = parent().items.find((o) => nameOf(o) === url.pathname.slice(slash + 1));
      res.writeHead(found ? 200 : 404, { 'content-type': 'application/json' });
      res.end(JSON.stringify(found ?? { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404 }));
      return;
    }
    const list = collections[url.pathname];
    if (!list) {
      res.writeHead(404).end();
      return;
    }
    if (url.searchParams.get('watch') === 'true') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.flushHeaders();
      watchers.push({ path: url.pathname, resourceVersion: url.searchParams.get('resourceVersion') ?? '', res, send: (type, object) => res.write(`${JSON.stringify({ type, object })}\n`) });
      return;
    }
    const { resourceVersion, items } = list();
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ apiVersion: 'v1', kind: 'List', metadata: { resourceVersion }, items }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const dir = mkdtempSync(join(tmpdir(), 'verdict-kubeconfig-'));
  const kubeconfig = join(dir, 'config');
  writeFileSync(kubeconfig, [
    'apiVersion: v1', 'kind: Config', 'current-context: fake',
    `clusters: [{name: fake, cluster: {server: "https://127.0.0.1:${(server.address() as AddressInfo).port}", certificate-authority-data: ${tls.caBundle}}}]`,
    'users: [{name: webhook, user: {token: secret-token}}]',
    'contexts: [{name: fake, context: {cluster: fake, user: webhook}}]', '',
  ].join('\n'));
  return {
    watchers,
    requests,
    lists: () => requests.filter((r) => !r.path.includes('watch=true')).length,
    config: () => kubeConfig({ KUBECONFIG: kubeconfig })!,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
