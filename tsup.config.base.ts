import { defineConfig, type Options } from 'tsup';

/**
 * Shared build settings for every @verdict package. Only options that tsdown
 * also accepts are used, so moving to tsdown (once Node 22.18 is the floor) is
 * mechanical: no esbuild plugins, no terser.
 */
export function defineLibConfig(options: {
  entry: Record<string, string>;
  /** `neutral` for code that must run in browsers, workers and edge runtimes. */
  platform?: 'node' | 'neutral';
  /**
   * Rewrite `import.meta.url` in the CommonJS build (tsup's shim reads `__filename`): for a package whose ESM
   * source needs its own location. A CommonJS file that keeps `import.meta` does not even parse.
   */
  importMetaShim?: boolean;
}) {
  const neutral = options.platform === 'neutral';
  const config: Options = {
    entry: options.entry,
    format: ['esm', 'cjs'],
    // Entries of one package share chunks in both formats (tsdown does the same), so each class
    // and each piece of module state exists once however many entry points a program imports.
    splitting: true,
    dts: true,
    sourcemap: true,
    clean: true,
    platform: neutral ? 'neutral' : 'node',
    target: neutral ? 'es2022' : 'node20',
    tsconfig: 'tsconfig.build.json',
    shims: options.importMetaShim === true,
  };
  return defineConfig(config);
}
