/**
 * Starts the example on 127.0.0.1 with a development certificate and sends
 * real AdmissionReviews over TLS, trusting only that certificate.
 */
import { spawn } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parsePolicyDocuments } from '@verdict/core';
import {
  admissionReviewFor, loadKubernetesPolicies, NamespaceCache, verifyAdmissionResponse, type AdmissionReview, type AdmissionReviewResponse,
} from '@verdict/kubernetes';
import { developmentCertificate } from '../src/cert.js';
import { renderManifests } from '../src/index.js';
import { EXAMPLE_POLICIES, startWebhookServer, type WebhookServer } from '../src/server.js';
import { captureLogs, namespace, pod, PROJECT_NAMESPACES, send, type LogLine } from './helpers.js';

async function setup(): Promise<{ server: WebhookServer; lines: LogLine[]; review: (path: '/validate' | '/mutate', admission: AdmissionReview) => Promise<AdmissionReviewResponse['response']> }> {
  const { logger, lines } = captureLogs();
  const server = await startWebhookServer({ host: '127.0.0.1', port: 0, namespaceLabels: new NamespaceCache({ namespaces: PROJECT_NAMESPACES }), logger });
  const review = async (path: '/validate' | '/mutate', admission: AdmissionReview) => {
    const reply = await send(server.url, path, { body: JSON.stringify(admission), ca: server.ca });
    expect(reply.status).toBe(200);
    const answer = JSON.parse(reply.body) as AdmissionReviewResponse;
    const webhookName = path === '/validate' ? 'validate.verdict.example.com' : 'mutate.verdict.example.com';
    expect(verifyAdmissionResponse(answer, { uid: admission.request.uid, mutating: path === '/mutate', object: admission.request.object ?? null, webhookName })).toEqual([]);
    return answer.response;
  };
  return { server, lines, review };
}

describe('the example webhook over HTTPS', () => {
  it('serves a development certificate for localhost and 127.0.0.1, and only clients that trust it connect', async () => {
    const { server } = await setup();
    try {
      const cert = new X509Certificate(server.ca);
      expect(cert.checkHost('localhost')).toBe('localhost');
      expect(cert.checkIP('127.0.0.1')).toBe('127.0.0.1');
      expect(cert.verify(cert.publicKey)).toBe(true);
      expect(new Date(cert.validTo).getTime()).toBeGreaterThan(Date.now());
      await expect(send(server.url, '/healthz', { method: 'GET', ca: (await developmentCertificate()).cert })).rejects.toThrow(/self[- ]signed/i);
      expect((await send(server.url, '/healthz', { method: 'GET', ca: server.ca })).body).toBe('ok\n');
    } finally {
      await server.shutdown();
    }
  });

  it('enforces the memory limits and allowed registries of Gatekeeper\'s defaults-and-overrides request per project', async () => {
    const { server, review } = await setup();
    try {
      expect((await review('/validate', admissionReviewFor(pod('ns-web', '8Gi')))).allowed).toBe(true);
      expect((await review('/validate', admissionReviewFor(pod('ns-web', '20Gi')))).status).toEqual({
        status: 'Failure', code: 403, reason: 'Forbidden',
        message: '[memory-limit-enforcement] container app has memory limit 20Gi; set resources.limits.memory to at most 16Gi',
      });
      expect((await review('/validate', admissionReviewFor(pod('ns-32g-team', '20Gi')))).allowed).toBe(true);
      expect((await review('/validate', admissionReviewFor(pod('ns-64g-team', '80Gi')))).status?.message).toContain('at most 64Gi');
      expect((await review('/validate', admissionReviewFor(pod('ns-system', '200Gi')))).allowed).toBe(true);
      expect((await review('/validate', admissionReviewFor(pod('ns-special-team1', '1Gi', { image: 'gcr.io/etl:2' })))).allowed).toBe(true);
      expect((await review('/validate', admissionReviewFor(pod('ns-web', '1Gi', { image: 'gcr.io/etl:2' })))).status?.message).toBe(
        '[allowed-registries] container app uses image gcr.io/etl:2; use an image from internal.artifactory.example.com',
      );
    } finally {
      await server.shutdown();
    }
  });

  it('denies a Pod in a namespace it does not know (namespaceSelector cannot be evaluated)', async () => {
    const { server, review } = await setup();
    try {
      const lines = (await review('/validate', admissionReviewFor(pod('ns-unknown', '1Gi')))).status!.message!.split('\n');
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatch(/^\[allowed-registries\] unable to match parameterSelection: namespaceSelector needs the labels of namespace "ns-unknown"/);
      expect(lines[1]).toMatch(/^\[memory-limit-enforcement\] unable to match: namespaceSelector needs the labels of namespace "ns-unknown"/);
    } finally {
      await server.shutdown();
    }
  });

  it('protects labelled namespaces from DELETE unless annotated, and runs kinitiras\' own OverridePolicy (/mutate) and ClusterValidatePolicy (/validate)', async () => {
    const { server, review } = await setup();
    try {
      const denied = await review('/validate', admissionReviewFor(namespace('prod', { protected: 'true' }), { operation: 'DELETE' }));
      expect(denied.status?.message).toBe('[protect-namespaces] namespace prod is protected; annotate it with verdict.dev/allow-delete=true first');
      const allowed = await review('/validate', admissionReviewFor(namespace('prod', { protected: 'true' }, { 'verdict.dev/allow-delete': 'true' }), { operation: 'DELETE' }));
      expect(allowed.allowed).toBe(true);
      const labelled = pod('ns-web', '1Gi', { labels: { 'kinitiras.kcloudlabs.io/webhook': 'enabled' } });
      const response = await review('/mutate', admissionReviewFor({ ...labelled, metadata: { ...labelled['metadata'] as object, annotations: {} } }));
      expect(JSON.parse(Buffer.from(response.patch!, 'base64').toString())).toEqual([{ op: 'add', path: '/metadata/annotations/added-by', value: 'op' }]);
      // kinitiras' own example: its plaintext add needs the annotations to exist, and fails the request otherwise.
      expect((await review('/mutate', admissionReviewFor(labelled))).status).toMatchObject({ code: 500, message: expect.stringContaining('add operation does not apply: doc is missing path: "/metadata/annotations/added-by"') as string });
      expect((await review('/validate', admissionReviewFor(namespace('ledger', {}, { 'no-delete': 'yes' }), { operation: 'DELETE' }))).status).toEqual({ status: 'Failure', message: 'cannot delete this ns' });
      expect((await review('/mutate', admissionReviewFor(pod('ns-web', '1Gi')))).patch).toBeUndefined();
    } finally {
      await server.shutdown();
    }
  });

  it('answers malformed requests with HTTP errors, not crashes', async () => {
    const { server } = await setup();
    try {
      const notJson = await send(server.url, '/validate', { body: '{"apiVersion":', ca: server.ca });
      expect(notJson.status).toBe(400);
      expect(JSON.parse(notJson.body)).toMatchObject({ kind: 'Status', code: 400, reason: 'BadRequest' });
      const v1beta1 = await send(server.url, '/validate', { body: JSON.stringify({ ...admissionReviewFor(pod('ns-web', '1Gi')), apiVersion: 'admission.k8s.io/v1beta1' }), ca: server.ca });
      expect((JSON.parse(v1beta1.body) as { message: string }).message).toMatch(/admissionReviewVersions: \["v1"\]/);
      expect((await send(server.url, '/validate', { method: 'GET', ca: server.ca })).status).toBe(405);
      expect((await send(server.url, '/elsewhere', { body: '{}', ca: server.ca })).status).toBe(404);
    } finally {
      await server.shutdown();
    }
  });

  it('logs one JSON line per decision, with Gatekeeper\'s field names', async () => {
    const { server, lines, review } = await setup();
    try {
      await review('/validate', admissionReviewFor(pod('ns-web', '20Gi'), { uid: 'uid-denied', userInfo: { username: 'alice' } }));
      await review('/validate', admissionReviewFor(pod('ns-web', '1Gi'), { uid: 'uid-allowed' }));
      const decisions = lines.filter((l) => l['uid'] !== undefined);
      expect(decisions.map((l) => [l.msg, l['uid'], l['allowed']])).toEqual([['denied', 'uid-denied', false], ['admitted', 'uid-allowed', true]]);
      expect(decisions[0]).toMatchObject({
        level: 30, hook_type: 'validation', operation: 'CREATE', resource_kind: 'Pod', resource_namespace: 'ns-web', resource_name: 'app-0',
        request_username: 'alice', dry_run: false, code: 403,
        violations: [{ policy: 'memory-limit-enforcement', enforcement_action: 'deny', message: 'container app has memory limit 20Gi; set resources.limits.memory to at most 16Gi' }],
      });
      expect(typeof decisions[0]!['duration_ms']).toBe('number');
      expect(typeof decisions[0]!['time']).toBe('string');
    } finally {
      await server.shutdown();
    }
  });
});

describe('pnpm start', () => {
  it('starts the server, logs its URL and caBundle, and stops on SIGTERM', async () => {
    const tsx = createRequire(import.meta.url).resolve('tsx/cli');
    const child = spawn(process.execPath, [tsx, '--conditions=@verdict/source', fileURLToPath(new URL('../src/index.ts', import.meta.url))], {
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', NODE_OPTIONS: '', KUBECONFIG: '', KUBERNETES_SERVICE_HOST: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      const listening = () => out.split('\n').filter(Boolean).map((l) => JSON.parse(l) as LogLine).find((l) => l.msg.startsWith('listening'));
      await expect.poll(listening, { timeout: 15_000 }).toBeDefined();
      const { url, caBundle } = listening() as LogLine & { url: string; caBundle: string };
      const ca = Buffer.from(caBundle, 'base64').toString();
      expect((await send(url, '/healthz', { method: 'GET', ca })).body).toBe('ok\n');
      expect((await send(url, '/readyz', { method: 'GET', ca })).status).toBe(200);
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(out).toContain('"msg":"stopped"');
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});

describe('the manifests', () => {
  const setup = () => parsePolicyDocuments(renderManifests('Q0FCVU5ETEU=')) as Array<{ kind: string; webhooks: Array<Record<string, unknown>> }>;

  it('register /validate and /mutate for v1 reviews, with the caBundle filled in', () => {
    const manifests = setup();
    expect(manifests.map((m) => m.kind)).toEqual(['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration']);
    const [validating, mutating] = manifests.map((m) => m.webhooks[0]!) as [Record<string, unknown>, Record<string, unknown>];
    expect(validating['clientConfig']).toMatchObject({ service: { path: '/validate' }, caBundle: 'Q0FCVU5ETEU=' });
    expect(mutating['clientConfig']).toMatchObject({ service: { path: '/mutate' }, caBundle: 'Q0FCVU5ETEU=' });
    for (const webhook of [validating, mutating]) expect(webhook).toMatchObject({ admissionReviewVersions: ['v1'], sideEffects: 'None' });
  });

  it('fit together: ConfigMaps from every policy file, the cert-manager Secret, the Service, the CA injection, RBAC and probes', () => {
    /** A value at a path of parsed YAML; throws when the path is missing, so a wrong manifest fails loudly. */
    const at = (value: unknown, ...path: Array<string | number>): unknown => path.reduce((v: unknown, key) => {
      const next = (v as Record<string | number, unknown> | undefined)?.[key];
      if (next === undefined) throw new Error(`no ${path.join('.')} in the manifests`);
      return next;
    }, value);
    const read = (file: string) => parsePolicyDocuments(readFileSync(fileURLToPath(new URL(`../${file}`, import.meta.url)), 'utf8')) as unknown[];
    const kustomization = read('kustomization.yaml')[0];
    const docs = (at(kustomization, 'resources') as string[]).flatMap(read);
    const one = (kind: string) => docs.find((d) => at(d, 'kind') === kind);
    const [deployment, service, certificate] = [one('Deployment'), one('Service'), one('Certificate')];
    const pod = at(deployment, 'spec', 'template', 'spec');
    const container = at(pod, 'containers', 0);
    const pairs = (list: unknown, key: string, value: string) => Object.fromEntries((list as Array<Record<string, unknown>>).map((e) => [e[key], e[value]]));
    const env = pairs(at(container, 'env'), 'name', 'value');
    const mounts = pairs(at(container, 'volumeMounts'), 'name', 'mountPath');
    const volumes = pairs(at(pod, 'volumes'), 'name', 'name');
    const volume = (name: string) => (at(pod, 'volumes') as unknown[]).find((v) => at(v, 'name') === name);
    expect(Object.keys(volumes).sort()).toEqual(['mutating-policies', 'tls', 'validating-policies']);

    for (const sub of ['validating', 'mutating']) {
      const generator = (at(kustomization, 'configMapGenerator') as unknown[]).find((g) => at(g, 'name') === `verdict-${sub}-policies`);
      expect(at(generator, 'files')).toEqual(readdirSync(join(EXAMPLE_POLICIES, sub)).sort().map((f) => `policies/${sub}/${f}`));
      expect(at(volume(`${sub}-policies`), 'configMap', 'name')).toBe(at(generator, 'name'));
      expect(mounts[`${sub}-policies`]).toBe(`${String(env['POLICY_DIR'])}/${sub}`);
    }
    expect(at(volume('tls'), 'secret', 'secretName')).toBe(at(certificate, 'spec', 'secretName'));
    expect(env['TLS_CERT_FILE']).toBe(`${String(mounts['tls'])}/tls.crt`);
    expect(env['TLS_KEY_FILE']).toBe(`${String(mounts['tls'])}/tls.key`);
    expect(at(certificate, 'spec', 'dnsNames')).toContain(`${String(at(service, 'metadata', 'name'))}.${String(at(service, 'metadata', 'namespace'))}.svc`);
    expect(at(service, 'spec', 'selector')).toEqual(at(deployment, 'spec', 'template', 'metadata', 'labels'));
    for (const config of docs.filter((d) => String(at(d, 'kind')).endsWith('WebhookConfiguration'))) {
      expect(at(config, 'metadata', 'annotations', 'cert-manager.io/inject-ca-from')).toBe(`${String(at(certificate, 'metadata', 'namespace'))}/${String(at(certificate, 'metadata', 'name'))}`);
      expect(at(config, 'webhooks', 0, 'clientConfig', 'service')).toMatchObject({ name: at(service, 'metadata', 'name'), namespace: at(service, 'metadata', 'namespace') });
    }
    expect(at(one('ClusterRole'), 'rules')).toEqual([{ apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'list', 'watch'] }]);
    expect(at(one('ClusterRoleBinding'), 'subjects')).toEqual([{ kind: 'ServiceAccount', name: at(pod, 'serviceAccountName'), namespace: at(deployment, 'metadata', 'namespace') }]);
    expect(at(container, 'readinessProbe', 'httpGet')).toMatchObject({ path: '/readyz', scheme: 'HTTPS' });
    expect(at(container, 'livenessProbe', 'httpGet')).toMatchObject({ path: '/healthz', scheme: 'HTTPS' });
    expect(Number(at(pod, 'terminationGracePeriodSeconds')) * 1000).toBeGreaterThan(Number(env['DRAIN_DELAY_MS']) + 10_000);
  });

  it('use rules and selectors verdict accepts as a webhook match block', () => {
    for (const { webhooks } of setup()) {
      const { rules, namespaceSelector, objectSelector } = webhooks[0] as Record<string, unknown>;
      const match = { rules, namespaceSelector, ...(objectSelector ? { objectSelector } : {}) };
      const doc = { apiVersion: 'verdict.dev/v1', kind: 'Policy', metadata: { name: 'manifest' }, spec: { match, validate: [{ name: 'r', rule: true, message: 'm' }] } };
      expect(loadKubernetesPolicies([doc]).policies).toHaveLength(1);
    }
  });
});
