/**
 * `@verdict/testing/internal`: the pieces `@verdict/cli` shares with the
 * suite runner (reading policy and input files, one-line rendering). Not part
 * of the public API: it may change in any release, and the CLI depends on the
 * exact same version of this package.
 * @internal
 * @packageDocumentation
 */
export { findPolicyFiles, readPolicyFiles, readInputFile, parseInput, displayPath } from './files.js';
export { inline } from './text.js';
export { traceInWords } from './trace-words.js';
export { escapeXml } from './junit.js';
export { isMissing } from './adapters/registry.js';
export { unboundAdmissionPolicies, type UnboundPolicy } from './suite/unbound.js';
export { loadSuiteFile, parseSuites } from './suite/parse.js';
export { runSuite, checkExpectations } from './suite/run.js';
export type { AdapterName, KubernetesSuiteOptions, Suite, SuiteCase, SuiteExpect, SuiteResult } from './suite/types.js';
export type { CheckResult } from './checks.js';
export type { Outcome } from './outcome.js';
export type { RunSuitesOptions } from './suite/run.js';
