/**
 * Text for people: the diff of an expected and an actual value, a failing
 * check with the trace that explains it, the summary line. Used by the CLI's
 * report and by the JUnit writer.
 */
import { stringify } from 'yaml';
import type { CheckResult } from './checks.js';
import type { TraceStyle } from './trace.js';
import { indent, isLinearRegex, regexText } from './text.js';
import type { CaseResult, SuiteReport } from './suite/types.js';

function yaml(value: unknown): string {
  if (value === undefined) return '(none)';
  const plain = JSON.parse(JSON.stringify(value, (_k, v: unknown) => (v instanceof RegExp || isLinearRegex(v) ? regexText(v) : v)) ?? 'null') as unknown;
  return stringify(plain, { lineWidth: 0 }).trimEnd();
}

/**
 * A line diff (longest common subsequence) of two texts: unchanged lines
 * start with two spaces, removed (expected) lines with `- `, added (actual)
 * lines with `+ `.
 */
export function diffLines(expected: string, actual: string): string[] {
  const a = expected.split('\n');
  const b = actual.split('\n');
  if (a.length * b.length > 250_000) return [...a.map((l) => `- ${l}`), ...b.map((l) => `+ ${l}`)];
  const lcs: number[][] = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  }
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      out.push(`  ${a[i]}`);
      i++;
      j++;
    } else if (i < a.length && (j >= b.length || lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) out.push(`- ${a[i++]}`);
    else out.push(`+ ${b[j++]}`);
  }
  return out;
}

/** The expected/actual diff of a check, as YAML lines (`- expected`, `+ actual`). */
export function formatDiff(check: Pick<CheckResult, 'expected' | 'actual'>, style: Partial<TraceStyle> = {}): string {
  const bad = style.bad ?? ((s: string) => s);
  const ok = style.ok ?? ((s: string) => s);
  return diffLines(yaml(check.expected), yaml(check.actual))
    .map((line) => (line.startsWith('- ') ? ok(line) : line.startsWith('+ ') ? bad(line) : line))
    .join('\n');
}

/** A failing check: its message, the diff, and the relevant trace. */
export function formatCheckFailure(check: CheckResult, style: Partial<TraceStyle> = {}): string {
  const dim = style.dim ?? ((s: string) => s);
  const parts = [check.message, `${dim('- expected  + actual')}\n${formatDiff(check, style)}`];
  if (check.trace) parts.push(`trace:\n${indent(check.trace)}`);
  return parts.join('\n');
}

/** Everything that went wrong in one case (empty for a passing case). */
export function formatCaseFailure(result: CaseResult, style: Partial<TraceStyle> = {}): string {
  if (result.error) return result.error;
  const text = result.checks.filter((c) => !c.pass).map((c) => formatCheckFailure(c, style)).join('\n\n');
  return result.hint ? `${text}\n\nhint: ${result.hint}` : text;
}

/** `12 passed, 1 failed` (`, 2 skipped` when some were skipped). */
export function summaryLine(report: Pick<SuiteReport, 'passed' | 'failed' | 'skipped'>): string {
  return `${report.passed} passed, ${report.failed} failed${report.skipped ? `, ${report.skipped} skipped` : ''}`;
}
