/**
 * The timing method (peer-bench.md): tinybench, each sample a calibrated batch
 * of K calls (≈ 50 µs) whose per-call time goes in through
 * `overriddenDuration`, so sub-µs rows are not drowned in timer overhead.
 * One process measures each case once; the driver (main.ts) starts several
 * processes and takes medians.
 */
import { Bench } from 'tinybench';

/** One timed row. `fn` is one call (one decision for one input). */
export interface Case {
  /** Row label in the table. */
  name: string;
  /** Engine id (`verdict`, `baseline`, `json-logic-js`, …). */
  engine: string;
  /** One call. Give either `fn` or `setup`. */
  fn?: () => unknown;
  /**
   * Builds the engine right before this row is measured and returns its call; it is
   * dropped afterwards. Rows over large policy sets use it so that no engine's heap
   * (and its garbage-collection cost) is charged to another engine's row.
   */
  setup?: () => Promise<() => unknown>;
  /** `fn` returns a Promise (json-rules-engine). */
  async?: boolean;
  /** The verdict row the other rows of the group are compared with. */
  reference?: boolean;
  /** Shown under the table. */
  note?: string;
}

/** A table: rows measured on the same inputs in the same process. */
export interface Group {
  id: string;
  title: string;
  cases: Case[];
  /** Facts about the inputs (e.g. constraints that matched), copied into the results. */
  info?: Record<string, number | string>;
}

/** One measured row as a child process reports it. */
export interface Row {
  name: string;
  engine: string;
  /** Mean time per call in nanoseconds (for one-shot rows: the duration). */
  ns: number;
  /** Relative margin of error within the run, percent. */
  rme: number;
  /** Median batch, ns per call (insensitive to a few preempted or collected batches). */
  p50?: number;
  samples: number;
  /** Calls per sample. */
  batch: number;
  reference?: boolean;
  note?: string;
  /** Other numbers (heap bytes, requests per second, …). */
  metrics?: Record<string, number>;
}

export interface GroupResult {
  id: string;
  title: string;
  rows: Row[];
  info?: Record<string, number | string>;
}

export interface Timing {
  /** Sampling time per case, ms (tinybench `time`). */
  time: number;
  /** Warm-up time per case, ms. */
  warmup: number;
  /** Target batch duration, ns. */
  batchNs: number;
}

export const FULL: Timing = { time: 800, warmup: 200, batchNs: 50_000 };
export const QUICK: Timing = { time: 100, warmup: 100, batchNs: 20_000 };

/** Keeps results alive so the calls cannot be optimised away. */
export let sink: unknown;

/** Calls per batch so that one batch takes about `batchNs`. */
async function calibrate(c: Case, fn: () => unknown, batchNs: number): Promise<number> {
  const call = async (k: number): Promise<number> => {
    const t0 = performance.now();
    if (c.async) for (let i = 0; i < k; i++) sink = await fn();
    else for (let i = 0; i < k; i++) sink = fn();
    return (performance.now() - t0) * 1e6;
  };
  // Warm up (let V8 optimise) for ~30 ms, growing the batch, then size it from a warm batch.
  let k = 1;
  let spent = 0;
  let ns = 0;
  while (spent < 30e6 && k < 1 << 22) {
    ns = await call(k);
    spent += ns;
    if (ns < batchNs) k *= 2;
  }
  ns = Math.min(ns, await call(k), await call(k));
  return Math.max(1, Math.round((k * batchNs) / Math.max(ns, 1)));
}

function batchFn(c: Case, fn: () => unknown, k: number): () => unknown {
  if (c.async) {
    return async () => {
      const t0 = performance.now();
      for (let i = 0; i < k; i++) sink = await fn();
      const ms = performance.now() - t0;
      return { overriddenDuration: ms / k, overriddenIterationCost: ms };
    };
  }
  return () => {
    const t0 = performance.now();
    for (let i = 0; i < k; i++) sink = fn();
    const ms = performance.now() - t0;
    return { overriddenDuration: ms / k, overriddenIterationCost: ms };
  };
}

/** Measures every case of a group once, in this process. */
export async function measure(group: Group, timing: Timing): Promise<GroupResult> {
  const rows: Row[] = [];
  const gc = (globalThis as { gc?: () => void }).gc;
  for (const c of group.cases) {
    // Start each case from a clean heap, so no row pays for the garbage of the setup or of the row before.
    const fn = await callOf(c);
    gc?.();
    const k = await calibrate(c, fn, timing.batchNs);
    const bench = new Bench({ time: timing.time, warmupTime: timing.warmup, warmup: true, iterations: 5, warmupIterations: 2 });
    bench.add(c.name, batchFn(c, fn, k), c.async ? { async: true } : {});
    await bench.run();
    const result = bench.tasks[0]!.result;
    if (result.state !== 'completed') {
      const why = result.state === 'errored' ? String(result.error) : result.state;
      throw new Error(`${group.id}: "${c.name}" did not complete (${why})`);
    }
    const row: Row = { name: c.name, engine: c.engine, ns: result.latency.mean * 1e6, rme: result.latency.rme, p50: result.latency.p50 * 1e6, samples: result.latency.samplesCount, batch: k };
    if (c.reference) row.reference = true;
    if (c.note) row.note = c.note;
    rows.push(row);
  }
  const out: GroupResult = { id: group.id, title: group.title, rows };
  if (group.info) out.info = group.info;
  return out;
}

/** The case's call, building its engine first when it has a `setup`. */
export async function callOf(c: Case): Promise<() => unknown> {
  if (c.fn) return c.fn;
  if (c.setup) return c.setup();
  throw new Error(`case "${c.name}" has neither fn nor setup`);
}

/** Runs a case's function `n` times (the smoke test's "a handful of iterations"). */
export async function exercise(c: Case, n: number): Promise<void> {
  const fn = await callOf(c);
  for (let i = 0; i < n; i++) sink = c.async ? await fn() : fn();
}
