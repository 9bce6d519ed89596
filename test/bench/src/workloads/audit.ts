/**
 * Workload 7: `verdict audit` of 10,000 objects against the demo's webhook
 * policies (examples/kubernetes-webhook/policies/validating: the default-and-overrides memory
 * limits, allowed registries, protected namespaces), in a fresh process.
 * The manifests are the workload-1 Pods (half in multi-document YAML files of
 * 100, half in JSON `kind: List` files of 1,000) and the four team Namespaces
 * whose labels the memory constraint selects on; every tenth Pod asks for
 * 20Gi and is denied.
 *
 * Rows: the CLI end to end (`main(['audit', …])` in-process, `-o json` to a
 * discarded stream), its own phases from `--stats` (reading and parsing;
 * deciding: inventory, AdmissionReviews, results), and the reference: an
 * in-process loop of `webhook.review(admissionReviewFor(object))` over the
 * same objects, parsed from the same files with the same parsers just before
 * (so the loop, like the CLI's deciding phase, runs while the parsers'
 * garbage is collected). Target 7: deciding ≤ 2× that loop.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';
import { main, type Io } from '@verdict/cli';
import { admissionReviewFor, createAdmissionWebhook, NamespaceCache, type KubernetesObject } from '@verdict/kubernetes';
import { readPolicyFolder } from '@verdict/example-kubernetes-webhook/src/policies.js';
import { EXAMPLE_POLICIES } from '@verdict/example-kubernetes-webhook/src/server.js';
import type { Job } from '../jobs.js';
import { QUICK, type GroupResult, type Row } from '../method.js';
import { makePod } from '../pods.js';

const REGISTRY = 'internal.artifactory.example.com';
const TEAMS = 4;

function namespaces(): KubernetesObject[] {
  return Array.from({ length: TEAMS }, (_, t) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: `team-${t}`, labels: { 'field.cattle.io/projectId': `project-${t}` } } }));
}

/** The objects of the audit: the Namespaces, then `n` Pods (every tenth over the 16Gi limit). */
export function auditObjects(n: number): KubernetesObject[] {
  const pods = Array.from({ length: n }, (_, i) => makePod(i, {
    images: [`${REGISTRY}/platform/app-${i}:1.${i}`],
    ...(i % 10 === 9 ? { memory: ['128Mi', '20Gi', '512Mi'] } : {}),
  }) as unknown as KubernetesObject);
  return [...namespaces(), ...pods];
}

/** Writes the objects as the workload's manifest tree; returns its folder and a cleanup. */
function writeTree(objects: readonly KubernetesObject[]): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'verdict-bench-audit-'));
  mkdirSync(join(dir, 'yaml'));
  mkdirSync(join(dir, 'json'));
  const half = Math.ceil(objects.length / 2);
  for (let i = 0; i < half; i += 100) writeFileSync(join(dir, 'yaml', `pods-${i}.yaml`), objects.slice(i, Math.min(i + 100, half)).map((o) => stringify(o)).join('---\n'));
  for (let i = half; i < objects.length; i += 1000) {
    writeFileSync(join(dir, 'json', `pods-${i}.json`), JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects.slice(i, Math.min(i + 1000, objects.length)) }, null, 2));
  }
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The objects as a parser gives them back (the reference loop decides these, as the CLI does). */
function readTree(dir: string): KubernetesObject[] {
  const out: KubernetesObject[] = [];
  for (const file of readdirSync(join(dir, 'yaml')).sort()) for (const doc of parseAllDocuments(readFileSync(join(dir, 'yaml', file), 'utf8'))) out.push(doc.toJS() as KubernetesObject);
  for (const file of readdirSync(join(dir, 'json')).sort()) out.push(...(JSON.parse(readFileSync(join(dir, 'json', file), 'utf8')) as { items: KubernetesObject[] }).items);
  return out;
}

interface Stats {
  objects: number;
  readMs: number;
  decideMs: number;
  writeMs: number;
}

async function runCli(policies: string, dir: string): Promise<{ ms: number; stats: Stats; code: number; report: string }> {
  let report = '';
  let stderr = '';
  const io: Io = { stdout: { write: (s: string) => (report += s) }, stderr: { write: (s: string) => (stderr += s) }, env: {}, cwd: dir };
  const t0 = performance.now();
  const code = await main(['audit', '-p', policies, dir, '-o', 'json', '--stats'], io);
  const ms = performance.now() - t0;
  const line = /verdict audit stats: (\{.*\})/.exec(stderr);
  if (!line) throw new Error(`sanity check failed: verdict audit printed no stats (exit ${code}): ${stderr.slice(0, 300)}`);
  return { ms, stats: JSON.parse(line[1]!) as Stats, code, report };
}

function expect(ok: boolean, what: string): void {
  if (!ok) throw new Error(`sanity check failed: ${what}`);
}

function row(name: string, ms: number, objects: number, extra: Partial<Row> = {}): Row {
  return { name, engine: extra.engine ?? 'verdict', ns: ms * 1e6, rme: 0, samples: 1, batch: 1, metrics: { objects, objectsPerSecond: Math.round((objects * 1000) / ms), ...extra.metrics }, ...(extra.reference ? { reference: true } : {}) };
}

/** One fresh-process measurement of an audit of `n` Pods (the driver starts several processes and takes medians). */
export async function auditWorkload(n = 10_000): Promise<GroupResult> {
  const { dir, cleanup } = writeTree(auditObjects(n));
  let objects = readTree(dir);
  const policies = join(EXAMPLE_POLICIES, 'validating');
  try {
    // The reference: the adapter's decision path, in a plain loop over parsed objects.
    const cache = new NamespaceCache({ namespaces: namespaces() });
    const webhook = createAdmissionWebhook({ policies: readPolicyFolder(policies).documents, namespaceLabels: cache });
    const loop = () => {
      let denied = 0;
      for (let i = 0; i < objects.length; i++) {
        const answer = webhook.review(admissionReviewFor(objects[i]!, { uid: `bench-${i}` })) as { response: { allowed: boolean } };
        if (!answer.response.allowed) denied++;
      }
      return denied;
    };

    // Warm both paths up on the whole set once (V8 optimises the same code the timed runs use).
    const warm = await runCli(policies, dir);
    const expectedDenied = Math.floor((n + 1) / 10);
    const report = JSON.parse(warm.report) as { summary: { objects: number; denied: number; problems: number } };
    expect(warm.code === 1, `the audit exits 1 (denied Pods), got ${warm.code}`);
    expect(report.summary.objects === objects.length && report.summary.problems === 0, `the audit decides all ${objects.length} objects (got ${report.summary.objects}, ${report.summary.problems} problems)`);
    expect(report.summary.denied === expectedDenied, `the audit denies every tenth Pod (${expectedDenied}), got ${report.summary.denied}`);
    expect(loop() === expectedDenied, 'the in-process loop denies the same Pods');

    // Timed: each right after its own parse of the files, so both pay for collecting the parsers' garbage alike.
    objects = readTree(dir);
    const t0 = performance.now();
    loop();
    const loopMs = performance.now() - t0;
    const cli = await runCli(policies, dir);
    return {
      id: 'audit',
      title: `Workload 7: \`verdict audit\` of ${objects.length.toLocaleString('en-US')} objects (the demo's webhook policies)`,
      rows: [
        row('in-process loop: `webhook.review(admissionReviewFor(object))` over the parsed objects', loopMs, objects.length, { engine: 'review-loop', reference: true }),
        row('`verdict audit` deciding (its own phase: inventory, AdmissionReviews, results)', cli.stats.decideMs, objects.length, { engine: 'verdict-audit-decide' }),
        row('`verdict audit` reading and parsing (YAML and JSON files)', cli.stats.readMs, objects.length, { engine: 'verdict-audit-read' }),
        row('`verdict audit` writing the JSON report', cli.stats.writeMs, objects.length, { engine: 'verdict-audit-write' }),
        row('`verdict audit` end to end (`main([\'audit\', …])` in-process, policies loaded)', cli.ms, objects.length, { engine: 'verdict-audit' }),
      ],
      info: { objects: objects.length, files: Math.ceil(objects.length / 2 / 100) + Math.ceil(objects.length / 2 / 1000), denied: expectedDenied, policies: 'examples/kubernetes-webhook/policies/validating' },
    };
  } finally {
    cleanup();
  }
}

/** Pods per run: 10,000, or 1,000 in `--quick` mode (a smoke of the pipeline). */
export function jobs(): Promise<Job[]> {
  return Promise.resolve([{ id: 'audit', runs: 3, run: async (timing) => [await auditWorkload(timing === QUICK ? 1_000 : 10_000)] }]);
}
