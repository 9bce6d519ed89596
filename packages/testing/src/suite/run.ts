/**
 * The suite runner: find suites, load each one's policies once, evaluate
 * every case with the evaluator its input needs, check the expectations.
 * It never prints; callers (the CLI) follow progress through callbacks.
 */
import { resolve } from 'node:path';
import { formatProblem, PolicyLoadError, VerdictError, type LinearRegex, type PolicyDocument } from '@verdict/core';
import { checkAdmission, checkAllowed, checkAssertion, checkDenialCount, checkMessages, checkReason, checkStatus, checkWarnings, type CheckResult } from '../checks.js';
import { checkParameters, checkPatch, checkRunners, checkTags } from '../checks-data.js';
import { formatSuiteProblem, SuiteError } from '../errors.js';
import { detectAdapter, EvaluatorCache, type InputOptions } from '../evaluate.js';
import { unboundAdmissionPolicies } from './unbound.js';
import { findSuites, isGatorSuiteFile, isKyvernoTestFile, readInputFile, readPolicyFiles } from '../files.js';
import { loadGatorSuite, type GatorSuite } from '../gator/parse.js';
import { countGatorCases, runGatorSuite } from '../gator/run.js';
import { loadKyvernoTest, type KyvernoTest } from '../kyverno/parse.js';
import { countKyvernoCases, runKyvernoTest } from '../kyverno/run.js';
import type { Outcome } from '../outcome.js';
import { loadSuiteFile } from './parse.js';
import type { CaseResult, Suite, SuiteCase, SuiteExpect, SuiteReport, SuiteResult } from './types.js';

/** Options of {@link runSuites}. */
export interface RunSuitesOptions {
  /** Directory that relative paths are resolved against (default `process.cwd()`). */
  cwd?: string;
  /** Run only cases whose name, or `suite name › case name`, matches (a string is a substring). */
  filter?: string | RegExp | LinearRegex;
  /** Called once every suite is loaded, before the first case runs. */
  onStart?(plan: { suites: number; cases: number }): void;
  /** Called when a suite starts. */
  onSuite?(suite: { file: string; name: string; cases: number }): void;
  /** Called after each case, as it finishes (progress for large suites). */
  onCase?(result: CaseResult, suite: { file: string; name: string }): void;
  /** Called when a suite is done (also for suites that could not run). */
  onSuiteEnd?(result: SuiteResult): void;
}

/** Checks every expectation of a case against an outcome, in a fixed order. */
export function checkExpectations(outcome: Outcome, expect: SuiteExpect): CheckResult[] {
  const out: CheckResult[] = [];
  if (expect.allowed !== undefined) out.push(checkAllowed(outcome, expect.allowed));
  if (expect.admission !== undefined) out.push(checkAdmission(outcome, expect.admission));
  if (expect.violations !== undefined) out.push(checkDenialCount(outcome, expect.violations));
  if (expect.messages !== undefined) out.push(checkMessages(outcome, expect.messages));
  for (const assertion of expect.assertions ?? []) out.push(checkAssertion(outcome, assertion));
  if (expect.reason !== undefined) out.push(checkReason(outcome, expect.reason));
  if (expect.status !== undefined) out.push(checkStatus(outcome, expect.status));
  if (expect.warnings !== undefined) out.push(checkWarnings(outcome, expect.warnings));
  if (expect.patch !== undefined) out.push(checkPatch(outcome, expect.patch));
  if (expect.parameters !== undefined) out.push(checkParameters(outcome, expect.parameters));
  if (expect.tags !== undefined) out.push(checkTags(outcome, expect.tags));
  if (expect.runners !== undefined) out.push(checkRunners(outcome, expect.runners));
  return out;
}

function matchesFilter(filter: RunSuitesOptions['filter'], suite: Suite, c: SuiteCase): boolean {
  if (filter === undefined) return true;
  const names = [c.name, `${suite.name} › ${c.name}`];
  return names.some((n) => (typeof filter === 'string' ? n.includes(filter) : filter.test(n)));
}

function errorLines(error: unknown): string[] {
  if (error instanceof PolicyLoadError) return [`policies failed to load:`, ...error.problems.map((p) => `  ${formatProblem(p)}`)];
  if (error instanceof SuiteError && error.problems.length > 0) return error.problems.map(formatSuiteProblem);
  return [(error as Error).message];
}

function inputFor(suite: Suite, value: unknown, label: string): unknown {
  return typeof value === 'string' ? readInputFile(resolve(suite.dir, value), `${label} (${value})`) : value;
}

/** The case's `inventory:` entries (files or objects; a `kind: List` or a list gives its items) as one list of objects. */
function inventoryFor(suite: Suite, entries: readonly unknown[]): unknown[] {
  return entries.flatMap((entry, i) => {
    const value = inputFor(suite, entry, `inventory[${i}]`);
    return Array.isArray(value) ? value : isList(value) ? (value as { items: unknown[] }).items : [value];
  });
}

function isList(value: unknown): boolean {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'List' && Array.isArray((value as { items?: unknown }).items);
}

async function runCase(suite: Suite, c: SuiteCase, evaluators: EvaluatorCache): Promise<CaseResult> {
  const started = performance.now();
  const base = { name: c.name, ...(c.line ? { line: c.line } : {}) };
  if (suite.skip || c.skip) return { ...base, status: 'skipped', checks: [], durationMs: 0 };
  let adapter;
  try {
    const input = inputFor(suite, c.input, 'input');
    adapter = c.as ?? (suite.adapter === 'auto' ? detectAdapter(input) : suite.adapter);
    const options: InputOptions = {};
    if (c.operation) options.operation = c.operation;
    if (c.namespaceLabels) options.namespaceLabels = c.namespaceLabels;
    if (c.userInfo) options.userInfo = c.userInfo;
    if (c.oldObject !== undefined) options.oldObject = inputFor(suite, c.oldObject, 'oldObject');
    if (c.inventory) options.inventory = inventoryFor(suite, c.inventory);
    const evaluator = await evaluators.get(adapter);
    const outcome = await evaluator.evaluate(input, options);
    const checks = checkExpectations(outcome, c.expect);
    const passed = checks.every((x) => x.pass);
    const result: CaseResult = { ...base, adapter, checks, answer: outcome.answer, status: passed ? 'passed' : 'failed', durationMs: performance.now() - started };
    const missing = /needs the labels of namespace "([^"]*)"/.exec(outcome.denials.join('\n'));
    if (!passed && missing) result.hint = `namespace "${missing[1]}" has no labels in this suite: list it under kubernetes.namespaces, or give the case namespaceLabels`;
    return result;
  } catch (error) {
    if (error instanceof PolicyLoadError) throw error;
    const message = error instanceof VerdictError ? error.message : `unexpected error: ${(error as Error).message}`;
    return { ...base, ...(adapter ? { adapter } : {}), status: 'error', checks: [], error: message, durationMs: performance.now() - started };
  }
}

/** Runs one loaded suite. Never throws: load failures become a suite with `status: 'error'`. */
export async function runSuite(suite: Suite, options: RunSuitesOptions = {}): Promise<SuiteResult> {
  const started = performance.now();
  const cases = suite.cases.filter((c) => matchesFilter(options.filter, suite, c));
  options.onSuite?.({ file: suite.file, name: suite.name, cases: cases.length });
  const result: SuiteResult = { file: suite.file, name: suite.name, status: 'passed', cases: [], durationMs: 0 };
  const finish = () => {
    result.durationMs = performance.now() - started;
    if (result.status !== 'error') {
      const statuses = result.cases.map((c) => c.status);
      result.status = statuses.some((s) => s === 'failed' || s === 'error') ? 'failed' : statuses.length > 0 && statuses.every((s) => s === 'skipped') ? 'skipped' : 'passed';
    }
    options.onSuiteEnd?.(result);
    return result;
  };
  let documents: PolicyDocument[] = [];
  try {
    if (!suite.skip && suite.policies.length > 0) documents = readPolicyFiles(suite.policies, options.cwd ? { cwd: options.cwd } : {});
  } catch (error) {
    result.status = 'error';
    result.error = errorLines(error);
    return finish();
  }
  const unbound = unboundAdmissionPolicies(documents).map((u) => `${u.source ? `${u.source}:${u.line}:${u.column}: ` : ''}${u.message}`);
  if (unbound.length > 0) result.warnings = unbound;
  const evaluators = new EvaluatorCache(documents, { ...pick(suite), baseDir: suite.dir });
  for (const c of cases) {
    let caseResult: CaseResult;
    try {
      caseResult = await runCase(suite, c, evaluators);
    } catch (error) {
      result.status = 'error';
      result.error = errorLines(error);
      return finish();
    }
    result.cases.push(caseResult);
    options.onCase?.(caseResult, { file: suite.file, name: suite.name });
  }
  return finish();
}

function pick(suite: Suite) {
  const out: { kubernetes?: Suite['kubernetes']; ci?: Suite['ci']; spinnaker?: Suite['spinnaker'] } = {};
  if (suite.kubernetes) out.kubernetes = suite.kubernetes;
  if (suite.ci) out.ci = suite.ci;
  if (suite.spinnaker) out.spinnaker = suite.spinnaker;
  return out;
}

/**
 * Finds the suites under `paths` (files or directories; see `findSuites`),
 * runs them in order and returns the report. A suite file that does not
 * parse or whose policies do not load is reported as a suite in error and
 * counted as one failure; other suites still run. Throws only
 * `SuiteError('SUITE_NOT_FOUND')` when a path is missing or holds no suite.
 */
export async function runSuites(paths: readonly string[], options: RunSuitesOptions = {}): Promise<SuiteReport> {
  const started = performance.now();
  const files = findSuites(paths, options.cwd ? { cwd: options.cwd } : {});
  const cwd = options.cwd ? { cwd: options.cwd } : {};
  const loaded: Array<{ file: string; suites?: Suite[]; gator?: GatorSuite; kyverno?: KyvernoTest; error?: string[] }> = files.map((file) => {
    try {
      const path = resolve(options.cwd ?? process.cwd(), file);
      if (isGatorSuiteFile(path)) return { file, gator: loadGatorSuite(file, cwd) };
      if (isKyvernoTestFile(path)) return { file, kyverno: loadKyvernoTest(file, cwd) };
      return { file, suites: loadSuiteFile(file, cwd) };
    } catch (error) {
      return { file, error: errorLines(error) };
    }
  });
  const count = (s: Suite) => s.cases.filter((c) => matchesFilter(options.filter, s, c)).length;
  options.onStart?.({
    suites: loaded.reduce((n, l) => n + (l.gator ? l.gator.tests.length : l.suites?.length ?? 1), 0),
    cases: loaded.reduce((n, l) => n + (l.gator ? countGatorCases(l.gator, options.filter) : l.kyverno ? countKyvernoCases(l.kyverno, options.filter) : (l.suites ?? []).reduce((m, s) => m + count(s), 0)), 0),
  });
  const report: SuiteReport = { suites: [], passed: 0, failed: 0, skipped: 0, durationMs: 0 };
  for (const entry of loaded) {
    if (entry.error) {
      const result: SuiteResult = { file: entry.file, name: entry.file, status: 'error', cases: [], error: entry.error, durationMs: 0 };
      options.onSuite?.({ file: entry.file, name: entry.file, cases: 0 });
      options.onSuiteEnd?.(result);
      report.suites.push(result);
      continue;
    }
    if (entry.gator) report.suites.push(...await runGatorSuite(entry.gator, options));
    if (entry.kyverno) report.suites.push(await runKyvernoTest(entry.kyverno, options));
    for (const suite of entry.suites ?? []) report.suites.push(await runSuite(suite, options));
  }
  for (const suite of report.suites) {
    if (suite.status === 'error') report.failed++;
    for (const c of suite.cases) {
      if (c.status === 'passed') report.passed++;
      else if (c.status === 'skipped') report.skipped++;
      else report.failed++;
    }
  }
  report.durationMs = performance.now() - started;
  return report;
}
