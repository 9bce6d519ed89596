/**
 * Reloading without a restart, on volumes laid out as the kubelet lays out a
 * ConfigMap or Secret: files are symlinks into `..data`, which points at a
 * timestamped folder; an update writes a new folder and renames a new
 * `..data` over the old one.
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { admissionReviewFor, NamespaceCache, type AdmissionReviewResponse } from '@verdict/kubernetes';
import { developmentCertificate } from '../src/cert.js';
import { EXAMPLE_POLICIES, startWebhookServer } from '../src/server.js';
import { captureLogs, pod, send } from './helpers.js';

/** A folder mounted the kubelet's way, with `write(files)` doing an atomic update. */
function volume(root: string, name: string, files: Record<string, string>) {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  let generation = 0;
  const write = (next: Record<string, string>) => {
    generation += 1;
    const data = `..2025_01_01_00_00_0${generation}.000000001`;
    mkdirSync(join(dir, data));
    for (const [file, text] of Object.entries(next)) writeFileSync(join(dir, data, file), text);
    symlinkSync(data, join(dir, '..data_tmp'));
    renameSync(join(dir, '..data_tmp'), join(dir, '..data'));
    for (const file of Object.keys(next)) {
      try {
        symlinkSync(join('..data', file), join(dir, file));
      } catch {
        // already linked
      }
    }
    for (const old of readdirSync(dir).filter((f) => f.startsWith('..20') && f !== data)) rmSync(join(dir, old), { recursive: true });
  };
  write(files);
  return { dir, write };
}

const denyPods = (message: string) => `
apiVersion: verdict.dev/v1
kind: Policy
metadata: {name: no-pods}
spec:
  match: {kinds: [{kinds: [Pod]}]}
  validate:
    - {name: no, rule: false, message: "${message}"}
`;

describe('policy reload from a ConfigMap volume', () => {
  async function setup() {
    const root = mkdtempSync(join(tmpdir(), 'verdict-policies-'));
    const validating = volume(root, 'validating', { 'no-pods.yaml': denyPods('first set') });
    cpSync(join(EXAMPLE_POLICIES, 'mutating'), join(root, 'mutating'), { recursive: true });
    const { logger, lines } = captureLogs();
    const server = await startWebhookServer({ host: '127.0.0.1', port: 0, policies: root, logger, reloadSettleMs: 20, namespaceLabels: new NamespaceCache() });
    const message = async () => {
      const reply = await send(server.url, '/validate', { body: JSON.stringify(admissionReviewFor(pod('ns-web', '1Gi'))), ca: server.ca });
      return (JSON.parse(reply.body) as AdmissionReviewResponse).response.status?.message;
    };
    const metric = async (name: string) => Number(new RegExp(`^${name}\\{hook_type="validation"\\} (\\S+)$`, 'm').exec((await send(server.url, '/metrics', { method: 'GET', ca: server.ca })).body)?.[1]);
    const cleanup = async () => {
      await server.shutdown();
      rmSync(root, { recursive: true, force: true });
    };
    return { validating, server, lines, message, metric, cleanup };
  }

  it('serves the new set after the kubelet swaps ..data, and logs and counts what loaded', async () => {
    const { validating, lines, message, metric, cleanup } = await setup();
    try {
      expect(await message()).toBe('[no-pods] first set');
      validating.write({ 'no-pods.yaml': denyPods('second set') });
      await expect.poll(message, { timeout: 5000 }).toBe('[no-pods] second set');
      expect(lines.find((l) => l.msg === 'policies reloaded')).toMatchObject({ hook_type: 'validation', version: 2, policies: 1, files: ['no-pods.yaml'] });
      expect(await metric('verdict_policy_set_version')).toBe(2);
    } finally {
      await cleanup();
    }
  });

  it('keeps the current set when the new one is invalid, says why, and loads the next valid one', async () => {
    const { validating, lines, message, metric, cleanup } = await setup();
    try {
      validating.write({ 'no-pods.yaml': denyPods('first set').replace('rule: false', 'rule: {nope: []}') });
      await expect.poll(() => lines.find((l) => l.msg.startsWith('policies not reloaded')), { timeout: 5000 }).toBeDefined();
      const refused = lines.find((l) => l.msg.startsWith('policies not reloaded'))!;
      expect(refused).toMatchObject({ level: 50, hook_type: 'validation' });
      expect(refused['error']).toMatch(/validating\/no-pods\.yaml/);
      expect(refused['error']).toMatch(/nope/);
      expect(await message()).toBe('[no-pods] first set');
      expect(await metric('verdict_policy_load_errors_total')).toBe(1);
      expect(await metric('verdict_policy_set_version')).toBe(1);
      validating.write({ 'no-pods.yaml': denyPods('repaired') });
      await expect.poll(message, { timeout: 5000 }).toBe('[no-pods] repaired');
      expect(await metric('verdict_policy_set_version')).toBe(2);
    } finally {
      await cleanup();
    }
  });
});

describe('certificate reload from a Secret volume', () => {
  it('serves the rotated certificate to new connections, and keeps the current one when the new pair does not match', async () => {
    const root = mkdtempSync(join(tmpdir(), 'verdict-tls-'));
    const [first, second] = await Promise.all([developmentCertificate(['127.0.0.1']), developmentCertificate(['127.0.0.1'])]);
    const tls = volume(root, 'tls', { 'tls.crt': first.cert, 'tls.key': first.key });
    const { logger, lines } = captureLogs();
    const server = await startWebhookServer({ host: '127.0.0.1', port: 0, tlsFiles: { cert: join(tls.dir, 'tls.crt'), key: join(tls.dir, 'tls.key') }, logger });
    const trusts = (ca: string) => send(server.url, '/healthz', { method: 'GET', ca }).then(() => true, () => false);
    try {
      expect(await trusts(first.cert)).toBe(true);
      expect(await trusts(second.cert)).toBe(false);
      tls.write({ 'tls.crt': second.cert, 'tls.key': second.key });
      await expect.poll(() => trusts(second.cert), { timeout: 5000 }).toBe(true);
      expect(await trusts(first.cert)).toBe(false);
      expect(lines.find((l) => l.msg === 'certificate reloaded')).toMatchObject({ level: 30 });

      tls.write({ 'tls.crt': first.cert, 'tls.key': second.key });
      await expect.poll(() => lines.find((l) => l.msg.startsWith('certificate not reloaded')), { timeout: 5000 }).toBeDefined();
      expect(lines.find((l) => l.msg.startsWith('certificate not reloaded'))?.['error']).toMatch(/key values mismatch|KEY_VALUES_MISMATCH/i);
      expect(await trusts(second.cert)).toBe(true);
    } finally {
      await server.shutdown();
      rmSync(root, { recursive: true, force: true });
    }
  });
});
