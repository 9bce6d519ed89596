/**
 * `pnpm --filter @verdict/bench run profile [rule|scale-<N>|review|review-mutating|webhook|vap|vap-gatekeeper|load] [seconds]`:
 * sets a workload up, then profiles verdict's hot path for a few seconds (the
 * V8 sampling profiler through `node:inspector`, set-up excluded) and prints
 * the top functions by self time (file:line function) and the time per file.
 * `webhook` profiles `review()` as workload 5's servers run it (the example's validating policies).
 * Profiles are kept in test/bench/profiles/ (open them in Chrome DevTools).
 */
import { spawnSync } from 'node:child_process';
import { Session } from 'node:inspector/promises';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { findSourceMap } from 'node:module';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchRoot as root, buildPackages, childFlags } from './build.js';

/** `BENCH_CORE=source` profiles the TypeScript sources (through tsx) instead of the built packages. */
const source = process.env['BENCH_CORE'] === 'source';
const [target = 'rule', seconds = '4', role] = process.argv.slice(2);

let sink: unknown;

/** Set-up (not profiled), then the profiled loop; runs in the child and writes the profile to `out`. */
async function hotLoop(out: string): Promise<void> {
  const { callOf } = await import('./method.js');
  let evaluate: () => unknown;
  if (target === 'load') {
    const { compilePolicies } = await import('@verdict/core');
    const { generateSpecs, scaleDocuments } = await import('./workloads/scale-gen.js');
    const docs = scaleDocuments(generateSpecs(1_000));
    evaluate = () => compilePolicies(docs);
  } else if (target === 'rule') {
    const { ruleWorkload } = await import('./workloads/rule.js');
    evaluate = await callOf((await ruleWorkload()).cases.find((c) => c.engine === 'verdict')!);
  } else if (target === 'review' || target === 'review-mutating') {
    const { reviewWorkload } = await import('./workloads/review.js');
    evaluate = await callOf((await reviewWorkload()).cases.find((c) => c.engine === (target === 'review' ? 'verdict-review' : 'verdict-review-mutating'))!);
  } else if (target === 'webhook') {
    const { createAdmissionWebhook, NamespaceCache } = await import('@verdict/kubernetes');
    const { readPolicyFolder } = await import('@verdict/example-kubernetes-webhook/src/policies.js');
    const { EXAMPLE_POLICIES } = await import('@verdict/example-kubernetes-webhook/src/server.js');
    const { webhookBodies } = await import('./workloads/webhook.js');
    const namespaces = new NamespaceCache();
    for (let i = 0; i < 4; i++) namespaces.set(`team-${i}`, { 'field.cattle.io/projectId': `project-${i}` });
    const webhook = createAdmissionWebhook({ policies: readPolicyFolder(`${EXAMPLE_POLICIES}validating`).documents, namespaceLabels: namespaces });
    const parsed = Array.from({ length: 4096 }, (_, i) => JSON.parse(webhookBodies()[i & 7]!) as unknown);
    let i = 0;
    evaluate = () => webhook.review(parsed[i++ & 4095]);
  } else if (target === 'vap' || target === 'vap-gatekeeper') {
    const { vapWorkload } = await import('./workloads/vap.js');
    evaluate = await callOf((await vapWorkload()).cases.find((c) => c.engine === (target === 'vap' ? 'verdict-vap' : 'verdict-gatekeeper-cel'))!);
  } else if (/^scale-\d+$/.test(target)) {
    const { scaleWorkload } = await import('./workloads/scale.js');
    evaluate = await callOf((await scaleWorkload(Number(target.slice(6)), { peers: false })).cases.find((c) => c.engine === 'verdict')!);
  } else throw new Error(`unknown target "${target}" (rule, review, review-mutating, webhook, vap, vap-gatekeeper, load, scale-<N>)`);
  const warm = performance.now() + 500;
  while (performance.now() < warm) sink = evaluate();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  await session.post('Profiler.start');
  const until = performance.now() + Number(seconds) * 1000;
  while (performance.now() < until) sink = evaluate();
  const { profile } = await session.post('Profiler.stop');
  writeFileSync(out, JSON.stringify(profile));
  session.disconnect();
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

function where(url: string): string {
  if (!url) return '(native)';
  const path = url.replace(/^file:\/\//, '');
  const src = path.indexOf('/packages/');
  if (src >= 0) return path.slice(src + 1);
  const nm = path.lastIndexOf('node_modules/');
  if (nm >= 0) return path.slice(nm + 'node_modules/'.length);
  return path.startsWith('node:') ? path : basename(path);
}

/** File and line in the original source (this process loaded the same modules, with their source maps). */
function original(f: ProfileNode['callFrame']): { url: string; line: number } {
  try {
    const entry = (f.url.startsWith('file:') ? findSourceMap(f.url)?.findEntry(f.lineNumber, f.columnNumber) : undefined) as { originalSource?: string; originalLine?: number } | undefined;
    if (entry?.originalSource !== undefined && entry.originalLine !== undefined) return { url: entry.originalSource, line: entry.originalLine + 1 };
  } catch {
    // no source map: fall back to the generated position
  }
  return { url: f.url, line: f.lineNumber + 1 };
}

function analyse(file: string): void {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    self.set(id, (self.get(id) ?? 0) + dt);
    total += dt;
  });
  const byFunction = new Map<string, number>();
  const byFile = new Map<string, number>();
  for (const [id, us] of self) {
    const f = byId.get(id)!.callFrame;
    const at = original(f);
    const file = where(at.url);
    const key = `${file}:${at.line} ${f.functionName || '(anonymous)'}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + us);
    byFile.set(file, (byFile.get(file) ?? 0) + us);
  }
  const top = (m: Map<string, number>, n: number) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n);
  const pct = (us: number) => `${((100 * us) / total).toFixed(1).padStart(5)}%`;
  console.log(`\nprofile ${file} (${(total / 1e6).toFixed(1)} s sampled)\n`);
  console.log('self time by function:');
  for (const [k, us] of top(byFunction, 30)) console.log(`  ${pct(us)}  ${k}`);
  console.log('\nself time by file:');
  for (const [k, us] of top(byFile, 15)) console.log(`  ${pct(us)}  ${k}`);
}

const SOURCE_CONDITION = '--conditions=@verdict/source';

if (role) await hotLoop(role);
else if (source && !process.execArgv.includes(SOURCE_CONDITION)) {
  // The report loads the packages too (for source positions): as sources, which needs the condition in this process.
  const again = spawnSync(process.execPath, [...process.execArgv, SOURCE_CONDITION, fileURLToPath(import.meta.url), ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' });
  process.exit(again.status ?? 1);
} else {
  if (!source) buildPackages();
  // Load the packages here too: their source maps give original file:line in the report.
  await import('@verdict/core');
  await import('@verdict/kubernetes').catch(() => undefined);
  const dir = join(root, 'profiles');
  mkdirSync(dir, { recursive: true });
  const out = join(dir, `${target}-${new Date().toISOString().replace(/[:.]/g, '-')}.cpuprofile`);
  const child = spawnSync(process.execPath, [...childFlags(source), fileURLToPath(import.meta.url), target, seconds, out], { cwd: root, stdio: 'inherit' });
  if (child.status !== 0) process.exit(child.status ?? 1);
  analyse(out);
}
void sink;
