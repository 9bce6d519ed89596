/**
 * `@verdict/testing/kubernetes`: inputs for `@verdict/kubernetes` (an
 * optional peer dependency of `@verdict/testing`; install it to use this entry),
 * gator suites (`test.gatekeeper.sh/v1alpha1`) and Kyverno CLI tests
 * (`cli.kyverno.io/v1alpha1`), which `runSuites` also runs.
 * @packageDocumentation
 */
export { admissionReviewFor, namespaceLabelsOf, type ReviewFixtureOptions } from './adapters/kubernetes.js';
export { loadGatorSuite, parseGatorSuite, type GatorCase, type GatorSuite, type GatorTest } from './gator/parse.js';
export { runGatorSuite } from './gator/run.js';
export { loadKyvernoTest, parseKyvernoTest, type KyvernoExpectation, type KyvernoResultStatus, type KyvernoTest } from './kyverno/parse.js';
export { runKyvernoTest } from './kyverno/run.js';
