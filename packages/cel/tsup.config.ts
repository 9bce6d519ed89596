import { defineConfig } from 'tsup';
import { defineLibConfig } from '../../tsup.config.base.js';

// cel-js is carried with a patch (patches/ at the repository root; docs/concepts/cel.md, "The engine"): a package
// manager installs it unpatched for users, so its code is bundled into dist (its types still come from the dependency).
const base = defineLibConfig({ entry: { index: 'src/index.ts', internal: 'src/internal.ts' }, platform: 'neutral' });
export default defineConfig({ ...(base as object), noExternal: ['@marcbachmann/cel-js'] });
