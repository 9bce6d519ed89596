/**
 * Browser bundles of @verdict/core and each adapter: each package's entry
 * built for the browser by Vite (Rollup, esbuild minification, ES2022) from
 * the workspace sources, with the browser export conditions and no Node
 * built-ins: a build that reaches for one fails. Sizes are gzip level 9.
 */
import { gzipSync } from 'node:zlib';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, defaultClientConditions, type Rollup } from 'vite';
import { noNodeBuiltins } from '../../site/playground/build-config.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** The browser entries: every package's main entry (`@verdict/spinnaker/redis` is Node-only: it talks to a Redis server). */
export const BROWSER_ENTRIES = {
  '@verdict/cel': 'packages/cel/src/index.ts',
  '@verdict/core': 'packages/core/src/index.ts',
  '@verdict/kubernetes': 'packages/kubernetes/src/index.ts',
  '@verdict/ci': 'packages/ci/src/index.ts',
  '@verdict/spinnaker': 'packages/spinnaker/src/index.ts',
} as const;

export type BundleName = keyof typeof BROWSER_ENTRIES;

export interface BundleSize {
  /** Minified, then gzipped, in bytes: the package and its dependencies, without @verdict/core for an adapter. */
  gzip: number;
  /**
   * The same with @verdict/core bundled in: what a browser app using this package ships (equal to `gzip` for core,
   * which bundles its CEL, and for @verdict/cel, which needs no other verdict package).
   */
  withCore: number;
}

/** Bundles `entry` (a path from the repository root, or absolute) for the browser; `external` packages are left out. Rejects on a Node built-in. */
export async function bundleForBrowser(entry: string, external: readonly string[]): Promise<string> {
  const output = (await build({
    configFile: false,
    logLevel: 'silent',
    root,
    plugins: [noNodeBuiltins()],
    resolve: { conditions: ['@verdict/source', ...defaultClientConditions] },
    build: {
      write: false,
      target: 'es2022',
      minify: 'esbuild',
      lib: { entry: resolve(root, entry), formats: ['es'], fileName: 'bundle' },
      rollupOptions: { external: [...external] },
    },
  })) as Rollup.RollupOutput[];
  return output.flatMap((o) => o.output).map((chunk) => (chunk.type === 'chunk' ? chunk.code : '')).join('\n');
}

const gzip = (code: string) => gzipSync(code, { level: 9 }).length;

/** Builds every browser entry and measures it. Throws when one does not build for the browser. */
export async function measureBundles(): Promise<Record<BundleName, BundleSize>> {
  const sizes = {} as Record<BundleName, BundleSize>;
  for (const [name, entry] of Object.entries(BROWSER_ENTRIES) as Array<[BundleName, string]>) {
    const withCore = gzip(await bundleForBrowser(entry, []));
    sizes[name] = { gzip: name === '@verdict/core' || name === '@verdict/cel' ? withCore : gzip(await bundleForBrowser(entry, ['@verdict/core'])), withCore };
  }
  return sizes;
}
