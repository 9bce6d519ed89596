/**
 * `@verdict/testing/ci`: inputs for `@verdict/ci` (an optional peer
 * dependency of `@verdict/testing`; install it to use this entry).
 * @packageDocumentation
 */
export { ciJobFor, type CiJob } from './adapters/ci.js';
