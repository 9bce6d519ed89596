/**
 * README, docs, examples, the demo and the packages'
 * sources (their TSDoc ships in the .d.ts) spoke of "seed 003", "the
 * proposal" and "special team 1": names of documents users do not have. They
 * name what each example is and link its public source instead.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SKIP = new Set(['node_modules', 'dist', 'test', 'fixtures', 'coverage']);
const TEXT = /\.(md|ya?ml|json|ts|mjs)$/;

function files(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (SKIP.has(name) || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) files(path, out);
    else if (TEXT.test(name)) out.push(path);
  }
  return out;
}

describe('what users read names its sources', () => {
  const setup = () => [join(ROOT, 'README.md'), ...['docs', 'examples', 'scripts', 'packages', 'site'].flatMap((dir) => files(join(ROOT, dir)))];

  it('never names seed 003, "the proposal" or special team 1', () => {
    const found: string[] = [];
    for (const file of setup()) {
      readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
        const hit = /\bseed[ -]?0\d\d|\bproposal'?s?\b|\bspecial team \d|\bthe seed\b(?! and the shrunk)/i.exec(line);
        if (hit) found.push(`${relative(ROOT, file)}:${i + 1}: ${hit[0]}`);
      });
    }
    expect(found).toEqual([]);
  });

  it('links the public sources of the examples', () => {
    const docs = ['README.md', 'docs/ci.md', 'docs/spinnaker.md', 'examples/parameter-selection/README.md', 'examples/ci/README.md'].map((f) => readFileSync(join(ROOT, f), 'utf8')).join('\n');
    expect(docs).toContain('https://github.com/open-policy-agent/gatekeeper/issues/3082');
    expect(docs).toMatch(/https:\/\/(docs\.gitlab\.com|handbook\.gitlab\.com)\/[^)\s]*runner_admission_controller/);
    expect(docs).toContain('https://spinnaker.io/docs/reference/architecture/authz_authn/authorization/');
  });
});
