/**
 * Running gator suites as they are (`gator verify` semantics): each test
 * loads its template and constraint (any verdict or Kubernetes documents,
 * e.g. a ConstraintTemplate with CEL, or a PolicyTemplate port of a Rego
 * one), each case reviews its object and checks every assertion against the
 * results. A test reports as one suite (`<suite> › <test>`) of cases.
 */
import { formatProblem, PolicyLoadError, VerdictError, type PolicyDocument } from '@verdict/core';
import { checkAssertion, type CheckResult } from '../checks.js';
import { SuiteError } from '../errors.js';
import { displayPath, readInputFile, readPolicyFiles } from '../files.js';
import type { Outcome } from '../outcome.js';
import { isMissing } from '../adapters/registry.js';
import type { RunSuitesOptions } from '../suite/run.js';
import type { CaseResult, SuiteResult } from '../suite/types.js';
import type { GatorCase, GatorSuite, GatorTest } from './parse.js';

type Reviewer = (object: unknown, options: { label: string; inventory: readonly unknown[] }) => Promise<Outcome>;

async function reviewerFor(documents: readonly PolicyDocument[]): Promise<Reviewer> {
  try {
    return (await import('./review.js')).createGatorReviewer(documents);
  } catch (error) {
    if (!isMissing(error, '@verdict/kubernetes')) throw error;
    throw new SuiteError('ADAPTER_NOT_INSTALLED', 'gator suites need @verdict/kubernetes, which is not installed: add it next to @verdict/testing (npm install --save-dev @verdict/kubernetes)', { cause: error });
  }
}

function matches(filter: RunSuitesOptions['filter'], names: readonly string[]): boolean {
  if (filter === undefined) return true;
  return names.some((n) => (typeof filter === 'string' ? n.includes(filter) : filter.test(n)));
}

function errorLines(error: unknown): string[] {
  if (error instanceof PolicyLoadError) return ['policies failed to load:', ...error.problems.map((p) => `  ${formatProblem(p)}`)];
  return [(error as Error).message];
}

/** Whether a load failure is the one `invalid: true` expects: the constraint's parameters refused by its template's schema. */
function isSchemaRefusal(error: unknown): boolean {
  return error instanceof PolicyLoadError && error.problems.length > 0 && error.problems.every((p) => p.code === 'INVALID_PARAMETERS' || (p.code === 'SCHEMA' && p.path.startsWith('/spec/parameters')));
}

async function runCase(c: GatorCase, review: Reviewer, cwd: string | undefined): Promise<CaseResult> {
  const started = performance.now();
  const base = { name: c.name, ...(c.line ? { line: c.line } : {}) };
  if (c.skip) return { ...base, status: 'skipped', checks: [], durationMs: 0 };
  try {
    const label = displayPath(c.object, cwd);
    const object = readInputFile(c.object, label);
    const inventory = c.inventory.length > 0 ? readPolicyFiles(c.inventory, cwd ? { cwd } : {}) : [];
    const outcome = await review(object, { label, inventory });
    const checks: CheckResult[] = c.assertions.map((a) => checkAssertion(outcome, a));
    return { ...base, adapter: 'kubernetes', checks, answer: outcome.answer, status: checks.every((x) => x.pass) ? 'passed' : 'failed', durationMs: performance.now() - started };
  } catch (error) {
    const message = error instanceof VerdictError ? error.message : `unexpected error: ${(error as Error).message}`;
    return { ...base, status: 'error', checks: [], error: message, durationMs: performance.now() - started };
  }
}

async function runTest(suite: GatorSuite, test: GatorTest, options: RunSuitesOptions): Promise<SuiteResult> {
  const started = performance.now();
  const name = `${suite.name} › ${test.name}`;
  const cases = test.cases.filter((c) => matches(options.filter, [c.name, `${name} › ${c.name}`]));
  options.onSuite?.({ file: suite.file, name, cases: test.invalid ? 1 : cases.length });
  const result: SuiteResult = { file: suite.file, name, status: 'passed', cases: [], durationMs: 0 };
  const finish = (status?: SuiteResult['status']) => {
    const statuses = result.cases.map((c) => c.status);
    result.status = status ?? (statuses.some((s) => s === 'failed' || s === 'error') ? 'failed' : statuses.length > 0 && statuses.every((s) => s === 'skipped') ? 'skipped' : 'passed');
    result.durationMs = performance.now() - started;
    options.onSuiteEnd?.(result);
    return result;
  };
  const push = (c: CaseResult) => {
    result.cases.push(c);
    options.onCase?.(c, { file: suite.file, name });
  };
  if (suite.skip || test.skip) {
    for (const c of cases) push({ name: c.name, status: 'skipped', checks: [], durationMs: 0 });
    return finish();
  }
  if (test.expansion) {
    result.error = [`expansion ${displayPath(test.expansion, options.cwd)}: ExpansionTemplates are not supported; review the expanded object (e.g. the Pod of a Deployment) as its own case`];
    return finish('error');
  }
  let review: Reviewer;
  try {
    const documents = readPolicyFiles([test.template, test.constraint], options.cwd ? { cwd: options.cwd } : {});
    review = await reviewerFor(documents);
  } catch (error) {
    if (test.invalid && isSchemaRefusal(error)) {
      push({ name: 'the constraint is refused by its template', status: 'passed', checks: [], durationMs: performance.now() - started });
      return finish();
    }
    result.error = errorLines(error);
    return finish('error');
  }
  if (test.invalid) {
    push({ name: 'the constraint is refused by its template', status: 'failed', checks: [], error: 'expected the constraint to be refused by its template\'s parameters schema (invalid: true), but it loaded', durationMs: performance.now() - started });
    return finish();
  }
  for (const c of cases) push(await runCase(c, review, options.cwd));
  return finish();
}

/** Runs a loaded gator suite: one result per test. Never throws: load failures become a test in error. */
export async function runGatorSuite(suite: GatorSuite, options: RunSuitesOptions = {}): Promise<SuiteResult[]> {
  const out: SuiteResult[] = [];
  for (const test of suite.tests) out.push(await runTest(suite, test, options));
  return out;
}

/** How many cases of a gator suite `options.filter` keeps (for the runner's plan). */
export function countGatorCases(suite: GatorSuite, filter: RunSuitesOptions['filter']): number {
  return suite.tests.reduce((n, t) => n + (t.invalid ? 1 : t.cases.filter((c) => matches(filter, [c.name, `${suite.name} › ${t.name} › ${c.name}`])).length), 0);
}
