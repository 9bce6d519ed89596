import { defineLibConfig } from '../../tsup.config.base.js';

export default defineLibConfig({ entry: { index: 'src/index.ts', internal: 'src/internal.ts' }, platform: 'neutral' });
