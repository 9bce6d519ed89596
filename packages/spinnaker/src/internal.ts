/**
 * `@verdict/spinnaker/internal`: what `@verdict/testing` and `@verdict/cli` share with
 * this package (the policy source's resource input). Not
 * part of the public API: it may change in any release.
 * @internal
 * @packageDocumentation
 */
export { resourceInput, type ResourceInput } from './policy/source.js';
