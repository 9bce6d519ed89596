/**
 * Drives an HTTPS admission webhook with autocannon, bounded in requests and
 * time, POSTing the 8 Pod AdmissionReviews of workload 3 in turn.
 */
import { request } from 'node:https';
import autocannon from 'autocannon';
import type { Row } from '../method.js';

export interface LoadRun {
  name: string;
  connections: number;
  /** Requests to send (the run stops at this count or at `seconds`). */
  amount: number;
  seconds: number;
}

/** One POST, for the sanity check before the load run. */
export function post(url: string, body: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', rejectUnauthorized: false, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.setTimeout(5000, () => req.destroy(new Error('timeout')));
    req.end(body);
  });
}

/** What one bounded run measured: per-response times of 2xx answers (ms) and the counts. */
export interface Drive {
  times: number[];
  requests: number;
  seconds: number;
  errors: number;
  timeouts: number;
  non2xx: number;
}

/**
 * One bounded autocannon run. Latency comes from autocannon's per-response
 * times (fractional ms; its own histogram rounds to whole ms); the run's
 * length from the first request to the last response, measured here
 * (autocannon's own duration ends on its one-second ticks, too coarse for
 * runs of a few seconds).
 */
export async function drive(url: string, bodies: readonly string[], run: LoadRun): Promise<Drive> {
  const times: number[] = [];
  const started = performance.now();
  let last = started;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon({
      url,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      requests: bodies.map((body) => ({ method: 'POST', body })),
      connections: run.connections,
      amount: run.amount,
      duration: run.seconds,
      timeout: 10,
    }, (error, r) => (error ? reject(error as Error) : resolve(r)));
    instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
      last = performance.now();
      if (status >= 200 && status < 300) times.push(ms);
    });
  });
  return { times, requests: result.requests.total, seconds: (last - started) / 1000, errors: result.errors, timeouts: result.timeouts, non2xx: result.non2xx };
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

const round = (ms: number) => Math.round(ms * 1000) / 1000;

/** Several runs of the same configuration (rounds) → one row: total requests over total time, percentiles over every response. */
export function summarize(name: string, engine: string, connections: number, drives: readonly Drive[]): Row {
  const times = drives.flatMap((d) => d.times).sort((a, b) => a - b);
  const sum = (f: (d: Drive) => number) => drives.reduce((a, d) => a + f(d), 0);
  const mean = times.reduce((a, b) => a + b, 0) / (times.length || 1);
  return {
    name,
    engine,
    ns: mean * 1e6,
    rme: 0,
    samples: times.length,
    batch: 1,
    metrics: {
      connections,
      requests: sum((d) => d.requests),
      rps: sum((d) => d.requests) / sum((d) => d.seconds),
      p50Ms: round(percentile(times, 50)),
      p90Ms: round(percentile(times, 90)),
      p99Ms: round(percentile(times, 99)),
      maxMs: round(times[times.length - 1] ?? NaN),
      errors: sum((d) => d.errors),
      timeouts: sum((d) => d.timeouts),
      non2xx: sum((d) => d.non2xx),
      seconds: sum((d) => d.seconds),
      rounds: drives.length,
    },
  };
}
