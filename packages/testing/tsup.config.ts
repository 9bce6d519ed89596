import { defineLibConfig } from '../../tsup.config.base.js';

// Our packages and vitest stay external (one copy of each at run time).
export default {
  ...defineLibConfig({ entry: { index: 'src/index.ts', vitest: 'src/vitest.ts' } }),
  external: ['@verdict/core', '@verdict/kubernetes', '@verdict/ci', '@verdict/spinnaker', 'vitest'],
};
