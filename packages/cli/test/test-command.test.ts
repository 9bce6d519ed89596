import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { ROOT, tempTree, verdict } from './helpers.js';

const POLICY = `
apiVersion: verdict.dev/v1
kind: Policy
metadata: {name: size}
spec:
  validate: [{name: small, rule: {"<=": [{var: size}, 10]}, message: "size {{size}} is over 10"}]
`;

const SUITE = (expected: boolean) => `
apiVersion: verdict.dev/v1
kind: Suite
metadata: {name: sizes}
policies: [policy.yaml]
cases:
  - {name: small is fine, input: {size: 3}, expect: {allowed: true}}
  - {name: big is denied, input: {size: 30}, expect: {allowed: ${expected}}}
`;

function setup(expected: boolean, extra: Record<string, string> = {}) {
  return tempTree({ 'policy.yaml': POLICY, 'sizes.verdict.yaml': SUITE(expected), ...extra });
}

describe('verdict test', () => {
  it('runs the examples (the README demo) and ends with the summary line', async () => {
    const run = await verdict(['test', 'examples/']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^running \d+ cases from \d+ suites$/);
    expect(lines.at(-1)).toMatch(/^\d+ passed, 0 failed$/);
    for (const suite of ['gatekeeper-library/requiredlabels', 'gatekeeper-library/uniqueingresshost', 'gatekeeper-library/uniqueserviceselector', 'ci/gitlab-scenarios', 'spinnaker/permissions', 'kubernetes-webhook/webhook', 'parameter-selection/defaults-and-overrides']) {
      expect(run.stdout).toContain(`examples/${suite}`);
    }
    expect(run.stdout).not.toContain('\u001b[');
    // docs/cli.md shows this run: its first and last lines are the real ones.
    const transcript = /```text\n\$ verdict test examples\/\n(running .*)\n[\s\S]*?\n(\d+ passed, 0 failed)\n```/.exec(readFileSync(join(ROOT, 'docs/cli.md'), 'utf8'));
    expect([transcript?.[1], transcript?.[2]]).toEqual([lines[0], lines.at(-1)]);
  }, 120_000);

  it('prints one line per case and exits 0 when every case passes', async () => {
    const { dir, cleanup } = setup(false);
    try {
      const run = await verdict(['test'], { cwd: dir });
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/^sizes\.verdict\.yaml sizes\n {2}✓ small is fine( \(\d+ ms\))?\n {2}✓ big is denied/m);
      expect(run.stdout.trimEnd().split('\n').at(-1)).toBe('2 passed, 0 failed');
    } finally {
      cleanup();
    }
  }, 60_000);

  it('shows a diff and the trace for a failing case, exits 1, and writes JUnit XML', async () => {
    const { dir, cleanup } = setup(true);
    try {
      const run = await verdict(['test', '.', '--junit', 'reports/junit.xml'], { cwd: dir });
      expect(run.code).toBe(1);
      expect(run.stdout).toContain('  ✗ big is denied');
      expect(run.stdout).toContain('      expected the decision to be allowed, but it was denied:\n        - [size] size 30 is over 10');
      expect(run.stdout).toContain('      - expected  + actual\n      - allowed: true\n      + allowed: false\n      + denials:');
      expect(run.stdout).toContain('      trace:\n        Policy/size [deny]: matched');
      expect(run.stdout.trimEnd().split('\n').at(-1)).toBe('1 passed, 1 failed');
      const xml = readFileSync(join(dir, 'reports/junit.xml'), 'utf8');
      expect(XMLValidator.validate(xml)).toBe(true);
      const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(xml) as { testsuites: { tests: string; failures: string; testsuite: { testcase: Array<Record<string, unknown>> } } };
      expect(doc.testsuites).toMatchObject({ tests: '2', failures: '1' });
      expect(doc.testsuites.testsuite.testcase[1]).toHaveProperty('failure');
    } finally {
      cleanup();
    }
  }, 60_000);

  it('prints only failures with --quiet, and runs only matching cases with --filter', async () => {
    const { dir, cleanup } = setup(true);
    try {
      const quiet = await verdict(['test', '-q'], { cwd: dir });
      expect(quiet.stdout).not.toContain('small is fine');
      expect(quiet.stdout).toMatch(/^sizes\.verdict\.yaml sizes\n {2}✗ big is denied/);
      const filtered = await verdict(['test', '--filter', '/^small/'], { cwd: dir });
      expect(filtered.code).toBe(0);
      expect(filtered.stdout.trimEnd().split('\n').at(-1)).toBe('1 passed, 0 failed');
    } finally {
      cleanup();
    }
  }, 60_000);

  it('reports a malformed suite with its line and exits 1; a path without suites exits 2', async () => {
    const { dir, cleanup } = setup(false, { 'bad.verdict.yaml': 'apiVersion: verdict.dev/v1\nkind: Suite\ncases:\n  - {name: x, input: {}, expect: {allowed: yes}}\n' });
    try {
      const run = await verdict(['test'], { cwd: dir });
      expect(run.code).toBe(1);
      expect(run.stdout).toContain('  ! the suite could not run:\n      bad.verdict.yaml:4:44 at /cases/0/expect/allowed: must be boolean (got string "yes") (YAML 1.2 reads yes/no/on/off as strings: write true or false)');
      expect(run.stdout).toContain('1 suite could not run\n2 passed, 1 failed');
      const none = await verdict(['test', 'nowhere'], { cwd: dir });
      expect(none).toMatchObject({ code: 2, stdout: '', stderr: 'verdict: no such file or directory: nowhere\n' });
    } finally {
      cleanup();
    }
  }, 60_000);

  it('colours only when asked: FORCE_COLOR without a TTY, never with NO_COLOR', async () => {
    const { dir, cleanup } = setup(false);
    try {
      expect((await verdict(['test'], { cwd: dir })).stdout).not.toContain('\u001b[');
      expect((await verdict(['test'], { cwd: dir, env: { FORCE_COLOR: '1' } })).stdout).toContain('\u001b[32m✓\u001b[39m small is fine');
      expect((await verdict(['test'], { cwd: dir, env: { FORCE_COLOR: '1', NO_COLOR: '1' } })).stdout).not.toContain('\u001b[');
    } finally {
      cleanup();
    }
  }, 60_000);
});
