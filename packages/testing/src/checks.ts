/**
 * The assertions themselves, shared by the vitest matchers and the suite
 * runner: each takes an {@link Outcome} and an expectation and returns a
 * {@link CheckResult} that says what was expected, what was found, and the
 * part of the trace that explains it.
 */
import type { LinearRegex, PolicyTrace } from '@verdict/core';
import { answerName, type Outcome } from './outcome.js';
import { formatTrace, type TraceStyle } from './trace.js';
import { bullets, describeText, regexText, textMatches, type TextExpectation } from './text.js';

/** The result of one assertion. */
export interface CheckResult {
  pass: boolean;
  /** What was asserted, in a few words (`denied with "16Gi"`), for reports. */
  expectation: string;
  /** Why the assertion failed (when it was expected to pass). */
  message: string;
  /** Why the negated assertion failed (when it was expected not to pass). */
  negatedMessage: string;
  /** The expected side of a diff. */
  expected: unknown;
  /** The matching part of the answer (not the whole answer). */
  actual: unknown;
  /** The part of the decision's trace that explains the result, when the answer carries one. */
  trace?: string;
}

/** Options shared by every check. */
export interface CheckOptions {
  /** Equality for expected values (the matchers pass vitest's, which understands asymmetric matchers). */
  equals?: (a: unknown, b: unknown) => boolean;
  style?: Partial<TraceStyle>;
}

/** The part of the trace worth showing: the policies behind denials, or every policy. */
export function relevantTrace(outcome: Outcome, focus: 'denials' | 'warnings' | 'all' | readonly string[], options: CheckOptions = {}): string | undefined {
  const decision = outcome.decision;
  if (!decision) return undefined;
  let policies: string[] | undefined;
  if (Array.isArray(focus)) policies = [...focus];
  else if (focus === 'denials' || focus === 'warnings') {
    const action = focus === 'denials' ? 'deny' : 'warn';
    const keys = new Set<string>();
    for (const v of decision.violations) if (v.enforcementAction === action) keys.add(`${v.kind}/${v.policy}`);
    for (const e of decision.errors) if (e.policy && (e.enforcementAction ?? 'deny') === action) keys.add(`${e.kind}/${e.policy}`);
    const noMatch = (t: PolicyTrace) => t.selection?.outcome === (focus === 'denials' ? 'no-match-deny' : 'no-match-warn');
    for (const t of decision.trace) if (noMatch(t)) keys.add(`${t.kind}/${t.policy}`);
    if (keys.size > 0) policies = [...keys];
  }
  return formatTrace(decision, policies ? { policies, style: options.style ?? {} } : { style: options.style ?? {} });
}

function withTrace(result: Omit<CheckResult, 'trace'>, trace: string | undefined): CheckResult {
  return trace === undefined ? result : { ...result, trace };
}

/** `allowed: true|false` (a CI job: accepted; a permission: granted). */
export function checkAllowed(outcome: Outcome, expected: boolean, options: CheckOptions = {}): CheckResult {
  const what = answerName(outcome);
  const pass = outcome.allowed === expected;
  const denied = `it was denied:\n${bullets(outcome.denials)}`;
  const actual: Record<string, unknown> = { allowed: outcome.allowed };
  if (outcome.denials.length) actual['denials'] = outcome.denials;
  return withTrace({
    pass,
    expectation: expected ? 'allowed' : 'denied',
    message: expected ? `expected the ${what} to be allowed, but ${denied}` : `expected the ${what} to be denied, but it was allowed`,
    negatedMessage: expected ? `expected the ${what} not to be allowed, but it was allowed` : `expected the ${what} not to be denied, but ${denied}`,
    expected: { allowed: expected },
    actual,
  }, relevantTrace(outcome, outcome.allowed ? 'all' : 'denials', options));
}

/** Every expected text matches at least one denial message (`[policy] message`, a status line or a reason). */
export function checkMessages(outcome: Outcome, expected: readonly TextExpectation[], options: CheckOptions = {}): CheckResult {
  const missing = expected.filter((e) => !outcome.denials.some((d) => textMatches(d, e)));
  const list = expected.map(describeText).join(', ');
  return withTrace({
    pass: missing.length === 0,
    expectation: `denial messages ${list}`,
    message: `expected a denial message matching ${missing.map(describeText).join(' and ')}, but the denial messages were:\n${bullets(outcome.denials)}`,
    negatedMessage: `expected no denial message matching ${list}, but found:\n${bullets(outcome.denials.filter((d) => expected.some((e) => textMatches(d, e))))}`,
    expected: expected.map((e) => (typeof e === 'string' ? e : String(e))),
    actual: outcome.denials,
  }, relevantTrace(outcome, 'denials', options));
}

/** Denied and, when `message` is given, with a matching denial message (`toBeDenied`). */
export function checkDenied(outcome: Outcome, message?: TextExpectation, options: CheckOptions = {}): CheckResult {
  const denied = checkAllowed(outcome, false, options);
  if (message === undefined || !denied.pass) {
    return message === undefined ? denied : { ...denied, expectation: `denied with ${describeText(message)}`, expected: { allowed: false, denials: [typeof message === 'string' ? message : regexText(message)] } };
  }
  return { ...checkMessages(outcome, [message], options), expectation: `denied with ${describeText(message)}` };
}

/** Exactly `count` denial messages (like `gator verify`'s `violations: n`). */
export function checkDenialCount(outcome: Outcome, count: number, options: CheckOptions = {}): CheckResult {
  const n = outcome.denials.length;
  return withTrace({
    pass: n === count,
    expectation: `${count} violation${count === 1 ? '' : 's'}`,
    message: `expected ${count} denial message${count === 1 ? '' : 's'}, but found ${n}:\n${bullets(outcome.denials)}`,
    negatedMessage: `expected other than ${count} denial messages, but found ${n}`,
    expected: count,
    actual: n,
  }, relevantTrace(outcome, 'denials', options));
}

/**
 * Warnings: `true` at least one, `false` none, a list: each text matches at
 * least one warning. A single text is `toWarn(message)`.
 */
export function checkWarnings(outcome: Outcome, expected: boolean | TextExpectation | readonly TextExpectation[], options: CheckOptions = {}): CheckResult {
  const warnings = outcome.warnings;
  const trace = relevantTrace(outcome, 'warnings', options);
  const list = `\n${bullets(warnings)}`;
  if (typeof expected === 'boolean') {
    return withTrace({
      pass: expected ? warnings.length > 0 : warnings.length === 0,
      expectation: expected ? 'warnings' : 'no warnings',
      message: expected ? 'expected at least one warning, but there were none' : `expected no warnings, but found:${list}`,
      negatedMessage: expected ? `expected no warnings, but found:${list}` : 'expected at least one warning, but there were none',
      expected: expected ? '(at least one)' : [],
      actual: warnings,
    }, trace);
  }
  const wanted = Array.isArray(expected) ? (expected as TextExpectation[]) : [expected as TextExpectation];
  const missing = wanted.filter((e) => !warnings.some((w) => textMatches(w, e)));
  const names = wanted.map(describeText).join(', ');
  return withTrace({
    pass: missing.length === 0,
    expectation: `warnings ${names}`,
    message: `expected a warning matching ${missing.map(describeText).join(' and ')}, but the warnings were:${list}`,
    negatedMessage: `expected no warning matching ${names}, but found:\n${bullets(warnings.filter((w) => wanted.some((e) => textMatches(w, e))))}`,
    expected: wanted.map(String),
    actual: warnings,
  }, trace);
}

/** A text expectation against the `reason` of a CI job response or a permission answer. */
export function checkReason(outcome: Outcome, expected: TextExpectation): CheckResult {
  const reason = outcome.reason ?? (outcome.denials.length ? outcome.denials.join('\n') : undefined);
  const pass = reason !== undefined && textMatches(reason, expected);
  return {
    pass,
    expectation: `reason ${describeText(expected)}`,
    message: `expected the reason to match ${describeText(expected)}, but it was ${reason === undefined ? '(none)' : JSON.stringify(reason)}`,
    negatedMessage: `expected the reason not to match ${describeText(expected)}, but it was ${JSON.stringify(reason)}`,
    expected: String(expected),
    actual: reason,
  };
}

/** The HTTP-style status code of an admission response (403 for a Gatekeeper-style denial). */
export function checkStatus(outcome: Outcome, code: number): CheckResult {
  return {
    pass: outcome.status === code,
    expectation: `status ${code}`,
    message: `expected status code ${code}, but it was ${outcome.status ?? '(none)'}`,
    negatedMessage: `expected a status code other than ${code}`,
    expected: code,
    actual: outcome.status,
  };
}

/** `accepted` or `rejected` for a CI job (other answers: allowed → accepted). */
export function checkAdmission(outcome: Outcome, expected: 'accepted' | 'rejected', options: CheckOptions = {}): CheckResult {
  const actual = outcome.ci?.admission ?? (outcome.allowed ? 'accepted' : 'rejected');
  return withTrace({
    pass: actual === expected,
    expectation: `admission ${expected}`,
    message: `expected the job to be ${expected}, but it was ${actual}${outcome.reason ? ` (reason: ${outcome.reason})` : ''}`,
    negatedMessage: `expected the job not to be ${expected}, but it was`,
    expected,
    actual,
  }, relevantTrace(outcome, actual === 'rejected' ? 'denials' : 'all', options));
}

/**
 * `gator verify`'s assertion: the number of denial messages matching
 * `message` (tested against the message with and without its `[policy] `
 * prefix; every message when absent) is at least one (`yes`), zero (`no`)
 * or exactly `violations`.
 */
export function checkAssertion(outcome: Outcome, assertion: { violations: 'yes' | 'no' | number; message?: RegExp | LinearRegex }, options: CheckOptions = {}): CheckResult {
  const re = assertion.message;
  const matching = outcome.denials.filter((d) => !re || textMatches(d, re) || textMatches(d.replace(/^\[[^\]]*\] /, ''), re));
  const n = matching.length;
  const { violations } = assertion;
  const pass = violations === 'yes' ? n > 0 : violations === 'no' ? n === 0 : n === violations;
  const wanted = violations === 'yes' ? 'at least one' : violations === 'no' ? 'no' : String(violations);
  const which = re ? ` matching ${regexText(re)}` : '';
  const source = re instanceof RegExp ? re.source : re?.pattern;
  return withTrace({
    pass,
    expectation: `violations: ${violations}${re ? `, message: ${source}` : ''}`,
    message: `expected ${wanted} violation${violations === 1 || violations === 'yes' ? '' : 's'}${which}, but found ${n}; the denial messages were:\n${bullets(outcome.denials)}`,
    negatedMessage: `expected other than ${wanted} violations${which}, but found ${n}`,
    expected: { violations, ...(re ? { message: source } : {}) },
    actual: { violations: n, ...(re ? { matching } : {}) },
  }, relevantTrace(outcome, 'denials', options));
}
