/**
 * `pnpm bench`: runs every job in separate `node` processes (default 3 runs
 * each), prints a table per workload with medians and same-run ratios to
 * verdict, and the targets. Options:
 *   --runs N        processes per job (default 3; the load job always uses 5)
 *   --quick         short timings, one run (a smoke of the whole pipeline)
 *   --only a,b      only these jobs (rule, scale-10 … scale-10000, cel, load, hostile, review, vap, mpol, webhook, audit)
 *   --json FILE     also write the aggregated results (input of report.ts)
 *   --source        measure the TypeScript sources through tsx instead of the built packages
 *
 * By default the suite measures what users install: it builds the @verdict
 * packages it uses (tsup, as `pnpm build` does) and imports their dist files.
 * tsx's transform of the sources adds esbuild's keepNames helper to every
 * closure created at run time, which the published build does not have.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, setPriority, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { aggregate, checkTargets, median, type AggregatedGroup, type Results } from './aggregate.js';
import { benchRoot as root, buildPackages, childFlags } from './build.js';
import { machine } from './machine.js';
import type { GroupResult } from './method.js';
import { groupTable, scaleTable, targetsTable } from './table.js';

const args = process.argv.slice(2);
const flag = (name: string) => args.includes(name);
const option = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};

const quick = flag('--quick');
const runs = quick ? 1 : Number(option('--runs') ?? 3);
const only = option('--only')?.split(',');
const jsonOut = option('--json');
const source = flag('--source');
// With --source this process must resolve the sources too (it imports the jobs): restart it with the children's flags.
if (source && !process.execArgv.includes('--conditions=@verdict/source')) {
  const again = spawnSync(process.execPath, [...childFlags(true), join(root, 'src/main.ts'), ...args], { stdio: 'inherit' });
  process.exit(again.status ?? 1);
}
if (!source) buildPackages();

// Measuring processes inherit this priority: on a shared machine, other work then preempts them less.
// (Raising priority needs root or CAP_SYS_NICE; without it the run goes on at normal priority.)
let niced = false;
try {
  setPriority(0, -10);
  niced = true;
} catch {
  // not permitted
}

// Imported only now: the jobs import @verdict/* packages, whose dist files the build above wrote.
const { allJobs } = await import('./jobs.js');
const jobs = (await allJobs()).filter((j) => !only || only.includes(j.id));
const scratch = mkdtempSync(join(tmpdir(), 'verdict-bench-'));
const byGroup = new Map<string, GroupResult[]>();
/** 1-minute load average when each child starts: this machine may be shared, and the report says so. */
const loads: number[] = [];

for (const job of jobs) {
  const n = quick ? 1 : (job.runs ?? runs);
  for (let r = 0; r < n; r++) {
    const out = join(scratch, `${job.id}-${r}.json`);
    loads.push(loadavg()[0]!);
    process.stderr.write(`bench: ${job.id} run ${r + 1}/${n} (load average ${loads[loads.length - 1]!.toFixed(2)})\n`);
    const child = spawnSync(process.execPath, ['--expose-gc', ...childFlags(source), join(root, 'src/child.ts'), job.id, quick ? 'quick' : 'full', out], {
      cwd: root, stdio: ['ignore', 'inherit', 'inherit'],
    });
    if (child.status !== 0) {
      console.error(`bench: job ${job.id} failed (exit ${child.status ?? child.signal})`);
      process.exitCode = 1;
      continue;
    }
    for (const g of JSON.parse(readFileSync(out, 'utf8')) as GroupResult[]) {
      const list = byGroup.get(g.id) ?? [];
      list.push(g);
      byGroup.set(g.id, list);
    }
  }
}
rmSync(scratch, { recursive: true, force: true });

const groups: AggregatedGroup[] = [...byGroup.values()].map(aggregate);
const targets = checkTargets(groups);
const m = { ...machine(), loadAverage: { min: Math.min(...loads), median: median(loads), max: Math.max(...loads) }, raisedPriority: niced };
console.log(`\nverdict benchmarks: ${m.cpu}, ${m.cores} cores, Node ${m.node}, commit ${m.commit}, ${source ? 'sources through tsx' : 'built packages'}; ${quick ? 'quick mode (not for publishing)' : `median of ${runs} processes`}; load average ${m.loadAverage.min.toFixed(1)}–${m.loadAverage.max.toFixed(1)}\n`);
for (const g of groups) {
  console.log(`## ${g.title}\n`);
  console.log(groupTable(g));
  if (g.info) console.log(`\n${Object.entries(g.info).map(([k, v]) => `${k}: ${v}`).join(' · ')}`);
  console.log('');
}
const curve = scaleTable(groups);
if (curve) console.log(`## Workload 2: the scaling curve\n\n${curve}\n`);
console.log(`## Targets\n\n${targetsTable(targets)}\n`);

if (jsonOut) {
  mkdirSync(dirname(resolve(root, jsonOut)), { recursive: true });
  const results: Results = { date: new Date().toISOString(), machine: m, runs, mode: quick ? 'quick' : 'full', code: source ? 'source' : 'dist', groups, targets };
  writeFileSync(resolve(root, jsonOut), `${JSON.stringify(results, null, 1)}\n`);
  console.log(`results written to ${jsonOut}`);
}
