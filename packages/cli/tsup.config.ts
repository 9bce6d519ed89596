import { defineLibConfig } from '../../tsup.config.base.js';

// `bin` is the `verdict` executable (its hashbang is kept); `index` exposes `main` for embedding.
export default {
  ...defineLibConfig({ entry: { index: 'src/index.ts', bin: 'src/bin.ts' } }),
  external: ['@verdict/core', '@verdict/testing', '@verdict/kubernetes', '@verdict/ci', '@verdict/spinnaker'],
};
