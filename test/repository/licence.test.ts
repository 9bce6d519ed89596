import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { minimatch } from 'minimatch';
import { publishedPackages, read, repositoryFiles, ROOT } from './helpers.js';

/** SHA-256 of the Apache License 2.0 text as apache.org publishes it, without its leading blank line. */
const APACHE_2_0 = 'c71d239df91726fc519c6eb72d318ec65820627232b2f796219e87dcf35d0ab4';

function setup() {
  const notice = read('NOTICE');
  // Paths are the lines indented by exactly two spaces that hold one token with a slash.
  const globs = notice.split('\n').flatMap((line) => /^ {2}(\S*\/\S*)$/.exec(line)?.[1] ?? []);
  return { notice, globs, files: repositoryFiles() };
}

describe('the licence', () => {
  it('is the Apache License 2.0, word for word, at the root and in every published package', () => {
    expect(createHash('sha256').update(read('LICENSE')).digest('hex')).toBe(APACHE_2_0);
    for (const { dir, manifest } of publishedPackages()) {
      expect(manifest.license, manifest.name).toBe('Apache-2.0');
      expect(read(`${dir}/LICENSE`), `${dir}/LICENSE`).toBe(read('LICENSE'));
    }
  });
});

describe('NOTICE', () => {
  it('names paths that all hold files', () => {
    const { globs, files } = setup();
    expect(globs.length).toBeGreaterThan(0);
    for (const glob of globs) expect(files.some((f) => minimatch(f, glob)), `no file matches ${glob}`).toBe(true);
  });

  it('covers every file copied from an upstream project', () => {
    const { globs, files } = setup();
    // Copies live in folders named after their upstream (not our sources for it), are gator suites, or say where they come from.
    const upstream = files.filter((f) =>
      /(^|\/)(gatekeeper-library|kyverno[^/]*)\//.test(f) && !f.endsWith('.md') && !/^packages\/[^/]+\/src\//.test(f)
      || f.endsWith('/gator-suite.yaml')
      || (/\.(ya?ml|json)$/.test(f) && /^\W*#? ?Origin:/m.test(read(f).slice(0, 600))));
    expect(upstream).toContain('packages/core/test/fixtures/json-logic-tests.json');
    const uncovered = upstream.filter((f) => !globs.some((g) => minimatch(f, g)));
    expect(uncovered).toEqual([]);
  });

  it('keeps the notice of each upstream licence that asks for it', () => {
    const { notice } = setup();
    expect(notice).toContain('Copyright The Open Policy Agent Authors.');
    expect(notice).toContain('Copyright (c) 2015 Jeremy Wadhams');
    expect(existsSync(join(ROOT, 'notes/HELPERS.md'))).toBe(false);
  });
});
