/**
 * JUnit XML for CI systems (GitLab, Jenkins, GitHub reporters): one
 * `<testsuite>` per suite, one `<testcase>` per case, `<failure>` for a
 * failed expectation, `<error>` for a case or suite that could not run,
 * `<skipped/>` for skipped cases. Attributes follow the common JUnit schema
 * (the Ant/Jenkins XSD): every required attribute is present.
 */
import { hostname } from 'node:os';
import { formatCaseFailure } from './report.js';
import type { CaseResult, SuiteReport, SuiteResult } from './suite/types.js';

// XML 1.0 forbids most control characters even when escaped.
// eslint-disable-next-line no-control-regex
const INVALID = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;

/** Escapes text for an XML attribute or element. */
export function escapeXml(text: string): string {
  return text.replace(INVALID, '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

function attrs(values: Record<string, string | number | undefined>): string {
  return Object.entries(values)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => ` ${k}="${escapeXml(String(v))}"`)
    .join('');
}

const seconds = (ms: number) => (ms / 1000).toFixed(3);

function testcase(suite: SuiteResult, c: CaseResult): string {
  const head = `    <testcase${attrs({ name: c.name, classname: suite.name, time: seconds(c.durationMs), file: suite.file, line: c.line })}`;
  if (c.status === 'passed') return `${head}/>`;
  if (c.status === 'skipped') return `${head}>\n      <skipped/>\n    </testcase>`;
  const text = formatCaseFailure(c);
  const first = c.status === 'error' ? (c.error ?? 'error') : (c.checks.find((x) => !x.pass)?.message.split('\n')[0] ?? 'failed');
  const tag = c.status === 'error' ? 'error' : 'failure';
  const type = c.status === 'error' ? 'error' : 'assertion';
  return `${head}>\n      <${tag}${attrs({ message: first, type })}>${escapeXml(text)}</${tag}>\n    </testcase>`;
}

function testsuite(suite: SuiteResult, id: number, timestamp: string, host: string): string {
  const cases = suite.cases.map((c) => testcase(suite, c));
  let errors = suite.cases.filter((c) => c.status === 'error').length;
  if (suite.status === 'error') {
    errors++;
    const message = suite.error?.[0] ?? 'the suite could not run';
    cases.push(`    <testcase${attrs({ name: '(suite)', classname: suite.name, time: '0.000', file: suite.file })}>\n      <error${attrs({ message, type: 'error' })}>${escapeXml((suite.error ?? []).join('\n'))}</error>\n    </testcase>`);
  }
  const a = attrs({
    name: suite.name, tests: cases.length, failures: suite.cases.filter((c) => c.status === 'failed').length, errors,
    skipped: suite.cases.filter((c) => c.status === 'skipped').length, time: seconds(suite.durationMs), timestamp, hostname: host, id, package: suite.file, file: suite.file,
  });
  return `  <testsuite${a}>\n${cases.join('\n')}${cases.length ? '\n' : ''}  </testsuite>`;
}

/**
 * The report as a JUnit XML document. `timestamp` (default now) and `hostname`
 * (default the machine's) fill the attributes of the same names.
 */
export function toJUnitXml(report: SuiteReport, options: { name?: string; timestamp?: Date; hostname?: string } = {}): string {
  const timestamp = (options.timestamp ?? new Date()).toISOString().replace(/\.\d{3}Z$/, '');
  const host = options.hostname ?? hostname();
  const suites = report.suites.map((s, i) => testsuite(s, i, timestamp, host));
  const errors = report.suites.reduce((n, s) => n + s.cases.filter((c) => c.status === 'error').length + (s.status === 'error' ? 1 : 0), 0);
  const failures = report.suites.reduce((n, s) => n + s.cases.filter((c) => c.status === 'failed').length, 0);
  const tests = report.suites.reduce((n, s) => n + s.cases.length + (s.status === 'error' ? 1 : 0), 0);
  const head = attrs({ name: options.name ?? 'verdict', tests, failures, errors, skipped: report.skipped, time: seconds(report.durationMs) });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites${head}>\n${suites.join('\n')}${suites.length ? '\n' : ''}</testsuites>\n`;
}
