/**
 * `verdict audit -o junit`: JUnit XML for CI test reporters. One
 * `<testsuite>` per file, one `<testcase>` per object and policy that applied
 * (`Kind namespace/name › Kind/policy`). Deny violations are `<failure>`s,
 * evaluation errors and unreadable manifests `<error>`s; warnings and dryrun
 * violations are not failures and go to the case's `<system-out>`.
 */
import { hostname } from 'node:os';
import { escapeXml } from '@verdict/testing/internal';
import type { AuditReport, AuditedObject, PolicyResult } from './audit-results.js';
import { describeObject } from './audit-table.js';

function attrs(values: Record<string, string | number | undefined>): string {
  return Object.entries(values)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => ` ${k}="${escapeXml(String(v))}"`)
    .join('');
}

interface Case {
  xml: string;
  failed: boolean;
  error: boolean;
}

function lines(results: readonly PolicyResult[]): string {
  return results.flatMap((r) => r.messages.map((m) => `[${r.rule}] ${m}`)).join('\n');
}

function policyCase(o: AuditedObject, results: readonly PolicyResult[]): Case {
  const first = results[0]!;
  const name = `${describeObject(o)} › ${first.kind ? `${first.kind}/` : ''}${first.policy}`;
  const head = `    <testcase${attrs({ name, classname: o.file, time: '0.000', file: o.file, line: o.line })}`;
  const errors = results.filter((r) => r.status === 'error');
  const failures = results.filter((r) => r.status === 'fail' && r.enforcementAction === 'deny');
  const notes = results.filter((r) => r.status === 'warn' || (r.status === 'fail' && r.enforcementAction !== 'deny'));
  const body: string[] = [];
  if (errors.length) body.push(`      <error${attrs({ message: errors[0]!.messages[0] ?? 'evaluation error', type: 'error' })}>${escapeXml(lines(errors))}</error>`);
  else if (failures.length) body.push(`      <failure${attrs({ message: failures[0]!.messages[0] ?? 'denied', type: 'deny' })}>${escapeXml(lines(failures))}</failure>`);
  if (notes.length) body.push(`      <system-out>${escapeXml(lines(notes).split('\n').map((l) => `warning: ${l}`).join('\n'))}</system-out>`);
  const xml = body.length ? `${head}>\n${body.join('\n')}\n    </testcase>` : `${head}/>`;
  return { xml, failed: errors.length === 0 && failures.length > 0, error: errors.length > 0 };
}

function casesOf(o: AuditedObject): Case[] {
  const byPolicy = new Map<string, PolicyResult[]>();
  for (const r of o.results) {
    const key = `${r.kind}/${r.policy}`;
    const list = byPolicy.get(key) ?? [];
    list.push(r);
    byPolicy.set(key, list);
  }
  return [...byPolicy.values()].map((results) => policyCase(o, results));
}

/** The report as JUnit XML. `timestamp` and `hostname` fill the attributes of the same names. */
export function formatJUnit(report: AuditReport, options: { timestamp?: Date; hostname?: string } = {}): string {
  const timestamp = (options.timestamp ?? new Date()).toISOString().replace(/\.\d{3}Z$/, '');
  const host = options.hostname ?? hostname();
  const files = new Map<string, Case[]>();
  const add = (file: string, c: Case) => {
    const list = files.get(file);
    if (list) list.push(c);
    else files.set(file, [c]);
  };
  for (const o of report.objects) if (o.skipped === undefined) for (const c of casesOf(o)) add(o.file, c);
  for (const p of report.problems) {
    const head = `    <testcase${attrs({ name: `(unreadable manifest at line ${p.line})`, classname: p.file, time: '0.000', file: p.file, line: p.line })}`;
    add(p.file, { xml: `${head}>\n      <error${attrs({ message: p.message, type: 'parse' })}>${escapeXml(p.message)}</error>\n    </testcase>`, failed: false, error: true });
  }
  const suites: string[] = [];
  let [tests, failures, errors] = [0, 0, 0];
  let id = 0;
  for (const [file, cases] of files) {
    const f = cases.filter((c) => c.failed).length;
    const e = cases.filter((c) => c.error).length;
    tests += cases.length;
    failures += f;
    errors += e;
    const a = attrs({ name: file, tests: cases.length, failures: f, errors: e, skipped: 0, time: '0.000', timestamp, hostname: host, id: id++, package: file, file });
    suites.push(`  <testsuite${a}>\n${cases.map((c) => c.xml).join('\n')}\n  </testsuite>`);
  }
  const head = attrs({ name: 'verdict audit', tests, failures, errors, skipped: 0, time: '0.000' });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites${head}>\n${suites.join('\n')}${suites.length ? '\n' : ''}</testsuites>\n`;
}
