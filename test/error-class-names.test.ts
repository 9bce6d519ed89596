/**
 * Uncaught errors printed as `_AdmissionError: …`. A class
 * whose body names its own class (a static factory calling `new
 * AdmissionError(…)`) is bundled by esbuild, which tsup uses, as
 * `var AdmissionError = class _AdmissionError`, and Node prints an error whose
 * constructor name contains its `name` with the constructor name. This bundles
 * every package the way tsup does and checks that no class was renamed.
 */
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as Esbuild from 'esbuild';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(ROOT, 'package.json'));
/** The esbuild tsup runs. */
const esbuild = require(require.resolve('esbuild', { paths: [require.resolve('tsup')] })) as typeof Esbuild;

describe('error class names survive bundling', () => {
  const setup = () => readdirSync(join(ROOT, 'packages')).map((pkg) => join(ROOT, 'packages', pkg, 'src', 'index.ts'));

  it('no class of any package is renamed by the bundler', async () => {
    const renamed: string[] = [];
    for (const entry of setup()) {
      const result = await esbuild.build({
        entryPoints: [entry], bundle: true, write: false, format: 'esm', platform: 'node', target: 'node20', packages: 'external', logLevel: 'silent',
      });
      const code = result.outputFiles[0]!.text;
      for (const m of code.matchAll(/var (\w+) = class (_\1)\b/g)) renamed.push(`${m[1]} (bundled as ${m[2]})`);
    }
    expect(renamed).toEqual([]);
  }, 60_000);
});
