/**
 * Every runtime export of a public entry point (a function, class or constant in
 * `packages/<pkg>/api/<entry>.api.md`, the API reports `pnpm api:check` keeps in
 * step with the sources) has a test and a user: some test names it, and so does
 * something outside its own package's sources (another package, an example, a
 * docs page, the README, an integration project). `internal` entries are left out:
 * they exist for our own packages.
 */
import { describe, expect, it } from 'vitest';
import { publishedPackages, read, repositoryFiles } from './helpers.js';

const TEXT = /\.(ts|mts|cts|tsx|js|mjs|cjs|md)$/;
const IS_TEST = /(^|\/)test\/|\.test(-d)?\.[mc]?tsx?$/;

function setup() {
  const files = repositoryFiles().filter((f) => TEXT.test(f) && !/(^|\/)(api|dist)\//.test(f) && !/CHANGELOG\.md$/.test(f) && !f.startsWith('.changeset/'));
  const texts = new Map(files.map((f) => [f, read(f)]));
  const exports = publishedPackages().flatMap(({ dir, manifest }) =>
    repositoryFiles()
      .filter((f) => f.startsWith(`${dir}/api/`) && f.endsWith('.api.md') && !f.endsWith('/internal.api.md'))
      .flatMap((report) =>
        [...read(report).matchAll(/^export (?:declare )?(?:abstract )?(?:class|function|const|enum) (\w+)/gm)].map((m) => ({
          name: m[1]!, entry: `${manifest.name}${report.endsWith('/index.api.md') ? '' : `/${/([^/]+)\.api\.md$/.exec(report)![1]}`}`, dir,
        })),
      ),
  );
  /** Files that name `word` as a whole word. */
  const naming = (word: string) => {
    const pattern = new RegExp(`\\b${word}\\b`);
    return [...texts].filter(([, text]) => pattern.test(text)).map(([file]) => file);
  };
  return { exports, naming };
}

describe('the public surfaces', () => {
  it('reads runtime exports from the API reports of every published package', () => {
    const { exports } = setup();
    expect(exports.map((e) => `${e.entry} ${e.name}`)).toEqual(expect.arrayContaining([
      '@verdict/core compilePolicies', '@verdict/spinnaker/redis createRedisPermissionSource', '@verdict/testing/kubernetes admissionReviewFor',
    ]));
  });

  it('give every runtime export a test and a user outside its own package', () => {
    const { exports, naming } = setup();
    const missing = exports.flatMap(({ name, entry, dir }) => {
      const files = naming(name);
      const lacks = [
        files.some((f) => IS_TEST.test(f)) ? [] : ['a test'],
        files.some((f) => !IS_TEST.test(f) && !f.startsWith(`${dir}/`)) ? [] : ['a user (another package, an example, docs or an integration)'],
      ].flat();
      return lacks.length > 0 ? [`${entry} ${name} lacks ${lacks.join(' and ')}`] : [];
    });
    expect(missing).toEqual([]);
  });
});
