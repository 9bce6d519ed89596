/** Tables as Markdown (printed by `pnpm bench`, embedded in docs/performance.md). */
import { formatNs, formatOps, type AggregatedGroup, type AggregatedRow, type Target } from './aggregate.js';

function markdown(head: string[], align: string[], rows: string[][]): string {
  return [`| ${head.join(' | ')} |`, `|${align.join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

const pct = (v: number) => `${(v * 100).toFixed(0)}%`;

/** Timed rows: ops/s, mean, within-run error, spread between runs, time relative to verdict. */
export function timingTable(g: AggregatedGroup): string {
  return markdown(
    ['task', 'ops/s', 'mean', 'median batch', '± (in run)', 'run spread', 'time ÷ verdict'],
    ['---', '---:', '---:', '---:', '---:', '---:', '---:'],
    g.rows.map((r) => [
      r.reference ? `**${r.name}**` : r.name,
      formatOps(r.ns),
      formatNs(r.ns),
      r.p50 === undefined ? '—' : formatNs(r.p50),
      `${r.rme.toFixed(1)}%`,
      r.runs.length > 1 ? pct(r.spread) : '—',
      r.ratio === undefined ? '—' : r.reference ? '1.00×' : `${r.ratio.toFixed(r.ratio < 10 ? 2 : 0)}×`,
    ]),
  );
}

/** One-shot rows (loading): duration, per constraint, heap. */
export function loadTable(g: AggregatedGroup): string {
  const mb = (b: number | undefined) => (b === undefined ? '—' : `${(b / 2 ** 20).toFixed(1)} MB`);
  return markdown(
    ['task', 'time (median)', 'per constraint', 'heap retained', 'peak (heap or RSS growth)', 'run spread'],
    ['---', '---:', '---:', '---:', '---:', '---:'],
    g.rows.map((r) => [r.reference ? `**${r.name}**` : r.name, formatNs(r.ns), `${r.metrics?.['perConstraintUs']?.toFixed(0)} µs`, mb(r.metrics?.['retainedBytes']), mb(r.metrics?.['peakBytes']), r.runs.length > 1 ? pct(r.spread) : '—']),
  );
}

/**
 * The webhook load test: one row per configuration and server (medians over processes), with ratios to the bare
 * server of the same configuration (the median of each process's own ratio where there are several processes).
 */
export function webhookTable(g: AggregatedGroup): string {
  const bare = (r: AggregatedRow) => g.rows.find((b) => b.engine === 'bare' && b.metrics?.['connections'] === r.metrics?.['connections'])?.metrics;
  const times = (ratio: number | undefined, a: number | undefined, b: number | undefined) => {
    const r = ratio ?? (a === undefined || b === undefined ? undefined : a / b);
    return r === undefined ? '—' : `${r.toFixed(2)}×`;
  };
  return markdown(
    ['run', 'requests', 'req/s', '÷ bare', 'p50', 'p90', 'p99', 'p99 ÷ bare', 'max', 'errors', 'non-2xx'],
    ['---', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:'],
    g.rows.map((r) => {
      const m = r.metrics ?? {};
      const b = bare(r);
      return [
        r.reference ? `**${r.name}**` : r.name, String(m['requests']), (m['rps'] ?? 0).toFixed(0), times(m['rpsRatio'], m['rps'], b?.['rps']),
        `${m['p50Ms']} ms`, `${m['p90Ms']} ms`, `${m['p99Ms']} ms`, times(m['p99Ratio'], m['p99Ms'], b?.['p99Ms']), `${m['maxMs']} ms`, String(m['errors']), String(m['non2xx']),
      ];
    }),
  );
}

export function groupTable(g: AggregatedGroup): string {
  if (g.rows.length === 0) return `_${g.info?.['skipped'] ?? 'no rows'}_`;
  if (g.id === 'load') return loadTable(g);
  if (g.id === 'webhook') return webhookTable(g);
  return timingTable(g);
}

export function targetsTable(targets: readonly Target[]): string {
  return markdown(
    ['#', 'target', 'measured', 'result'],
    ['---', '---', '---', '---'],
    targets.map((t) => [t.id, t.goal, t.measured, t.pass === null ? 'not measured' : t.pass ? 'met' : '**not met**']),
  );
}

/** The scaling curve: verdict and the other rows per N. */
export function scaleTable(groups: readonly AggregatedGroup[]): string {
  const scale = groups.filter((g) => g.id.startsWith('scale-'));
  if (scale.length === 0) return '';
  const names = scale[0]!.rows.map((r) => r.name);
  return markdown(
    ['task', ...scale.map((g) => `N = ${Number(g.info?.['constraints']).toLocaleString('en-US')}`)],
    ['---', ...scale.map(() => '---:')],
    [
      ...names.map((name) => [name, ...scale.map((g) => formatNs(g.rows.find((r) => r.name === name)?.ns ?? NaN))]),
      ['constraints matching each input (mean)', ...scale.map((g) => String(g.info?.['matchedPerInput'] ?? '—'))],
      ['candidates verdict tested (mean)', ...scale.map((g) => String(g.info?.['candidatesPerInput'] ?? '—'))],
    ],
  );
}
