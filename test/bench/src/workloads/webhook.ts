/**
 * Workload 5: the webhook over HTTPS on 127.0.0.1 under autocannon, in one
 * run next to the bare `node:https` server it stands on: `webhook.listener`,
 * the Fetch handler (`webhook.handle` behind @hono/node-server) and the
 * example server. Each server runs in its own process; the load generator
 * runs in this one. Runs alternate between servers in rounds (the order
 * rotating each round), so that a slow moment of a shared machine does not
 * land on one server only; each row sums its rounds.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { admissionReviewFor, type KubernetesObject } from '@verdict/kubernetes';
import { benchRoot, childFlags } from '../build.js';
import type { Job } from '../jobs.js';
import type { GroupResult, Row } from '../method.js';
import { makePod } from '../pods.js';
import { drive, post, summarize, type Drive, type LoadRun } from './load-generator.js';
import { reviewPod } from './review.js';

/** Each run lasts about a second against the bare server (a few hundred ms made the ratios swing by ±5% between runs). */
export const RUNS: readonly LoadRun[] = [
  { name: '1 connection', connections: 1, amount: 5_000, seconds: 8 },
  { name: '10 connections', connections: 10, amount: 15_000, seconds: 8 },
];
/** Rounds per configuration and server. */
export const ROUNDS = 3;

export interface ServerSpec {
  mode: 'bare' | 'listener' | 'handle' | 'example';
  label: string;
}

export const SERVERS: readonly ServerSpec[] = [
  { mode: 'bare', label: 'bare node:https (parse, answer allowed)' },
  { mode: 'listener', label: 'webhook.listener' },
  { mode: 'handle', label: 'webhook.handle (Fetch, @hono/node-server)' },
  { mode: 'example', label: 'examples/kubernetes-webhook (routing, metrics, logs)' },
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

interface Running {
  spec: ServerSpec;
  url: string;
  child: ChildProcess;
}

async function startServer(spec: ServerSpec, source: boolean): Promise<Running> {
  const child = fork(join(benchRoot, 'src/webhook-server.ts'), [spec.mode], {
    cwd: benchRoot, execArgv: childFlags(source), stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('message', (m) => resolve(`${(m as { url: string }).url}/validate`));
    child.once('exit', (code) => reject(new Error(`the ${spec.mode} server exited (code ${code}) before listening`)));
  });
  return { spec, url, child };
}

const allowed = (body: string) => (JSON.parse(body) as { response: { allowed: boolean } }).response.allowed;

async function sanity(server: Running, bodies: readonly string[]): Promise<void> {
  for (const body of bodies) {
    const r = await post(server.url, body);
    expect(r.status === 200 && allowed(r.body), `${server.spec.mode} allows the good Pods (got ${r.status} ${r.body.slice(0, 200)})`);
  }
  if (server.spec.mode === 'bare') return;
  const bad = makePod(100, { namespace: 'team-1', memory: ['128Mi', '20Gi', '512Mi'], images: [`${REGISTRY}/a:1`] });
  const denied = await post(server.url, JSON.stringify(admissionReviewFor(bad as unknown as KubernetesObject)));
  expect(denied.status === 200 && !allowed(denied.body), `${server.spec.mode} denies a Pod over the limit`);
}

/**
 * `source`: run the servers on the TypeScript sources (as the test suite does) rather than the built packages.
 * `servers`: which servers (default all); the first is the reference for the ratios.
 */
export async function webhookWorkload(
  runs: readonly LoadRun[] = RUNS, source = process.execArgv.includes('--conditions=@verdict/source'), rounds = ROUNDS, servers: readonly ServerSpec[] = SERVERS,
): Promise<GroupResult> {
  const running = await Promise.all(servers.map((s) => startServer(s, source)));
  try {
    const bodies = webhookBodies();
    for (const server of running) await sanity(server, bodies);
    for (const server of running) await drive(server.url, bodies, { name: 'warm-up', connections: 4, amount: Math.min(1000, runs[0]?.amount ?? 1000), seconds: 5 });
    const rows: Row[] = [];
    for (const run of runs) {
      const drives: Drive[][] = running.map(() => []);
      for (let r = 0; r < rounds; r++) {
        for (let k = 0; k < running.length; k++) {
          const i = (k + r) % running.length;
          drives[i]!.push(await drive(running[i]!.url, bodies, run));
        }
      }
      running.forEach((server, i) => {
        const row = summarize(`${run.name}: ${server.spec.label}`, server.spec.mode, run.connections, drives[i]!);
        if (i === 0) row.reference = true;
        rows.push(row);
      });
    }
    return {
      id: 'webhook',
      title: 'Workload 5: the webhook over HTTPS next to a bare node:https server (autocannon, POST /validate)',
      rows,
      info: {
        admissionReviewBytes: bodies[0]!.length,
        servers: 'one process each; certificate ECDSA P-256',
        client: 'autocannon, own process, keep-alive',
        rounds: `${rounds} per configuration and server, alternating`,
      },
    };
  } finally {
    for (const server of running) server.child.kill('SIGTERM');
  }
}

export function jobs(): Promise<Job[]> {
  // As many processes as the other jobs: one process's servers carry its luck (JIT, memory layout): two bare
  // servers of the same code differed by 4% in CPU per request. Target 5 takes the median of each process's ratio.
  return Promise.resolve([{ id: 'webhook', run: async () => [await webhookWorkload()] }]);
}
