/**
 * Workload 4 (target 4): loading. `compilePolicies` of 1,000 constraints in a
 * fresh process (cold: Ajv instances, the four template schemas and the
 * document schema are compiled on the way), the same from text, a warm
 * recompile, and 10,000 constraints for the curve. Heap figures come from
 * `process.memoryUsage()` around forced collections (the driver passes
 * `--expose-gc`; without it the heap figures include garbage).
 */
import { compilePolicies, parsePolicyDocuments, type PolicySet } from '@verdict/core';
import type { GroupResult, Row } from '../method.js';
import { generateSpecs, scaleDocuments } from './scale-gen.js';

const gc = (globalThis as { gc?: () => void }).gc;

function collect(): number {
  if (gc) {
    gc();
    gc();
  }
  return process.memoryUsage().heapUsed;
}

interface Measured<T> {
  value: T;
  ms: number;
  retained: number;
  peak: number;
}

function timed<T>(fn: () => T): Measured<T> {
  const before = collect();
  const rss = process.memoryUsage().rss;
  const t0 = performance.now();
  const value = fn();
  const ms = performance.now() - t0;
  const peak = Math.max(process.memoryUsage().heapUsed - before, process.memoryUsage().rss - rss);
  const retained = collect() - before;
  return { value, ms, retained, peak };
}

function row(name: string, m: Measured<unknown>, constraints: number, reference = false): Row {
  const r: Row = {
    name, engine: 'verdict', ns: m.ms * 1e6, rme: 0, samples: 1, batch: 1,
    metrics: { constraints, retainedBytes: m.retained, peakBytes: m.peak, perConstraintUs: (m.ms * 1000) / constraints },
  };
  if (reference) r.reference = true;
  return r;
}

/** One fresh-process measurement (the driver starts several processes and takes medians). */
export function loadWorkload(sizes: { main: number; large: number } = { main: 1_000, large: 10_000 }): GroupResult {
  const docs = scaleDocuments(generateSpecs(sizes.main));
  const text = docs.map((d) => JSON.stringify(d)).join('\n---\n');
  const large = scaleDocuments(generateSpecs(sizes.large));
  const sets: PolicySet[] = [];

  const cold = timed(() => compilePolicies(docs));
  sets.push(cold.value);
  const fromText = timed(() => compilePolicies(parsePolicyDocuments(text, { source: 'bench.yaml' })));
  sets.push(fromText.value);
  const warm = timed(() => compilePolicies(docs));
  sets.push(warm.value);
  const big = timed(() => compilePolicies(large));
  sets.push(big.value);
  if (sets.some((s) => s.policies.length === 0)) throw new Error('sanity check failed: empty policy set');
  if (cold.value.policies.length !== sizes.main) throw new Error(`sanity check failed: expected ${sizes.main} policies, got ${cold.value.policies.length}`);

  const n = sizes.main.toLocaleString('en-US');
  return {
    id: 'load',
    title: `Workload 4: loading (compilePolicies, fresh process, 4 templates)`,
    rows: [
      row(`compilePolicies(${n} constraints), cold process`, cold, sizes.main, true),
      row(`parsePolicyDocuments + compilePolicies (${n}, ${(text.length / 1024).toFixed(0)} KB of text)`, fromText, sizes.main),
      row(`compilePolicies(${n}), warm (second set in the process)`, warm, sizes.main),
      row(`compilePolicies(${sizes.large.toLocaleString('en-US')} constraints)`, big, sizes.large),
    ],
    info: { constraints: sizes.main, templates: 4, documentsJsonBytes: text.length },
  };
}
