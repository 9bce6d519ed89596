/**
 * Running Kyverno CLI tests as they are (`kyverno test` semantics,
 * `cmd/cli/kubectl-kyverno/commands/test`): every resource is reviewed once per
 * operation the results ask for, and each (result, resource) pair is a case
 * comparing the policy's result with the expected one. A policy that does not
 * apply to a resource is `excluded` (a pass, as Kyverno counts it) unless its
 * match block is a single plain rule, which Kyverno reports as not found (a
 * failure). A MutatingPolicy's case also compares the resource as the
 * policies left it with `patchedResources`, as `kyverno test` compares them
 * (patched.ts). A test reports as one suite (`<test name>`).
 */
import { formatProblem, PolicyLoadError, VerdictError, type PolicyDocument } from '@verdict/core';
import type { MutatingPolicyResult, ValidatingPolicyResult } from '@verdict/kubernetes';
import type { CheckResult } from '../checks.js';
import { SuiteError } from '../errors.js';
import { displayPath, readPolicyFiles } from '../files.js';
import { isMissing } from '../adapters/registry.js';
import type { RunSuitesOptions } from '../suite/run.js';
import type { CaseResult, SuiteResult } from '../suite/types.js';
import type { KyvernoExpectation, KyvernoTest } from './parse.js';
import { checkKyvernoPatched } from './patched.js';
import type { KyvernoReview, KyvernoReviewOptions } from './review.js';

type Raw = Record<string, unknown>;
type Reviewer = (resource: Raw, options: KyvernoReviewOptions) => Promise<KyvernoReview>;
type Prepare = (resource: Raw) => Raw;
type Operation = KyvernoReviewOptions['operation'];

const isRaw = (v: unknown): v is Raw => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown) => (typeof v === 'string' ? v : '');

async function reviewerFor(documents: readonly PolicyDocument[], namespaces: ReadonlyMap<string, Record<string, string>>): Promise<{ review: Reviewer; prepare: Prepare }> {
  try {
    const module = await import('./review.js');
    return { review: module.createKyvernoReviewer(documents, namespaces) as Reviewer, prepare: module.prepareResource };
  } catch (error) {
    if (!isMissing(error, '@verdict/kubernetes')) throw error;
    throw new SuiteError('ADAPTER_NOT_INSTALLED', 'Kyverno tests need @verdict/kubernetes, which is not installed: add it next to @verdict/testing (npm install --save-dev @verdict/kubernetes)', { cause: error });
  }
}

function matches(filter: RunSuitesOptions['filter'], names: readonly string[]): boolean {
  if (filter === undefined) return true;
  return names.some((n) => (typeof filter === 'string' ? n.includes(filter) : filter.test(n)));
}

/** The values file and inline values: namespace labels and the default operation. */
function valuesOf(test: KyvernoTest, cwd: string | undefined): { namespaces: Map<string, Record<string, string>>; operation: Operation } {
  const docs: Raw[] = [...(test.variables ? readPolicyFiles([test.variables], cwd ? { cwd } : {}) : []), ...(test.values ? [test.values] : [])];
  const namespaces = new Map<string, Record<string, string>>();
  let operation: Operation = 'CREATE';
  const labelsOf = (v: unknown) => Object.fromEntries(Object.entries(isRaw(v) ? v : {}).filter((e): e is [string, string] => typeof e[1] === 'string'));
  for (const doc of docs) {
    for (const s of Array.isArray(doc['namespaceSelector']) ? doc['namespaceSelector'] : []) if (isRaw(s) && text(s['name'])) namespaces.set(text(s['name']), labelsOf(s['labels']));
    for (const n of Array.isArray(doc['namespaces']) ? doc['namespaces'] : []) {
      const metadata = isRaw(n) && isRaw(n['metadata']) ? n['metadata'] : undefined;
      if (metadata && text(metadata['name'])) namespaces.set(text(metadata['name']), labelsOf(metadata['labels']));
    }
    const op = isRaw(doc['globalValues']) ? doc['globalValues']['request.operation'] : undefined;
    if (op === 'UPDATE' || op === 'DELETE' || op === 'CREATE') operation = op; // CONNECT keeps CREATE's request shape, as Kyverno does
  }
  return { namespaces, operation };
}

function userInfoOf(test: KyvernoTest, cwd: string | undefined): Record<string, unknown> {
  if (!test.userInfo) return {};
  const doc = readPolicyFiles([test.userInfo], cwd ? { cwd } : {})[0];
  return isRaw(doc?.['userInfo']) ? doc['userInfo'] : {};
}

interface Resource {
  object: Raw;
  kind: string;
  namespace: string;
  name: string;
  apiVersion: string;
}

function resourcesOf(test: KyvernoTest, cwd: string | undefined, prepare: Prepare): Resource[] {
  const out = new Map<string, Resource>();
  for (const doc of readPolicyFiles(test.resources, cwd ? { cwd } : {}).map(prepare)) {
    const metadata = isRaw(doc['metadata']) ? doc['metadata'] : {};
    const r: Resource = { object: doc, kind: text(doc['kind']), apiVersion: text(doc['apiVersion']), namespace: text(metadata['namespace']), name: text(metadata['name']) };
    const key = `${r.apiVersion},${r.kind},${r.namespace},${r.name}`;
    if (!out.has(key)) out.set(key, r); // kyverno test warns about duplicates and keeps one
  }
  return [...out.values()];
}

/** The resources a result names (by name, `namespace/name` or spec); every resource when it names none. */
function selected(e: KyvernoExpectation, resources: readonly Resource[]): { found: Resource[]; missing: string[] } {
  if (e.resources.length === 0 && e.resourceSpecs.length === 0) return { found: [...resources], missing: [] };
  const found = new Set<Resource>();
  const missing: string[] = [];
  for (const name of e.resources) {
    const [ns, n] = name.includes('/') ? name.split('/', 2) as [string, string] : [undefined, name];
    const hits = resources.filter((r) => r.name === n && (ns === undefined || r.namespace === ns));
    if (hits.length === 0) missing.push(name);
    for (const h of hits) found.add(h);
  }
  for (const s of e.resourceSpecs) {
    const apiVersion = s.group ? `${s.group}/${s.version}` : s.version;
    const hits = resources.filter((r) => r.apiVersion === apiVersion && r.namespace === s.namespace && r.name === s.name);
    if (hits.length === 0) missing.push(`${apiVersion}/${s.kind}/${s.namespace ? `${s.namespace}/` : ''}${s.name}`);
    for (const h of hits) found.add(h);
  }
  return { found: [...found], missing };
}

/** Kyverno's CLI `hasSelector`: a match block of one plain rule (its not-applying results are dropped, so the result is "not found"). */
function isPlainMatch(match: Readonly<Record<string, unknown>>): boolean {
  const selector = (v: unknown) => isRaw(v) && ((isRaw(v['matchLabels']) && Object.keys(v['matchLabels']).length > 0) || (Array.isArray(v['matchExpressions']) && v['matchExpressions'].length > 0));
  const rules = match['resourceRules'];
  if (selector(match['namespaceSelector']) || selector(match['objectSelector'])) return false;
  if (Array.isArray(match['excludeResourceRules']) && match['excludeResourceRules'].length > 0) return false;
  if (!Array.isArray(rules) || rules.length !== 1) return false;
  return !(isRaw(rules[0]) && Array.isArray(rules[0]['resourceNames']) && rules[0]['resourceNames'].length > 0);
}

type PolicyResult = Pick<ValidatingPolicyResult, 'autogen' | 'message'> & { result: string };

function check(expected: string, actual: string, detail: string | undefined, results: readonly PolicyResult[]): CheckResult {
  return {
    pass: actual === expected,
    expectation: `result ${expected}`,
    message: `expected the policy's result to be ${expected}, but it was ${actual}${detail ? `: ${detail}` : ''}`,
    negatedMessage: `expected the policy's result not to be ${expected}`,
    expected,
    actual,
    trace: results.map((r) => `${r.autogen ? `autogen ${r.autogen}` : 'policy'}: ${r.result}${r.message ? ` (${r.message})` : ''}`).join('\n'),
  };
}

/** The expected patched resource of a result: the file's resource of the patched one's apiVersion, kind, namespace and name. */
type ExpectedOf = (file: string, patched: Raw) => { resource: Raw | undefined; label: string };

/** What a case checks; `skipped`: kyverno test drops the row (why). */
interface Judged {
  checks: CheckResult[];
  skipped?: string;
}

/**
 * A MutatingPolicy's rows: none when no variant applied (Kyverno counts the resource as excluded, a pass);
 * else the patched resource compared with `patchedResources` (when given), then each applied variant's result.
 */
function judgeMutating(e: KyvernoExpectation, review: KyvernoReview, mine: readonly MutatingPolicyResult[], expectedOf: ExpectedOf): Judged {
  const applied = mine.filter((r) => r.result !== 'none');
  if (applied.length === 0) return { checks: [{ ...check(e.result, 'excluded', undefined, mine), pass: true }] };
  const checks: CheckResult[] = [];
  if (e.patchedResources) {
    const { resource: expected, label: file } = expectedOf(e.patchedResources, review.patched);
    const metadata = isRaw(review.patched['metadata']) ? review.patched['metadata'] : {};
    const missing = `${file} has no ${text(review.patched['apiVersion'])} ${text(review.patched['kind'])} ${text(metadata['namespace']) ? `${text(metadata['namespace'])}/` : ''}${text(metadata['name'])}`;
    if (!expected && !e.failOnMissingResources) return { checks: [], skipped: `${missing}: kyverno test drops this row (failOnMissingResources: true makes it a failure)` };
    checks.push(expected ? checkKyvernoPatched(review.patched, expected, file) : check('a patched resource', 'not found', missing, mine));
  }
  const wrong = applied.find((r) => r.result !== e.result);
  checks.push(wrong ? check(e.result, wrong.result, wrong.message, mine) : check(e.result, e.result, undefined, mine));
  return { checks };
}

/** The case of one (result, resource): Kyverno's rows for the policy's results, all of which must hold. */
function judge(e: KyvernoExpectation, review: KyvernoReview, expectedOf: ExpectedOf): Judged {
  const name = e.policy.split('/').pop()!;
  const mutating = review.mutating.filter((r) => r.name === name);
  if (mutating.length > 0) return judgeMutating(e, review, mutating, expectedOf);
  return { checks: [judgeValidating(e, review, name)] };
}

function judgeValidating(e: KyvernoExpectation, review: KyvernoReview, name: string): CheckResult {
  const mine = review.results.filter((r) => r.name === name);
  if (mine.length === 0) return check(e.result, 'not found', `no ValidatingPolicy, MutatingPolicy or namespaced kind of them named "${name}" among the test's policies`, mine);
  const applied = mine.filter((r) => r.result !== 'none');
  const wrong = applied.find((r) => r.result !== e.result);
  if (wrong) return check(e.result, wrong.result, wrong.message, mine);
  if (applied.length > 0) return check(e.result, e.result, undefined, mine);
  // Nothing applied: Kyverno counts the resource as excluded (a pass) unless every variant's match is one plain rule.
  if (mine.some((r) => !isPlainMatch(r.matchConstraints))) return { ...check(e.result, 'excluded', undefined, mine), pass: true };
  return check(e.result, 'not found', 'the policy does not apply to the resource (Kyverno reports no result)', mine);
}

const label = (r: Resource) => `${r.kind}/${r.namespace ? `${r.namespace}/` : ''}${r.name}`;

/** Runs a loaded Kyverno test. Never throws: a test that cannot run is a suite in error. */
export async function runKyvernoTest(test: KyvernoTest, options: RunSuitesOptions = {}): Promise<SuiteResult> {
  const started = performance.now();
  const result: SuiteResult = { file: test.file, name: test.name, status: 'passed', cases: [], durationMs: 0 };
  options.onSuite?.({ file: test.file, name: test.name, cases: countKyvernoCases(test, options.filter) });
  const push = (c: CaseResult) => {
    result.cases.push(c);
    options.onCase?.(c, { file: test.file, name: test.name });
  };
  const finish = (status?: SuiteResult['status']) => {
    result.status = status ?? (result.cases.some((c) => c.status === 'failed' || c.status === 'error') ? 'failed' : 'passed');
    result.durationMs = performance.now() - started;
    options.onSuiteEnd?.(result);
    return result;
  };
  let review: Reviewer;
  let prepare: Prepare;
  let resources: Resource[];
  let operation: Operation;
  let userInfo: Record<string, unknown>;
  try {
    const values = valuesOf(test, options.cwd);
    operation = values.operation;
    userInfo = userInfoOf(test, options.cwd);
    const loaded = await reviewerFor(readPolicyFiles(test.policies, options.cwd ? { cwd: options.cwd } : {}), values.namespaces);
    review = loaded.review;
    prepare = loaded.prepare;
    resources = resourcesOf(test, options.cwd, loaded.prepare);
  } catch (error) {
    result.error = error instanceof PolicyLoadError ? ['policies failed to load:', ...error.problems.map((p) => `  ${formatProblem(p)}`)] : [(error as Error).message];
    return finish('error');
  }
  const files = new Map<string, Raw[]>();
  const key = (x: Raw) => {
    const metadata = isRaw(x['metadata']) ? x['metadata'] : {};
    return `${text(x['apiVersion'])},${text(x['kind'])},${text(metadata['namespace'])},${text(metadata['name'])}`;
  };
  const expectedOf: ExpectedOf = (file, patched) => {
    let docs = files.get(file);
    if (!docs) files.set(file, (docs = readPolicyFiles([file]).map(prepare)));
    const wanted = key(patched);
    return { resource: docs.find((d) => key(d) === wanted), label: displayPath(file, options.cwd) };
  };
  const reviews = new Map<string, Promise<KyvernoReview>>();
  const reviewOf = (r: Resource, op: Operation) => {
    const key = `${op} ${label(r)} ${r.apiVersion}`;
    let hit = reviews.get(key);
    if (!hit) reviews.set(key, (hit = review(r.object, { operation: op, userInfo })));
    return hit;
  };
  for (const e of test.results) {
    const op = e.operation ?? operation;
    const { found, missing } = selected(e, resources);
    const base = (name: string) => ({ name: `${e.policy} › ${name} → ${e.result}${e.operation ? ` (${e.operation})` : ''}`, ...(e.line ? { line: e.line } : {}) });
    for (const name of missing) {
      const c = base(name);
      if (!matches(options.filter, [c.name, `${test.name} › ${c.name}`])) continue;
      push({ ...c, status: 'failed', checks: [check(e.result, 'not found', `no resource "${name}" in the test's resources`, [])], durationMs: 0 });
    }
    for (const r of found) {
      const c = base(label(r));
      if (!matches(options.filter, [c.name, `${test.name} › ${c.name}`])) continue;
      const caseStarted = performance.now();
      try {
        const answer = await reviewOf(r, op);
        const judged = judge(e, answer, expectedOf);
        const status = judged.skipped ? 'skipped' : judged.checks.every((x) => x.pass) ? 'passed' : 'failed';
        push({ ...c, adapter: 'kubernetes', checks: judged.checks, answer: answer.response, status, ...(judged.skipped ? { hint: judged.skipped } : {}), durationMs: performance.now() - caseStarted });
      } catch (error) {
        const message = error instanceof VerdictError ? error.message : `unexpected error: ${(error as Error).message}`;
        push({ ...c, status: 'error', checks: [], error: message, durationMs: performance.now() - caseStarted });
      }
    }
  }
  return finish();
}

/** How many cases a Kyverno test has (an estimate before its resources are read: one per resource named, one per result naming none). */
export function countKyvernoCases(test: KyvernoTest, filter: RunSuitesOptions['filter']): number {
  return test.results.reduce((n, e) => n + (filter !== undefined && !matches(filter, [e.policy, test.name]) ? 0 : Math.max(1, e.resources.length + e.resourceSpecs.length)), 0);
}
