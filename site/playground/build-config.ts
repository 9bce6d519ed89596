/**
 * The playground's Vite configuration, shared by the site build and
 * `pnpm --filter @verdict/site dev`: a browser build of the page that
 * refuses Node built-ins (so core and the adapters prove they run in a
 * browser without polyfills), with the repository's suites as examples.
 */
import { createHash } from 'node:crypto';
import { builtinModules } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultClientConditions, type InlineConfig, type Plugin } from 'vite';
import { viteSingleFile } from 'vite-plugin-singlefile';
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

/**
 * The built page opens from the file system as well as from a server: `file://` pages may not load
 * module scripts or stylesheets from files (the browser treats them as cross-origin), so
 * vite-plugin-singlefile inlines the bundle and the styles into index.html, and this plugin adds
 * each inline script's SHA-256 to the page's Content-Security-Policy (`script-src` allows only
 * 'self', which an inline script is not; a hash keeps 'unsafe-inline' out).
 */
function inlineScriptHashes(): Plugin {
  return {
    name: 'verdict:inline-script-hashes',
    apply: 'build',
    enforce: 'post',
    generateBundle: {
      order: 'post',
      handler(_options, bundle) {
        for (const asset of Object.values(bundle)) {
          if (asset.type !== 'asset' || !asset.fileName.endsWith('.html') || typeof asset.source !== 'string') continue;
          const hashes = [...asset.source.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)]
            .filter((m) => !/\ssrc=/.test(m[0].slice(0, m[0].indexOf('>'))))
            .map((m) => `'sha256-${createHash('sha256').update(m[1] ?? '').digest('base64')}'`);
          if (hashes.length === 0) continue;
          const withHashes = asset.source.replace(/(script-src [^;"]*)/, `$1 ${hashes.join(' ')}`);
          if (withHashes === asset.source) this.error(`${asset.fileName}: no script-src in the Content-Security-Policy to add the inline scripts' hashes to`);
          asset.source = withHashes;
        }
      },
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
    plugins: [noNodeBuiltins(), examplesPlugin(), faviconPlugin(), viteSingleFile(), inlineScriptHashes()],
    // Packages of this workspace resolve to their sources, as in the tests.
    resolve: { conditions: ['@verdict/source', ...defaultClientConditions] },
    server: { host: '127.0.0.1', fs: { allow: [repoRoot] } },
    build: {
      outDir: resolve(outDir, 'playground'), emptyOutDir: true, target: 'es2022', chunkSizeWarningLimit: 2048, reportCompressedSize: false,
      rollupOptions: {
        // vite-plugin-singlefile warns that the CSP does not allow the inline script yet: inlineScriptHashes adds its hash after it.
        onwarn: (warning, warn) => (warning.plugin === 'vite:singlefile' && warning.message.includes('Content-Security-Policy') ? undefined : warn(warning)),
      },
    },
  };
}
