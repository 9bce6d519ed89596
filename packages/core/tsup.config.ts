import { defineLibConfig } from '../../tsup.config.base.js';

export default defineLibConfig({ entry: { index: 'src/index.ts' }, platform: 'neutral' });
