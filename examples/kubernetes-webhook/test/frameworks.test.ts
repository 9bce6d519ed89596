/**
 * The Express and Fastify apps of src/frameworks over real HTTPS on
 * 127.0.0.1: they answer as `webhook.listener` on a bare node:https server.
 */
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { admissionReviewFor, createAdmissionWebhook, NamespaceCache, type AdmissionWebhook } from '@verdict/kubernetes';
import { developmentCertificate } from '../src/cert.js';
import { createExpressApp } from '../src/frameworks/express.js';
import { createFastifyApp } from '../src/frameworks/fastify.js';
import { readPolicyFolder } from '../src/policies.js';
import { EXAMPLE_POLICIES } from '../src/server.js';
import { pod, PROJECT_NAMESPACES, send } from './helpers.js';

type Serve = (webhooks: { validating: AdmissionWebhook; mutating: AdmissionWebhook }, tls: { cert: string; key: string }) => Promise<{ url: string; close: () => Promise<void> }>;

const bare: Serve = async (webhooks, tls) => {
  const server = createServer(tls, (req, res) => (req.url === '/mutate' ? webhooks.mutating : webhooks.validating).listener(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
};

const express: Serve = async (webhooks, tls) => {
  const server = createServer(tls, createExpressApp(webhooks));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
};

const fastify: Serve = async (webhooks, tls) => {
  const app = createFastifyApp(webhooks, { https: tls });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return { url, close: () => app.close() };
};

async function setup(serve: Serve) {
  const namespaceLabels = new NamespaceCache({ namespaces: PROJECT_NAMESPACES });
  const webhooks = {
    validating: createAdmissionWebhook({ policies: readPolicyFolder(`${EXAMPLE_POLICIES}validating`).documents, namespaceLabels }),
    mutating: createAdmissionWebhook({ policies: readPolicyFolder(`${EXAMPLE_POLICIES}mutating`).documents, namespaceLabels, mutating: true }),
  };
  const tls = await developmentCertificate(['127.0.0.1']);
  const served = await serve(webhooks, tls);
  const raw = (path: string, body?: string, method = 'POST') => send(served.url, path, { method, ca: tls.cert, ...(body === undefined ? {} : { body }) });
  const call = async (path: string, body?: string, method = 'POST') => {
    const reply = await raw(path, body, method);
    return { status: reply.status, type: reply.headers['content-type'], allow: reply.headers['allow'], body: JSON.parse(reply.body) as unknown };
  };
  return { call, raw, close: served.close };
}

const requests: Array<[string, string, string | undefined, string?]> = [
  ['a denied Pod', '/validate', JSON.stringify(admissionReviewFor(pod('ns-web', '20Gi'), { uid: 'u1' }))],
  ['an allowed Pod', '/validate', JSON.stringify(admissionReviewFor(pod('ns-32g-team', '20Gi'), { uid: 'u2' }))],
  ['a mutated Pod', '/mutate', JSON.stringify(admissionReviewFor(pod('ns-web', '1Gi', { labels: { 'kinitiras.kcloudlabs.io/webhook': 'enabled' } }), { uid: 'u3' }))],
  ['a v1beta1 review', '/validate', JSON.stringify({ ...admissionReviewFor(pod('ns-web', '1Gi')), apiVersion: 'admission.k8s.io/v1beta1' })],
  ['a GET', '/validate', undefined, 'GET'],
];

describe.each([['Express 5', express], ['Fastify 5', fastify]] as const)('the webhooks in %s', (_name, serve) => {
  it.each(requests)('answer %s as the bare listener does', async (_what, path, body, method) => {
    const [framework, reference] = await Promise.all([setup(serve), setup(bare)]);
    try {
      expect(await framework.call(path, body, method)).toEqual(await reference.call(path, body, method));
    } finally {
      await Promise.all([framework.close(), reference.close()]);
    }
  });
});

describe('the webhook in Fastify', () => {
  it('keeps the webhook\'s own answers for bodies Fastify would otherwise parse: not JSON, too large', async () => {
    const [framework, reference] = await Promise.all([setup(fastify), setup(bare)]);
    try {
      for (const body of ['{"apiVersion":', 'x'.repeat(7 * 1024 * 1024)]) {
        const answer = await framework.call('/validate', body);
        expect(answer.status).toBe(400);
        expect(answer).toEqual(await reference.call('/validate', body));
      }
    } finally {
      await Promise.all([framework.close(), reference.close()]);
    }
  });
});

describe('the webhook in Express behind express.json()', () => {
  it('leaves malformed JSON to Express, which answers 400 itself', async () => {
    const { raw, close } = await setup(express);
    try {
      const reply = await raw('/validate', '{"apiVersion":');
      expect(reply.status).toBe(400);
      expect(reply.headers['content-type']).toMatch(/^text\/html/);
    } finally {
      await close();
    }
  });
});
