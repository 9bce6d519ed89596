/**
 * `@verdict/testing/kubernetes`: inputs for `@verdict/kubernetes` (an
 * optional peer dependency of `@verdict/testing`; install it to use this entry),
 * and gator suites (`test.gatekeeper.sh/v1alpha1`), which `runSuites` also runs.
 * @packageDocumentation
 */
export { admissionReviewFor, namespaceLabelsOf, type ReviewFixtureOptions } from './adapters/kubernetes.js';
export { loadGatorSuite, parseGatorSuite, type GatorCase, type GatorSuite, type GatorTest } from './gator/parse.js';
export { runGatorSuite } from './gator/run.js';
