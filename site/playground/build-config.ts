/**
 * The playground's Vite configuration, shared by the site build and
 * `pnpm --filter @verdict/site dev`: a browser build of the page that
 * refuses Node built-ins (so core and the adapters prove they run in a
 * browser without polyfills), with the repository's suites as examples.
 */
import { builtinModules } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultClientConditions, type InlineConfig, type Plugin } from 'vite';
import { FAVICON } from '../.vitepress/brand.js';
import { loadExamples } from '../scripts/examples.js';

const here = dirname(fileURLToPath(import.meta.url));
/** The repository root. */
export const repoRoot = resolve(here, '../..');

const EXAMPLES_ID = 'virtual:verdict-examples';
const builtins = new Set(builtinModules);

/** Serves `virtual:verdict-examples`: the examples read from examples/**\/*.verdict.yaml. */
function examplesPlugin(): Plugin {
  return {
    name: 'verdict:examples',
    resolveId: (id) => (id === EXAMPLES_ID ? `\0${EXAMPLES_ID}` : undefined),
    load: (id) => (id === `\0${EXAMPLES_ID}` ? `export default ${JSON.stringify(loadExamples(repoRoot))};` : undefined),
  };
}

/** The docs' icon in the page's head. */
function faviconPlugin(): Plugin {
  return { name: 'verdict:favicon', transformIndexHtml: () => [{ tag: 'link', attrs: { rel: 'icon', href: FAVICON }, injectTo: 'head' }] };
}

/** Fails the build when anything the page imports reaches for a Node built-in (Vite would otherwise stub it with a warning). */
export function noNodeBuiltins(): Plugin {
  return {
    name: 'verdict:no-node-builtins',
    enforce: 'pre',
    resolveId(id, importer) {
      const bare = id.startsWith('node:') ? id.slice(5) : id.split('/')[0] ?? id;
      if (id.startsWith('node:') || builtins.has(bare)) {
        this.error(`"${importer ?? '?'}" imports the Node built-in "${id}": the browser build has no Node built-ins and no polyfills`);
      }
      return undefined;
    },
  };
}

/** The Vite configuration of the playground, writing to `<outDir>/playground`. */
export function playgroundConfig(outDir: string): InlineConfig {
  return {
    configFile: false,
    root: here,
    base: './',
    logLevel: 'warn',
    plugins: [noNodeBuiltins(), examplesPlugin(), faviconPlugin()],
    // Packages of this workspace resolve to their sources, as in the tests.
    resolve: { conditions: ['@verdict/source', ...defaultClientConditions] },
    server: { host: '127.0.0.1', fs: { allow: [repoRoot] } },
    build: { outDir: resolve(outDir, 'playground'), emptyOutDir: true, target: 'es2022', chunkSizeWarningLimit: 2048, reportCompressedSize: false },
  };
}
