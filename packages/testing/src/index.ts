/**
 * @verdict/testing: assert what a policy set decides. vitest matchers
 * (register them with `import '@verdict/testing/vitest'`) over core
 * decisions and the adapters' answers, `evaluateInput`, and the YAML suite
 * runner behind `verdict test`. Input builders for each adapter live in
 * `@verdict/testing/kubernetes`, `/ci` and `/spinnaker`; the adapter packages
 * are optional peer dependencies, loaded only when an input needs one.
 * @packageDocumentation
 */
export { toOutcome, type AnswerKind, type CiAnswer, type Outcome } from './outcome.js';
export { checkAllowed, checkDenied, checkWarnings, type CheckOptions, type CheckResult } from './checks.js';
export { checkParameters, checkPatch, type PatchExpectation } from './checks-data.js';
export { verdictMatchers, type MatcherContext, type MatcherResult, type VerdictMatchers } from './matchers.js';
export { formatTrace, type FormatTraceOptions, type TraceStyle } from './trace.js';
export type { TextExpectation } from './text.js';
export {
  detectAdapter, createEvaluator, evaluateInput, type AdapterOptions, type EvaluateInputOptions, type Evaluator, type InputOptions,
} from './evaluate.js';
export { runSuites, type RunSuitesOptions } from './suite/run.js';
export type {
  AdapterName, Assertion, CaseResult, KubernetesSuiteOptions, SuiteExpect, SuiteReport, SuiteResult,
} from './suite/types.js';
export { formatCaseFailure, summaryLine } from './report.js';
export { toJUnitXml } from './junit.js';
export { SuiteError, type SuiteErrorCode, type SuiteProblem } from './errors.js';
