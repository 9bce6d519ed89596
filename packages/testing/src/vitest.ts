/**
 * `import '@verdict/testing/vitest'` (in a test file or a vitest `setupFiles`
 * entry) registers verdict's matchers: `toBeAllowed`, `toBeDenied`, `toWarn`,
 * `toPatch`, `toPatchResource`, `toSelectParameters`.
 * @packageDocumentation
 */
import { expect, type JestAssertion } from 'vitest';
import { verdictMatchers, type VerdictMatchers } from './matchers.js';

expect.extend(verdictMatchers);

declare module 'vitest' {
  // The type parameter must be declared exactly as vitest declares it. Naming
  // JestAssertion (which Assertion already extends) keeps an import of 'vitest'
  // in the emitted .d.ts: without one, this augmentation reaches no consumer.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  interface Assertion<T = any> extends VerdictMatchers<T>, JestAssertion<T> {}
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface AsymmetricMatchersContaining extends VerdictMatchers {}
}

export type { VerdictMatchers };
