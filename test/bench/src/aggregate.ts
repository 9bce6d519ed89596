/**
 * Combines the runs (one process each) into medians, run spreads and
 * same-run ratios to the verdict row, and checks the issue's targets.
 */
import type { GroupResult, Row } from './method.js';
import type { Machine } from './machine.js';

export interface AggregatedRow {
  name: string;
  engine: string;
  /** Median over runs of the per-run mean, ns per call. */
  ns: number;
  /** Every run's mean, ns. */
  runs: number[];
  /** (max − min) / median over runs. */
  spread: number;
  /** Median within-run relative margin of error, percent. */
  rme: number;
  /** Median over runs of the per-run median batch, ns per call. */
  p50?: number;
  /** Median over runs of (this row ÷ the verdict row of the same run). */
  ratio?: number;
  reference?: boolean;
  batch: number;
  note?: string;
  metrics?: Record<string, number>;
}

export interface AggregatedGroup {
  id: string;
  title: string;
  rows: AggregatedRow[];
  info?: Record<string, number | string>;
}

export interface Target {
  id: string;
  goal: string;
  measured: string;
  /** `true` met, `false` not met, `null` not measured (or report only). */
  pass: boolean | null;
}

export interface Results {
  date: string;
  machine: Machine;
  runs: number;
  mode: 'full' | 'quick';
  /** What was measured: the built packages (`dist`) or the sources through tsx. */
  code: 'dist' | 'source';
  groups: AggregatedGroup[];
  targets: Target[];
}

export function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length === 0 ? NaN : s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Runs of one group (same id) → one aggregated group, rows in first-run order. */
export function aggregate(runs: readonly GroupResult[]): AggregatedGroup {
  const first = runs[0]!;
  const rows = first.rows.map((r0): AggregatedRow => {
    const same = runs.map((g) => g.rows.find((r) => r.name === r0.name)).filter((r): r is Row => r !== undefined);
    const ns = same.map((r) => r.ns);
    const ratios = runs.flatMap((g) => {
      const ref = g.rows.find((r) => r.reference);
      const row = g.rows.find((r) => r.name === r0.name);
      return ref && row ? [row.ns / ref.ns] : [];
    });
    const m = median(ns);
    const out: AggregatedRow = {
      name: r0.name, engine: r0.engine, ns: m, runs: ns, spread: ns.length > 1 ? (Math.max(...ns) - Math.min(...ns)) / m : 0,
      rme: median(same.map((r) => r.rme)), batch: r0.batch,
    };
    if (ratios.length) out.ratio = median(ratios);
    const p50s = same.map((r) => r.p50).filter((v): v is number => v !== undefined);
    if (p50s.length) out.p50 = median(p50s);
    if (r0.reference) out.reference = true;
    if (r0.note) out.note = r0.note;
    if (r0.metrics) {
      const metrics: Record<string, number> = {};
      for (const key of Object.keys(r0.metrics)) metrics[key] = median(same.map((r) => r.metrics?.[key] ?? NaN));
      // Load rows: the same-run ratios to the reference row of the same connection count (each process starts its own servers).
      if (r0.metrics['rps'] !== undefined) {
        const load = runs.flatMap((g) => {
          const row = g.rows.find((r) => r.name === r0.name)?.metrics;
          const ref = g.rows.find((r) => r.reference && r.metrics?.['connections'] === r0.metrics!['connections'])?.metrics;
          return row && ref ? [{ rps: row['rps']! / ref['rps']!, p99: row['p99Ms']! / ref['p99Ms']! }] : [];
        });
        if (load.length) {
          metrics['rpsRatio'] = median(load.map((l) => l.rps));
          metrics['p99Ratio'] = median(load.map((l) => l.p99));
        }
      }
      out.metrics = metrics;
    }
    return out;
  });
  const g: AggregatedGroup = { id: first.id, title: first.title, rows };
  if (first.info) g.info = first.info;
  return g;
}

export function formatNs(ns: number): string {
  if (!Number.isFinite(ns)) return '—';
  if (ns < 1_000) return `${ns.toFixed(0)} ns`;
  if (ns < 1e6) return `${(ns / 1e3).toFixed(ns < 1e4 ? 2 : 1)} µs`;
  if (ns < 1e9) return `${(ns / 1e6).toFixed(ns < 1e7 ? 2 : 1)} ms`;
  return `${(ns / 1e9).toFixed(2)} s`;
}

export function formatOps(ns: number): string {
  const ops = 1e9 / ns;
  if (ops >= 1e6) return `${(ops / 1e6).toFixed(2)} M`;
  if (ops >= 1e3) return `${(ops / 1e3).toFixed(1)} k`;
  return ops.toFixed(ops < 10 ? 2 : 0);
}

const byEngine = (g: AggregatedGroup | undefined, engine: string) => g?.rows.find((r) => r.engine === engine);
const x = (v: number) => `${v.toFixed(2)}×`;
/** The same ratio on median batches (robust to preemption on a busy machine; leaves out most GC pauses). */
const p50Ratio = (a: AggregatedRow | undefined, b: AggregatedRow | undefined) => (a?.p50 !== undefined && b?.p50 !== undefined ? x(a.p50 / b.p50) : '—');

/** The issue's targets 1–5, checked against the aggregated groups. */
export function checkTargets(groups: readonly AggregatedGroup[]): Target[] {
  const get = (id: string) => groups.find((g) => g.id === id);
  const targets: Target[] = [];

  const rule = get('rule');
  const v = byEngine(rule, 'verdict');
  const base = byEngine(rule, 'baseline');
  const jl = byEngine(rule, 'json-logic-js');
  if (v && base?.ratio !== undefined && jl?.ratio !== undefined) {
    const vsBase = 1 / base.ratio;
    const vsJl = jl.ratio;
    targets.push({
      id: '1', goal: 'evaluate ≤ 4× hand-written JS and ≥ 2× faster than json-logic-js `apply`',
      measured: `${formatNs(v.ns)}: ${x(vsBase)} hand-written (${formatNs(base.ns)}); json-logic-js (${formatNs(jl.ns)}) is ${x(vsJl)} slower. Median batches: ${p50Ratio(v, base)} and ${p50Ratio(jl, v)}`,
      pass: vsBase <= 4 && vsJl >= 2,
    });
  } else targets.push({ id: '1', goal: 'evaluate ≤ 4× hand-written JS and ≥ 2× faster than json-logic-js', measured: 'not measured', pass: null });

  const s100 = byEngine(get('scale-100'), 'verdict');
  const s10k = byEngine(get('scale-10000'), 'verdict');
  if (s100 && s10k) {
    const ratios = [10, 100, 1000, 10000].map((n) => byEngine(get(`scale-${n}`), 'verdict')).map((r) => (r ? formatNs(r.ns) : '—'));
    targets.push({
      id: '2', goal: '10,000 constraints ≤ 3× the 100-constraint case',
      measured: `${x(s10k.ns / s100.ns)} (10 / 100 / 1,000 / 10,000: ${ratios.join(' / ')}). Median batches: ${p50Ratio(s10k, s100)}`,
      pass: s10k.ns / s100.ns <= 3,
    });
  } else targets.push({ id: '2', goal: '10,000 constraints ≤ 3× the 100-constraint case', measured: 'not measured', pass: null });

  const review = get('review');
  const rv = byEngine(review, 'verdict-review');
  const re = byEngine(review, 'verdict');
  if (rv && re) {
    const clones = review?.info?.['clonesWithoutMutation'];
    targets.push({
      id: '3', goal: '`review()` of a ~2 KB AdmissionReview ≤ 3× `PolicySet.evaluate`; no clone without mutation',
      measured: `${formatNs(rv.ns)} vs ${formatNs(re.ns)}: ${x(rv.ratio ?? rv.ns / re.ns)} (median batches: ${p50Ratio(rv, re)})${clones === undefined ? '' : `; the Pod is not copied: ${clones === 0 ? 'yes' : 'no'}`}`,
      pass: (rv.ratio ?? rv.ns / re.ns) <= 3 && (clones === undefined || clones === 0),
    });
  } else targets.push({ id: '3', goal: '`review()` ≤ 3× `PolicySet.evaluate`', measured: review?.info?.['skipped'] ? `not run: ${review.info['skipped']}` : 'not measured', pass: null });

  const vap = get('vap');
  const va = byEngine(vap, 'verdict-vap');
  const vj = byEngine(vap, 'verdict');
  if (va && vj) {
    const ratio = va.ratio ?? va.ns / vj.ns;
    targets.push({
      id: 'vap', goal: 'a ValidatingAdmissionPolicy (CEL) through `review()` ≤ 2× the same check as a json-logic Policy',
      measured: `${formatNs(va.ns)} vs ${formatNs(vj.ns)}: ${x(ratio)} (median batches: ${p50Ratio(va, vj)})`,
      pass: ratio <= 2,
    });
  } else targets.push({ id: 'vap', goal: 'a ValidatingAdmissionPolicy through `review()` ≤ 2× a json-logic Policy', measured: vap?.info?.['skipped'] ? `not run: ${vap.info['skipped']}` : 'not measured', pass: null });

  targets.push(mpolTarget(get('mpol')));

  const load = get('load');
  const cold = load?.rows.find((r) => r.reference);
  if (cold?.metrics) {
    const mb = Math.max(cold.metrics['retainedBytes'] ?? 0, cold.metrics['peakBytes'] ?? 0) / 2 ** 20;
    targets.push({
      id: '4', goal: '`compilePolicies` of 1,000 constraints < 1 s and < 100 MB',
      measured: `${formatNs(cold.ns)}, ${(cold.metrics['retainedBytes']! / 2 ** 20).toFixed(1)} MB retained, ${(cold.metrics['peakBytes']! / 2 ** 20).toFixed(1)} MB peak`,
      pass: cold.ns < 1e9 && mb < 100,
    });
  } else targets.push({ id: '4', goal: '`compilePolicies` of 1,000 constraints < 1 s and < 100 MB', measured: 'not measured', pass: null });

  targets.push(webhookTarget(get('webhook')));
  targets.push(hostileTarget(get('hostile-regex'), get('hostile-glob'), get('hostile-cel')));
  targets.push(auditTarget(get('audit')));
  return targets;
}

const GOAL_MPOL = 'a Kyverno MutatingPolicy through a mutating `review()` no more costly than the same mutation as a MutatingAdmissionPolicy (≤ 1.05×: the noise of one run)';

/** The MutatingPolicy row against the MutatingAdmissionPolicy of the same run. */
export function mpolTarget(group: AggregatedGroup | undefined): Target {
  const mp = byEngine(group, 'verdict-mpol');
  const ma = byEngine(group, 'verdict-map');
  if (!mp || !ma) return { id: 'mpol', goal: GOAL_MPOL, measured: group?.info?.['skipped'] ? `not run: ${String(group.info['skipped'])}` : 'not measured', pass: null };
  const ratio = mp.ratio ?? mp.ns / ma.ns;
  return { id: 'mpol', goal: GOAL_MPOL, measured: `${formatNs(mp.ns)} vs ${formatNs(ma.ns)}: ${x(ratio)} (median batches: ${p50Ratio(mp, ma)})`, pass: ratio <= 1.05 };
}

const GOAL_7 = '`verdict audit` of 10,000 objects: the CLI\'s deciding phase ≤ 2× an in-process `review()` loop over the same parsed objects';

/** Target 7: the audit's own deciding phase against the plain review loop of the same run. */
export function auditTarget(audit: AggregatedGroup | undefined): Target {
  const decide = byEngine(audit, 'verdict-audit-decide');
  const loop = byEngine(audit, 'review-loop');
  const total = byEngine(audit, 'verdict-audit');
  if (!decide || !loop) return { id: '7', goal: GOAL_7, measured: audit?.info?.['skipped'] ? `not run: ${audit.info['skipped']}` : 'not measured', pass: null };
  const ratio = decide.ratio ?? decide.ns / loop.ns;
  const rate = (r: typeof decide) => `${Math.round(((r.metrics?.['objects'] ?? 0) * 1e9) / r.ns).toLocaleString('en-US')} objects/s`;
  return {
    id: '7', goal: GOAL_7,
    measured: `deciding ${formatNs(decide.ns)} (${rate(decide)}) vs the loop ${formatNs(loop.ns)} (${rate(loop)}): ${x(ratio)}${total ? `; end to end ${formatNs(total.ns)} (${rate(total)})` : ''}`,
    pass: ratio <= 2,
  };
}

const GOAL_5 = '`webhook.listener` over HTTPS ≥ 0.9× the bare `node:https` server\'s req/s and p99 ≤ 1.5× its p99, at 1 and 10 connections; no errors';

/** Target 5: per connection count, the listener row against the bare row of the same run (median over runs of the ratio). */
export function webhookTarget(hook: AggregatedGroup | undefined): Target {
  if (!hook || hook.rows.length === 0) return { id: '5', goal: GOAL_5, measured: hook?.info?.['skipped'] ? `not run: ${hook.info['skipped']}` : 'not measured', pass: null };
  const parts: string[] = [];
  let pass = hook.rows.every((r) => (r.metrics?.['errors'] ?? 1) === 0 && (r.metrics?.['non2xx'] ?? 1) === 0);
  const byConnections = new Map<number, AggregatedRow[]>();
  for (const r of hook.rows) byConnections.set(r.metrics?.['connections'] ?? 0, [...(byConnections.get(r.metrics?.['connections'] ?? 0) ?? []), r]);
  for (const [connections, rows] of byConnections) {
    const bare = rows.find((r) => r.engine === 'bare')?.metrics;
    const listener = rows.find((r) => r.engine === 'listener')?.metrics;
    const handle = rows.find((r) => r.engine === 'handle')?.metrics;
    if (!bare || !listener) {
      pass = false;
      continue;
    }
    // The median over processes of each process's own ratio (the servers of one process ran side by side).
    const rps = listener['rpsRatio'] ?? listener['rps']! / bare['rps']!;
    const p99 = listener['p99Ratio'] ?? listener['p99Ms']! / bare['p99Ms']!;
    pass &&= rps >= 0.9 && p99 <= 1.5;
    const fetch = handle ? `; Fetch handler ${x(handle['rpsRatio'] ?? handle['rps']! / bare['rps']!)}` : '';
    parts.push(`${connections} conn.: ${listener['rps']!.toFixed(0)} vs ${bare['rps']!.toFixed(0)} req/s = ${x(rps)}, p99 ${listener['p99Ms']} vs ${bare['p99Ms']} ms = ${x(p99)}${fetch}`);
  }
  return { id: '5', goal: GOAL_5, measured: parts.join('; ') || 'not measured', pass: parts.length === 0 ? null : pass };
}

/**
 * Target 6: a hostile input costs at most 3× a benign one of the same length, for regex and for glob; for CEL,
 * at most 3× a benign input's time per unit of cost (the rows' units are in the group's info).
 */
function hostileTarget(regex: AggregatedGroup | undefined, glob: AggregatedGroup | undefined, cel: AggregatedGroup | undefined): Target {
  const goal = 'hostile input ≤ 3× a benign one of the same length (50,000 characters), regex and glob; CEL: ≤ 3× per unit of cost';
  const ratio = (g: AggregatedGroup | undefined, benign: string, hostile: string) => {
    const b = byEngine(g, benign);
    const h = byEngine(g, hostile);
    return b && h ? h.ns / b.ns : undefined;
  };
  const perUnit = (benign: string, hostile: string) => {
    const r = ratio(cel, benign, hostile);
    const [cb, ch] = [Number(cel?.info?.[`cost:${benign}`]), Number(cel?.info?.[`cost:${hostile}`])];
    return r === undefined || !(cb > 0) || !(ch > 0) ? undefined : r * (cb / ch);
  };
  const r = ratio(regex, 'verdict', 'verdict-hostile');
  const dashes = ratio(glob, 'verdict', 'verdict-hostile');
  const stars = ratio(glob, 'verdict-benign-stars', 'verdict-hostile-stars');
  const nfa = ratio(glob, 'verdict-benign-nfa', 'verdict-hostile-nfa');
  if (r === undefined || dashes === undefined || stars === undefined || nfa === undefined) return { id: '6', goal, measured: 'not measured', pass: null };
  const labels = perUnit('verdict-cel-benign-labels', 'verdict-cel-hostile-labels');
  const deep = perUnit('verdict-cel-benign', 'verdict-cel-hostile-deep');
  const wide = perUnit('verdict-cel-benign', 'verdict-cel-hostile-wide');
  const labelsEqual = perUnit('verdict-cel-benign', 'verdict-cel-hostile-labels-equal');
  const celRatios = [labels, deep, wide, labelsEqual].filter((v): v is number => v !== undefined);
  const celText = celRatios.length === 4 ? `; CEL per unit: ${x(labels!)} (\`in\` on 10,001 labels), ${x(deep!)} (10,000 deep), ${x(wide!)} (5,000 containers compared), ${x(labelsEqual!)} (10,001 labels compared)` : '; CEL not measured';
  return {
    id: '6', goal, pass: Math.max(r, dashes, stars, nfa, ...celRatios) <= 3,
    measured: `regex ${x(r)}; glob ${x(dashes)} (\`*-*-*-*-*.internal\`), ${x(stars)} (\`*a*a*a*a*a*a*a*b\`), ${x(nfa)} (\`**/*-*-*-*-*.internal\`, NFA)${celText}`,
  };
}
