import { defineLibConfig } from '../../tsup.config.base.js';

// `redis` imports the evaluator through the package name, so both entries share one copy of it
// (one SpinnakerError class) and importing the evaluator never loads a Redis client.
export default { ...defineLibConfig({ entry: { index: 'src/index.ts', redis: 'src/redis/index.ts' } }), external: ['@verdict/spinnaker', '@verdict/core'] };
