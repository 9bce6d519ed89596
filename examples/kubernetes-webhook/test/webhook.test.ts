/**
 * Starts the example on 127.0.0.1 with a freshly generated certificate and
 * sends real AdmissionReviews over TLS, trusting only that certificate.
 */
import { spawn } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { createServer as createHttpsServer, request } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePolicyDocuments } from '@verdict/core';
import {
  admissionReviewFor, loadKubernetesPolicies, NamespaceCache, verifyAdmissionResponse,
  type AdmissionReview, type AdmissionReviewResponse, type KubernetesObject,
} from '@verdict/kubernetes';
import { selfSignedCertificate } from '../src/cert.js';
import { renderManifests } from '../src/index.js';
import { watchNamespaces } from '../src/kube.js';
import { startWebhookServer, type WebhookServer } from '../src/server.js';

interface Reply { status: number; headers: Record<string, string | string[] | undefined>; body: string }

function send(server: WebhookServer, path: string, options: { method?: string; body?: string; ca?: string } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(`${server.url}${path}`, { method: options.method ?? 'POST', ca: options.ca ?? server.ca, headers: { 'content-type': 'application/json' } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

const namespace = (name: string, labels: Record<string, string> = {}, annotations: Record<string, string> = {}): KubernetesObject =>
  ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels, annotations } });
const pod = (ns: string, memory: string, options: { image?: string; labels?: Record<string, string> } = {}): KubernetesObject => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name: 'app-0', namespace: ns, labels: options.labels ?? {} },
  spec: { containers: [{ name: 'app', image: options.image ?? 'internal.artifactory.example.com/app:1', resources: { limits: { memory } } }] },
});

describe('the example webhook over HTTPS', () => {
  let server: WebhookServer;
  const namespaces = new NamespaceCache({
    namespaces: ['web', 'system', '32g-team', '64g-team', 'special-team1'].map((p) => namespace(`ns-${p}`, { 'field.cattle.io/projectId': p })),
  });

  beforeAll(async () => {
    server = await startWebhookServer({ host: '127.0.0.1', port: 0, namespaceLabels: namespaces });
  });
  afterAll(async () => {
    await server.close();
  });

  async function review(path: '/validate' | '/mutate', admission: AdmissionReview): Promise<AdmissionReviewResponse['response']> {
    const reply = await send(server, path, { body: JSON.stringify(admission) });
    expect(reply.status).toBe(200);
    const answer = JSON.parse(reply.body) as AdmissionReviewResponse;
    const webhookName = path === '/validate' ? 'validate.verdict.example.com' : 'mutate.verdict.example.com';
    expect(verifyAdmissionResponse(answer, { uid: admission.request.uid, mutating: path === '/mutate', object: admission.request.object ?? null, webhookName })).toEqual([]);
    return answer.response;
  }

  it('serves a certificate generated at start for localhost and 127.0.0.1, and only clients that trust it connect', async () => {
    const cert = new X509Certificate(server.ca);
    expect(cert.checkHost('localhost')).toBe('localhost');
    expect(cert.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(cert.verify(cert.publicKey)).toBe(true);
    expect(new Date(cert.validTo).getTime()).toBeGreaterThan(Date.now());
    await expect(send(server, '/healthz', { method: 'GET', ca: selfSignedCertificate().cert })).rejects.toThrow(/self[- ]signed/i);
    expect((await send(server, '/healthz', { method: 'GET' })).body).toBe('ok\n');
  });

  it('enforces seed 003\'s memory limits per project', async () => {
    expect((await review('/validate', admissionReviewFor(pod('ns-web', '8Gi')))).allowed).toBe(true);
    expect((await review('/validate', admissionReviewFor(pod('ns-web', '20Gi')))).status).toEqual({
      status: 'Failure', code: 403, reason: 'Forbidden',
      message: '[memory-limit-enforcement] container app has memory limit 20Gi; set resources.limits.memory to at most 16Gi',
    });
    expect((await review('/validate', admissionReviewFor(pod('ns-32g-team', '20Gi')))).allowed).toBe(true);
    expect((await review('/validate', admissionReviewFor(pod('ns-64g-team', '80Gi')))).status?.message).toContain('at most 64Gi');
    expect((await review('/validate', admissionReviewFor(pod('ns-system', '200Gi')))).allowed).toBe(true);
  });

  it('merges seed 003\'s allowed registries over the default', async () => {
    expect((await review('/validate', admissionReviewFor(pod('ns-special-team1', '1Gi', { image: 'gcr.io/etl:2' })))).allowed).toBe(true);
    expect((await review('/validate', admissionReviewFor(pod('ns-web', '1Gi', { image: 'gcr.io/etl:2' })))).status?.message).toBe(
      '[allowed-registries] container app uses image gcr.io/etl:2; use an image from internal.artifactory.example.com',
    );
  });

  it('denies a Pod in a namespace it does not know (namespaceSelector cannot be evaluated)', async () => {
    const lines = (await review('/validate', admissionReviewFor(pod('ns-unknown', '1Gi')))).status!.message!.split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^\[allowed-registries\] unable to match parameterSelection: namespaceSelector needs the labels of namespace "ns-unknown"/);
    expect(lines[1]).toMatch(/^\[memory-limit-enforcement\] unable to match: namespaceSelector needs the labels of namespace "ns-unknown"/);
  });

  it('protects labelled namespaces from DELETE unless annotated', async () => {
    const denied = await review('/validate', admissionReviewFor(namespace('prod', { protected: 'true' }), { operation: 'DELETE' }));
    expect(denied.status?.message).toBe('[protect-namespaces] namespace prod is protected; annotate it with verdict.dev/allow-delete=true first');
    const allowed = await review('/validate', admissionReviewFor(namespace('prod', { protected: 'true' }, { 'verdict.dev/allow-delete': 'true' }), { operation: 'DELETE' }));
    expect(allowed.allowed).toBe(true);
  });

  it('adds kinitiras\' annotation on CREATE through the mutating webhook', async () => {
    const admission = admissionReviewFor(pod('ns-web', '1Gi', { labels: { 'kinitiras.kcloudlabs.io/webhook': 'enabled' } }));
    const response = await review('/mutate', admission);
    expect(response.patchType).toBe('JSONPatch');
    expect(JSON.parse(Buffer.from(response.patch!, 'base64').toString())).toEqual([
      { op: 'add', path: '/metadata/annotations', value: {} },
      { op: 'add', path: '/metadata/annotations/added-by', value: 'op' },
    ]);
    expect((await review('/mutate', admissionReviewFor(pod('ns-web', '1Gi')))).patch).toBeUndefined();
  });

  it('answers malformed requests with HTTP errors, not crashes', async () => {
    const notJson = await send(server, '/validate', { body: '{"apiVersion":' });
    expect(notJson.status).toBe(400);
    expect(JSON.parse(notJson.body)).toMatchObject({ kind: 'Status', code: 400, reason: 'BadRequest' });
    const v1beta1 = await send(server, '/validate', { body: JSON.stringify({ ...admissionReviewFor(pod('ns-web', '1Gi')), apiVersion: 'admission.k8s.io/v1beta1' }) });
    expect(JSON.parse(v1beta1.body).message).toMatch(/admissionReviewVersions: \["v1"\]/);
    expect((await send(server, '/validate', { method: 'GET' })).status).toBe(405);
    expect((await send(server, '/elsewhere', { body: '{}' })).status).toBe(404);
  });
});

describe('pnpm start', () => {
  it('starts the server, prints its URL and caBundle, and stops on SIGTERM', async () => {
    const tsx = createRequire(import.meta.url).resolve('tsx/cli');
    const child = spawn(process.execPath, [tsx, '--conditions=@verdict/source', fileURLToPath(new URL('../src/index.ts', import.meta.url))], {
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', NODE_OPTIONS: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      await expect.poll(() => out, { timeout: 15_000 }).toMatch(/caBundle: \S+\n/);
      const url = /listening on (https:\/\/\S+)/.exec(out)![1]!;
      const ca = Buffer.from(/caBundle: (\S+)/.exec(out)![1]!, 'base64').toString();
      const reply = await send({ url, port: 0, ca, close: async () => undefined }, '/healthz', { method: 'GET' });
      expect(reply.body).toBe('ok\n');
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});

describe('the manifests', () => {
  const manifests = parsePolicyDocuments(renderManifests('Q0FCVU5ETEU=')) as Array<{ kind: string; webhooks: Array<Record<string, unknown>> }>;

  it('register /validate and /mutate for v1 reviews, with the caBundle filled in', () => {
    expect(manifests.map((m) => m.kind)).toEqual(['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration']);
    const [validating, mutating] = manifests.map((m) => m.webhooks[0]!) as [Record<string, unknown>, Record<string, unknown>];
    expect(validating['clientConfig']).toMatchObject({ service: { path: '/validate' }, caBundle: 'Q0FCVU5ETEU=' });
    expect(mutating['clientConfig']).toMatchObject({ service: { path: '/mutate' }, caBundle: 'Q0FCVU5ETEU=' });
    for (const webhook of [validating, mutating]) expect(webhook).toMatchObject({ admissionReviewVersions: ['v1'], sideEffects: 'None' });
  });

  it('use rules and selectors verdict accepts as a webhook match block', () => {
    for (const { webhooks } of manifests) {
      const { rules, namespaceSelector, objectSelector } = webhooks[0] as Record<string, unknown>;
      const match = { rules, namespaceSelector, ...(objectSelector ? { objectSelector } : {}) };
      const doc = { apiVersion: 'verdict.dev/v1', kind: 'Policy', metadata: { name: 'manifest' }, spec: { match, validate: [{ name: 'r', rule: true, message: 'm' }] } };
      expect(loadKubernetesPolicies([doc]).policies).toHaveLength(1);
    }
  });
});

describe('namespace labels from the API server', () => {
  it('lists, then applies watch events, and lists again after an ERROR event', async () => {
    const tls = selfSignedCertificate();
    let lists = 0;
    const api = createHttpsServer({ cert: tls.cert, key: tls.key }, (req, res) => {
      const url = new URL(req.url ?? '/', 'https://x');
      res.writeHead(200, { 'content-type': 'application/json' });
      if (url.searchParams.get('watch') !== '1') {
        lists += 1;
        res.end(JSON.stringify({ metadata: { resourceVersion: String(lists) }, items: [namespace('a', { team: 'a' })] }));
        return;
      }
      res.write(`${JSON.stringify({ type: 'ADDED', object: namespace('b', { team: 'b' }) })}\n`);
      if (lists === 1) res.end(`${JSON.stringify({ type: 'ERROR', object: { kind: 'Status', code: 410 } })}\n`);
      else res.write(`${JSON.stringify({ type: 'MODIFIED', object: namespace('a', { team: 'aa' }) })}\n`);
    });
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    const cache = new NamespaceCache();
    const watch = watchNamespaces({ server: `https://127.0.0.1:${(api.address() as AddressInfo).port}`, ca: tls.cert, token: 't' }, cache, { retryMs: 10 });
    try {
      await watch.ready;
      await expect.poll(() => cache.get('a')?.['team'], { timeout: 5000 }).toBe('aa');
      expect(cache.get('b')?.['team']).toBe('b');
      expect(lists).toBe(2);
    } finally {
      watch.stop();
      api.closeAllConnections();
      await new Promise((resolve) => api.close(resolve));
    }
  });
});
