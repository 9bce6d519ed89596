/**
 * The jobs the driver runs, each in its own `node` process per run. Workloads
 * 3 and 5 need `@verdict/kubernetes` and the webhook example; they are
 * skipped (with the reason recorded) when those are not in the workspace.
 */
import { measure, type GroupResult, type Timing } from './method.js';
import { celWorkload } from './workloads/cel.js';
import { hostileCelWorkload, hostileGlobWorkload, hostileRegexWorkload } from './workloads/hostile.js';
import { loadWorkload } from './workloads/load.js';
import { ruleWorkload } from './workloads/rule.js';
import { scaleWorkload, SIZES } from './workloads/scale.js';

export interface Job {
  id: string;
  /** Runs (processes) per job; defaults to the driver's `--runs`. */
  runs?: number;
  run(timing: Timing): Promise<GroupResult[]>;
}

/** Optional workloads are loaded lazily: their modules import packages that may not exist yet. */
async function optional(name: string): Promise<Job[]> {
  try {
    const mod = (await import(`./workloads/${name}.js`)) as { jobs: () => Promise<Job[]> };
    return await mod.jobs();
  } catch (error) {
    return [{ id: name, runs: 1, run: () => Promise.resolve([{ id: name, title: `${name}: not run`, rows: [], info: { skipped: (error as Error).message.split('\n')[0]! } }]) }];
  }
}

export async function allJobs(): Promise<Job[]> {
  return [
    { id: 'rule', run: async (t) => [await measure(await ruleWorkload(), t)] },
    ...SIZES.map((n): Job => ({ id: `scale-${n}`, run: async (t) => [await measure(await scaleWorkload(n), t)] })),
    { id: 'cel', run: async (t) => [await measure(celWorkload(), t)] },
    { id: 'load', runs: 5, run: () => Promise.resolve([loadWorkload()]) },
    { id: 'hostile', run: async (t) => [await measure(hostileRegexWorkload(), t), await measure(hostileGlobWorkload(), t), await measure(hostileCelWorkload(), t)] },
    ...(await optional('review')),
    ...(await optional('vap')),
    ...(await optional('mpol')),
    ...(await optional('webhook')),
    ...(await optional('audit')),
    ...(await optional('audit-read')),
  ];
}

export async function findJob(id: string): Promise<Job> {
  const job = (await allJobs()).find((j) => j.id === id);
  if (!job) throw new Error(`unknown job "${id}"`);
  return job;
}
