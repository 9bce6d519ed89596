// The README's serving calls, type-checked under strict with each maintained @types/node major:
// http.createServer(webhook.listener), https.createServer(tls, webhook.listener), and webhook.handle.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { admissionReviewFor, createAdmissionWebhook } from '@verdict/kubernetes';
import { POLICIES, pod } from './policies.js';

const labels = new Map([['shop', { team: 'web' }], ['training', { team: 'ml' }]]);
const webhook = createAdmissionWebhook({ policies: POLICIES, source: 'policies.yaml', namespaceLabels: (name) => labels.get(name) });

export const tlsServer = () => createHttpsServer({}, webhook.listener);

const server = createServer(webhook.listener).listen(0, '127.0.0.1');
await new Promise((ready) => server.once('listening', ready));
const { port } = server.address() as { port: number };
const post = async (body: unknown) => {
  const response = await fetch(`http://127.0.0.1:${port}/validate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return ((await response.json()) as { response: { allowed: boolean } }).response.allowed;
};
assert.equal(await post(admissionReviewFor(pod('shop', '32Gi'))), false);
assert.equal(await post(admissionReviewFor(pod('training', '32Gi'))), true);
const fetched = await webhook.handle(new Request('http://localhost/validate', { method: 'POST', body: JSON.stringify(admissionReviewFor(pod('shop', '8Gi'))) }));
assert.equal(((await fetched.json()) as { response: { allowed: boolean } }).response.allowed, true);
server.close();
console.log('first-hour: the webhook answers through http.createServer and handle');
