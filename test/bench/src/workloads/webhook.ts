/**
 * Workload 5: examples/kubernetes-webhook over HTTPS on 127.0.0.1, driven by
 * autocannon (bounded in requests and seconds) with 2 KB Pod AdmissionReviews.
 * The server runs in its own process, so the load generator does not share
 * its event loop (both still share the machine's cores).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { admissionReviewFor, type KubernetesObject } from '@verdict/kubernetes';
import { benchRoot, childFlags } from '../build.js';
import type { Job } from '../jobs.js';
import type { GroupResult } from '../method.js';
import { makePod } from '../pods.js';
import { drive, post, type LoadRun } from './load-generator.js';
import { reviewPod } from './review.js';

export const RUNS: readonly LoadRun[] = [
  { name: '1 connection (latency)', connections: 1, amount: 5_000, seconds: 15 },
  { name: '10 connections (throughput)', connections: 10, amount: 20_000, seconds: 20 },
];

const REGISTRY = 'internal.artifactory.example.com';

/** The workload-3 Pods, with images from the example's default allowed registry. */
export function webhookBodies(): string[] {
  return Array.from({ length: 8 }, (_, i) => {
    const pod = reviewPod(i);
    pod.spec.containers.forEach((c, k) => (c.image = `${REGISTRY}/platform/app-${i}-${k}:1.${i}`));
    return JSON.stringify(admissionReviewFor(pod as unknown as KubernetesObject, { uid: `uid-${i}` }));
  });
}

function expect(ok: boolean, what: string): void {
  if (!ok) throw new Error(`sanity check failed: ${what}`);
}

async function startServer(source: boolean): Promise<{ url: string; stop: () => void }> {
  const script = join(benchRoot, 'src/webhook-server.ts');
  const child = spawn(process.execPath, [...childFlags(source), script], { cwd: benchRoot, stdio: ['ignore', 'pipe', 'inherit'] });
  const first = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`the example server exited (code ${code}) before listening`)));
  });
  const { url } = JSON.parse(first) as { url: string };
  return { url, stop: () => child.kill('SIGTERM') };
}

/** `source`: run the example on the TypeScript sources (as the test suite does) rather than the built packages. */
export async function webhookWorkload(runs: readonly LoadRun[] = RUNS, source = process.execArgv.includes('--conditions=@verdict/source')): Promise<GroupResult> {
  const server = await startServer(source);
  try {
    const url = `${server.url}/validate`;
    const bodies = webhookBodies();
    for (const body of bodies) {
      const r = await post(url, body);
      expect(r.status === 200 && (JSON.parse(r.body) as { response: { allowed: boolean } }).response.allowed, `the example allows the good Pods (got ${r.status} ${r.body.slice(0, 200)})`);
    }
    const bad = makePod(100, { namespace: 'team-1', memory: ['128Mi', '20Gi', '512Mi'], images: [`${REGISTRY}/a:1`] });
    const denied = await post(url, JSON.stringify(admissionReviewFor(bad as unknown as KubernetesObject)));
    expect(denied.status === 200 && !(JSON.parse(denied.body) as { response: { allowed: boolean } }).response.allowed, 'the example denies a Pod over the limit');
    await drive(url, bodies, { name: 'warm-up', connections: 4, amount: Math.min(1000, runs[0]?.amount ?? 1000), seconds: 5 });
    const rows = [];
    for (const run of runs) rows.push(await drive(url, bodies, run));
    return {
      id: 'webhook',
      title: 'Workload 5: examples/kubernetes-webhook over HTTPS (autocannon, POST /validate)',
      rows,
      info: { admissionReviewBytes: bodies[0]!.length, server: 'examples/kubernetes-webhook startWebhookServer, own process', client: 'autocannon, own process' },
    };
  } finally {
    server.stop();
  }
}

export function jobs(): Promise<Job[]> {
  return Promise.resolve([{ id: 'webhook', runs: 1, run: async () => [await webhookWorkload()] }]);
}
