/**
 * `@verdict/testing/spinnaker`: inputs for `@verdict/spinnaker` (an optional
 * peer dependency of `@verdict/testing`; install it to use this entry).
 * @packageDocumentation
 */
export { fiatQueryFor } from './adapters/spinnaker.js';
