/**
 * One HTTPS server of workload 5, on 127.0.0.1 (a free port), in its own
 * process: `webhook-server.ts <mode>`. Every mode uses the same kind of
 * certificate (ECDSA P-256 from the example's `developmentCertificate`) and,
 * except `bare`, the example's validating policies with namespace labels for
 * the bench's namespaces. Sends `{url}` to the parent over IPC; stops on
 * SIGTERM.
 *
 * - `bare`: node:https alone: gathers the body, `JSON.parse`, answers
 *   "allowed" with the request's uid. The floor any webhook on Node stands on.
 * - `listener`: `https.createServer(tls, webhook.listener)`.
 * - `handle`: the Fetch handler behind @hono/node-server's `getRequestListener`
 *   (the usual way to serve a Fetch handler from Node).
 * - `example`: examples/kubernetes-webhook's whole server (routing, metrics,
 *   a JSON log line per decision to stdout, which the bench discards).
 */
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { createAdmissionWebhook, NamespaceCache } from '@verdict/kubernetes';
import { developmentCertificate } from '@verdict/example-kubernetes-webhook/src/cert.js';
import { readPolicyFolder } from '@verdict/example-kubernetes-webhook/src/policies.js';
import { EXAMPLE_POLICIES, startWebhookServer } from '@verdict/example-kubernetes-webhook/src/server.js';

const MODES = ['bare', 'listener', 'handle', 'example'];
const mode = process.argv[2] ?? '';
if (!MODES.includes(mode)) throw new Error(`usage: webhook-server.ts <${MODES.join('|')}>`);

const namespaces = new NamespaceCache();
for (let i = 0; i < 4; i++) namespaces.set(`team-${i}`, { 'field.cattle.io/projectId': `project-${i}` });

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function start(): Promise<{ url: string; stop: () => Promise<void> }> {
  if (mode === 'example') {
    const server = await startWebhookServer({ host: '127.0.0.1', port: 0, namespaceLabels: namespaces, certificateHosts: ['127.0.0.1'] });
    return { url: server.url, stop: () => server.shutdown() };
  }
  const tls = await developmentCertificate(['127.0.0.1']);
  let server: Server;
  if (mode === 'bare') {
    server = createServer(tls, (req, res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      req.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.length;
      });
      req.on('end', () => {
        const review = JSON.parse(Buffer.concat(chunks, size).toString('utf8')) as { request: { uid: string } };
        const body = JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: review.request.uid, allowed: true } });
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
        res.end(body);
      });
    });
  } else {
    const webhook = createAdmissionWebhook({ policies: readPolicyFolder(`${EXAMPLE_POLICIES}validating`).documents, namespaceLabels: namespaces });
    server = createServer(tls, mode === 'listener' ? webhook.listener : getRequestListener(webhook.handle));
  }
  const url = await listen(server);
  return { url, stop: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const { url, stop } = await start();
process.send?.({ url });
process.once('SIGTERM', () => {
  void stop().then(() => process.exit(0));
  setTimeout(() => process.exit(0), 2000).unref();
});
