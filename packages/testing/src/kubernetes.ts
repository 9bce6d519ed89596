/**
 * `@verdict/testing/kubernetes`: inputs for `@verdict/kubernetes` (an
 * optional peer dependency of `@verdict/testing`; install it to use this entry).
 * @packageDocumentation
 */
export { admissionReviewFor, namespaceLabelsOf, type ReviewFixtureOptions } from './adapters/kubernetes.js';
