/**
 * @verdict/testing: assert what a policy set decides. vitest matchers
 * (register them with `import '@verdict/testing/vitest'`) over core
 * decisions and the adapters' answers, fixture builders, and the YAML suite
 * runner behind `verdict test`.
 * @packageDocumentation
 */
export { toOutcome, decisionOutcome, isDecision, type AnswerKind, type CiAnswer, type Outcome } from './outcome.js';
export {
  checkAdmission, checkAllowed, checkAssertion, checkDenialCount, checkDenied, checkMessages, checkReason, checkStatus, checkWarnings, relevantTrace,
  type CheckOptions, type CheckResult,
} from './checks.js';
export { checkParameters, checkPatch, checkRunners, checkTags, type PatchExpectation } from './checks-data.js';
export { verdictMatchers, failureText, type MatcherContext, type MatcherResult, type VerdictMatchers } from './matchers.js';
export { formatTrace, formatPolicyTrace, describeSelection, type FormatTraceOptions, type TraceStyle } from './trace.js';
export { textMatches, inline, type TextExpectation } from './text.js';
export {
  detectAdapter, createEvaluator, evaluateInput, type AdapterOptions, type EvaluateInputOptions, type Evaluator, type InputOptions,
} from './evaluate.js';
export { admissionReviewFor, namespaceLabelsOf, type ReviewFixtureOptions } from './adapters/kubernetes.js';
export { ciJobFor, fiatQueryFor } from './fixtures.js';
export { detectPolicyAdapter, loadPoliciesFor } from './policies.js';
export { lintPolicies } from './lint.js';
export { findSuites, findPolicyFiles, readPolicyFiles, readInputFile, parseInput, displayPath } from './files.js';
export { loadSuiteFile, parseSuites, suiteSchema } from './suite/parse.js';
export { runSuites, runSuite, checkExpectations, type RunSuitesOptions } from './suite/run.js';
export type {
  AdapterName, Assertion, CaseResult, KubernetesSuiteOptions, Suite, SuiteCase, SuiteExpect, SuiteReport, SuiteResult,
} from './suite/types.js';
export { diffLines, formatDiff, formatCheckFailure, formatCaseFailure, summaryLine } from './report.js';
export { toJUnitXml, escapeXml } from './junit.js';
export { SuiteError, formatSuiteProblem, type SuiteErrorCode, type SuiteProblem } from './errors.js';
