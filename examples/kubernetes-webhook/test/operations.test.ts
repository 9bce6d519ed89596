/**
 * What an operator relies on, over real HTTPS on 127.0.0.1: Prometheus
 * metrics, readiness, and a shutdown that drains.
 */
import { Agent, request } from 'node:https';
import { describe, expect, it } from 'vitest';
import { admissionReviewFor, NamespaceCache, type AdmissionReviewResponse, type NamespaceLabelsLookup } from '@verdict/kubernetes';
import { startWebhookServer, type WebhookServerOptions } from '../src/server.js';
import { captureLogs, pod, PROJECT_NAMESPACES, send } from './helpers.js';

/** The value of one sample of the Prometheus text `exposition` (NaN when absent). */
function sample(exposition: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of exposition.split('\n')) {
    const match = /^([a-z_:]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const have = (match[2] ?? '').split(',').filter(Boolean);
    if (wanted.every((w) => have.includes(w)) && have.length === wanted.length) return Number(match[3]);
  }
  return NaN;
}

async function setup(options: Partial<WebhookServerOptions> = {}) {
  const { logger, lines } = captureLogs();
  const server = await startWebhookServer({ host: '127.0.0.1', port: 0, namespaceLabels: new NamespaceCache({ namespaces: PROJECT_NAMESPACES }), logger, ...options });
  const post = (path: string, body: unknown) => send(server.url, path, { body: JSON.stringify(body), ca: server.ca });
  const get = (path: string) => send(server.url, path, { method: 'GET', ca: server.ca });
  return { server, lines, post, get };
}

describe('GET /metrics', () => {
  it('counts requests by decision, violations by policy, and observes latency, in Gatekeeper\'s names', async () => {
    const { server, post, get } = await setup();
    try {
      await post('/validate', admissionReviewFor(pod('ns-web', '20Gi')));
      await post('/validate', admissionReviewFor(pod('ns-web', '1Gi')));
      await post('/validate', admissionReviewFor(pod('ns-web', '1Gi'), { dryRun: true }));
      const labelled = pod('ns-web', '1Gi', { labels: { 'kinitiras.kcloudlabs.io/webhook': 'enabled' } });
      // kinitiras' OverridePolicy adds an annotation: the Pod must have annotations (its JSON Patch add needs the parent).
      await post('/mutate', admissionReviewFor({ ...labelled, metadata: { ...labelled['metadata'] as object, annotations: {} } }));
      const reply = await get('/metrics');
      expect(reply.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
      const text = reply.body;
      expect(sample(text, 'verdict_validation_request_count_total', { admission_status: 'deny', admission_dryrun: 'false' })).toBe(1);
      expect(sample(text, 'verdict_validation_request_count_total', { admission_status: 'allow', admission_dryrun: 'false' })).toBe(1);
      expect(sample(text, 'verdict_validation_request_count_total', { admission_status: 'allow', admission_dryrun: 'true' })).toBe(1);
      expect(sample(text, 'verdict_mutation_request_count_total', { admission_status: 'allow', admission_dryrun: 'false' })).toBe(1);
      expect(sample(text, 'verdict_validation_request_duration_seconds_count', { admission_status: 'allow' })).toBe(2);
      expect(sample(text, 'verdict_validation_request_duration_seconds_bucket', { admission_status: 'deny', le: '+Inf' })).toBe(1);
      expect(sample(text, 'verdict_violations_total', { hook_type: 'validation', policy: 'memory-limit-enforcement', enforcement_action: 'deny' })).toBe(1);
      expect(sample(text, 'verdict_policy_set_version', { hook_type: 'validation' })).toBe(1);
      expect(sample(text, 'verdict_policies', { hook_type: 'validation', enforcement_action: 'deny' })).toBe(4);
      expect(sample(text, 'verdict_policies', { hook_type: 'mutation', enforcement_action: 'deny' })).toBe(1);
      expect(sample(text, 'verdict_certificate_expiry_timestamp_seconds')).toBeGreaterThan(Date.now() / 1000);
      expect(sample(text, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    } finally {
      await server.shutdown();
    }
  });

  it('counts failed-open answers and evaluation errors when the namespace lookup fails under failurePolicy Ignore', async () => {
    const broken: NamespaceLabelsLookup = () => {
      throw new Error('api server unreachable');
    };
    const { server, post, get, lines } = await setup({ namespaceLabels: broken, failurePolicy: 'Ignore' });
    try {
      const answer = JSON.parse((await post('/validate', admissionReviewFor(pod('ns-web', '20Gi')))).body) as AdmissionReviewResponse;
      expect(answer.response.allowed).toBe(true);
      const text = (await get('/metrics')).body;
      expect(sample(text, 'verdict_failed_open_total', { hook_type: 'validation' })).toBe(1);
      expect(sample(text, 'verdict_evaluation_errors_total', { hook_type: 'validation', policy: '' })).toBe(1);
      expect(sample(text, 'verdict_validation_request_count_total', { admission_status: 'error', admission_dryrun: 'false' })).toBe(1);
      expect(lines.find((l) => l.msg === 'admission review failed')).toMatchObject({ level: 50, error: expect.stringContaining('api server unreachable') as unknown });
    } finally {
      await server.shutdown();
    }
  });
});

describe('readiness and shutdown', () => {
  it('is ready only when the extra condition holds (the namespace informer has synced)', async () => {
    let synced = false;
    const { server, get } = await setup({ ready: () => synced });
    try {
      expect(await get('/readyz')).toMatchObject({ status: 503, body: 'not ready: waiting for namespace labels\n' });
      synced = true;
      expect(await get('/readyz')).toMatchObject({ status: 200, body: 'ok\n' });
      expect((await get('/healthz')).status).toBe(200);
      // Idle connections outlive the apiserver's 90 s idle timeout, so the server never closes one the apiserver reuses.
      expect(server.server.keepAliveTimeout).toBeGreaterThan(90_000);
    } finally {
      await server.shutdown();
    }
  });

  it('drains: readiness turns false, an in-flight review finishes, keep-alive clients are told to close, then new connections are refused', async () => {
    let release: (() => void) | undefined;
    const slow: NamespaceLabelsLookup = (name) => new Promise((resolve) => (release = () => resolve({ 'field.cattle.io/projectId': name })));
    const { server, post, get, lines } = await setup({ namespaceLabels: slow, drainDelayMs: 300 });
    const agent = new Agent({ keepAlive: true, ca: server.ca, maxSockets: 1 });
    try {
      expect((await get('/readyz')).status).toBe(200);
      const inFlight = post('/validate', admissionReviewFor(pod('ns-web', '1Gi')));
      await expect.poll(() => release !== undefined).toBe(true);
      const stopped = server.shutdown();
      expect(await get('/readyz')).toMatchObject({ status: 503, body: 'draining\n' });
      const kept = await new Promise<string | undefined>((resolve, reject) => {
        request(`${server.url}/healthz`, { agent }, (res) => {
          res.resume();
          resolve(res.headers['connection']);
        }).on('error', reject).end();
      });
      expect(kept).toBe('close');
      expect(lines.some((l) => l.msg === 'admitted')).toBe(false);
      release!();
      expect((await inFlight).status).toBe(200);
      await stopped;
      await expect(get('/healthz')).rejects.toThrow(/ECONNREFUSED/);
      expect(lines.map((l) => l.msg)).toEqual(expect.arrayContaining(['draining', 'admitted', 'stopped']));
    } finally {
      agent.destroy();
      await server.shutdown();
    }
  });
});
