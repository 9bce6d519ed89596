import { defineLibConfig } from '../../tsup.config.base.js';

// `redis` and `internal` share chunks with the main entry (one SpinnakerError class), and
// importing the evaluator never loads a Redis client.
export default {
  ...defineLibConfig({ entry: { index: 'src/index.ts', redis: 'src/redis/index.ts', internal: 'src/internal.ts' } }),
  // The Redis entry names the public types by the package's own name, so its declarations point at index.d.ts.
  external: ['@verdict/spinnaker'],
};
