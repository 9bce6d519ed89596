import { defineLibConfig } from '../../tsup.config.base.js';

// Our packages and vitest stay external (one copy of each at run time). The adapter
// entries import their adapter package; the main entry loads them only when an input needs one.
export default {
  ...defineLibConfig({
    entry: {
      index: 'src/index.ts', vitest: 'src/vitest.ts', kubernetes: 'src/kubernetes.ts', ci: 'src/ci.ts', spinnaker: 'src/spinnaker.ts', internal: 'src/internal.ts',
    },
  }),
  external: ['@verdict/core', '@verdict/kubernetes', '@verdict/ci', '@verdict/spinnaker', 'vitest'],
};
