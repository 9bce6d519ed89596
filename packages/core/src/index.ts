/**
 * @verdict/core: a pure policy-evaluation engine. Load documents with
 * {@link parsePolicyDocuments} and {@link compilePolicies}, then call
 * `PolicySet.evaluate(input)` for a {@link Decision} with a full trace.
 * No Node built-ins: runs in Node, browsers, workers and edge runtimes.
 * @packageDocumentation
 */
export { parsePolicyDocuments, sourceLocation, type ParseOptions, type PolicyDocument } from './parse.js';
export { compilePolicies, type CompileOptions, type EvaluationLimits, type InputView, type ParameterSetResolver } from './compile.js';
export { checkInputReads, type InputRead, type InputShape, type UnknownInputPath } from './input-reads.js';
export { DEFAULT_COST_BUDGET } from './budget.js';
export type { DocumentTranslator, TranslatedDocument, TranslatedUnit, TranslationContext } from './translate.js';
export { loadPolicySet, type PolicySource } from './load.js';
export { PolicySet } from './evaluate.js';
export type { LintFinding } from './lint.js';
export type {
  Decision, DecisionError, DecisionErrorCode, EnforcementAction, EvaluateOptions, NoMatchAction, ParameterSelectionBehavior,
  PolicyInfo, PolicyTrace, RuleTrace, SelectionTrace, SelectorMismatch, TraceSource, Violation, Annotation,
} from './types.js';
export { diffPatch, PatchTestFailed, type PatchOperation, type PatchOp, type PatchType } from './mutate.js';
export {
  compileLabelSelector, formatLabelSelector, labelKeyError, labelValueError, matchLabelSelector, parseLabelSelector, validateLabelSelector,
  type CompiledLabelSelector, type LabelSelector, type LabelSelectorOperator, type LabelSelectorRequirement, type Labels, type SelectorIssue,
} from './labels.js';
export { mergeParameters, type MergeRules, type MergeStrategy } from './merge.js';
export { compileLogic, type CompiledLogic } from './logic/compile.js';
export { compileCel, type CompiledCel, type CompileCelOptions } from './languages/cel-compat.js';
export type { CelOptions } from './languages/cel-context.js';
export type { CelConstant, CelFunction, CelOverride, CelType } from '@verdict/cel';
export { ContainerImage, NEWEST_KUBERNETES_VERSION, parseContainerImage } from '@verdict/cel';
export { formatQuantity, parseResourceQuantity, Quantity, scaledValue, type ParsedQuantity, type QuantityFormat } from '@verdict/cel';
export type { CelProfile, FailedValidation } from './languages/cel-rule.js';
export { ComparisonError } from './logic/compare.js';
export { parseQuantity } from './quantity.js';
export { globMatcher, anyGlobMatcher, isGlob, type StringMatcher } from './patterns/glob.js';
export { compileRegex, type LinearRegex } from './patterns/regex.js';
export { PatternError } from './patterns/error.js';
export { compileTemplate, type CompiledTemplate, type TextMeter } from './template.js';
export { documentSchema, type JsonSchemaDocument } from './schema.js';
export { closest, didYouMean } from './util/suggest.js';
export { isForbiddenKey } from './util/object.js';
export type { DialectContext, IndexHint, MatchDialect, Path, SelectionKey, Selector } from './selectors/types.js';
export { adapterOfMatchKey } from './selectors/adapter-keys.js';
export {
  VerdictError, PolicyLoadError, SelectorError, formatProblem, toVerdictError,
  type Problem, type ProblemCode, type VerdictErrorCode,
} from './errors.js';
