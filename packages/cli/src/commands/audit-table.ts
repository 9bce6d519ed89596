/** `verdict audit -o table`: the objects with findings, one block each, then the counts. */
import type { Style } from '../io.js';
import type { ManifestProblem } from './audit-parse.js';
import { summarize, type AuditedObject, type AuditReport, type PolicyResult } from './audit-results.js';

/** `Kind namespace/name` (or what the adapter names the input by). */
export function describeObject(o: Pick<AuditedObject, 'kind' | 'namespace' | 'name'>): string {
  const name = o.namespace ? `${o.namespace}/${o.name}` : o.name;
  return [o.kind, name].filter(Boolean).join(' ') || '(unnamed)';
}

/** `file:line`. */
export function where(o: { file: string; line: number }): string {
  return `${o.file}:${o.line}`;
}

function resultLines(r: PolicyResult, s: Style): string[] {
  // An error of a deny policy denies the object: it gets the deny glyph; an error of a warn or dryrun policy only warns.
  const mark = r.status === 'fail' ? (r.enforcementAction === 'audit' ? s.warn('•') : s.bad('✗')) : r.status === 'warn' ? s.warn('!') : r.enforcementAction === 'deny' ? s.bad('✗') : s.warn('!');
  const label = r.status === 'error' ? `${s.bad('error')} ` : r.enforcementAction === 'audit' ? `${s.dim('(dryrun)')} ` : '';
  const policy = r.policy ? `[${r.policy}] ` : '';
  const messages = r.messages.length ? r.messages : [`rule ${r.rule} ${r.status === 'error' ? 'failed to evaluate' : 'failed'}`];
  return messages.map((m) => `  ${mark} ${label}${policy}${m}`);
}

function plural(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}

/** The closing counts line. */
export function summaryText(report: AuditReport): string {
  const c = summarize(report);
  const passed = c.objects - c.denied - c.warned;
  const parts = [`${plural(c.objects, 'object')} in ${plural(c.files, 'file')}: ${c.denied} denied, ${c.warned} warned, ${passed} passed`];
  if (c.skipped) parts.push(`${c.skipped} skipped`);
  if (c.problems) parts.push(plural(c.problems, 'unreadable manifest'));
  return parts.join('; ');
}

function problemLine(p: ManifestProblem, s: Style): string {
  return `${s.bold(`${p.file}:${p.line}${p.column ? `:${p.column}` : ''}`)}\n  ${s.bad('✗')} ${s.bad('unreadable')}: ${p.message}`;
}

/**
 * The table: every object with a fail, warn or error result (passing objects
 * too with `all`), the unreadable manifests, skipped objects with `all`, and
 * the summary.
 */
export function formatTable(report: AuditReport, s: Style, options: { all?: boolean } = {}): string {
  const blocks: string[] = [];
  for (const o of report.objects) {
    if (o.skipped !== undefined) {
      if (options.all) blocks.push(`${s.bold(where(o))} ${s.dim(`skipped: ${o.skipped}`)}`);
      continue;
    }
    const findings = o.results.filter((r) => r.status === 'fail' || r.status === 'warn' || r.status === 'error');
    if (findings.length === 0 && !options.all) continue;
    const verdict = o.allowed ? (findings.length ? s.warn('allowed') : s.ok('allowed')) : s.bad('denied');
    const lines = [`${s.bold(where(o))}  ${describeObject(o)}  ${verdict}`];
    for (const r of findings) lines.push(...resultLines(r, s));
    if (findings.length === 0) lines.push(s.dim(`  ✓ ${plural(o.results.length, 'rule')} passed`));
    blocks.push(lines.join('\n'));
  }
  for (const p of report.problems) blocks.push(problemLine(p, s));
  for (const w of report.warnings ?? []) blocks.push(`${s.bold(`${w.file}:${w.line}${w.column ? `:${w.column}` : ''}`)}\n  ${s.warn('!')} ${w.message}`);
  const assumed = report.assumedNamespaces ?? [];
  if (assumed.length) {
    blocks.push(s.dim(`assumed to exist with only the label kubernetes.io/metadata.name (no Namespace document): ${plural(assumed.length, 'namespace')}: ${assumed.join(', ')}; --strict-namespaces to treat them as unknown`));
  }
  const summary = summaryText(report);
  const c = summarize(report);
  blocks.push(c.denied || c.problems ? s.bad(summary) : c.warned ? s.warn(summary) : s.ok(summary));
  return `${blocks.join('\n\n')}\n`;
}
