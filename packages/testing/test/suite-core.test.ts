import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runSuites, SuiteError, summaryLine, type CaseResult } from '@verdict/testing';
import { loadSuiteFile } from '@verdict/testing/internal';
import { findPolicyFiles, findSuites } from '../src/files.js';
import { MEMORY_POLICIES, tempTree } from './helpers.js';

const SUITE = `
apiVersion: verdict.dev/v1
kind: Suite
metadata: {name: memory limits}
policies: [policies/memory.yaml]
cases:
  - name: 8Gi is fine for everyone
    input: {object: {metadata: {name: web, labels: {team: a, owner: b}}, spec: {containers: [{name: app, resources: {limits: {memory: 8Gi}}}]}}, namespaceLabels: {team: web}}
    expect:
      allowed: true
      warnings: false
      patch: false
      parameters: {memory-limit-enforcement: {limit: 16Gi}}
  - name: the big team gets 32Gi
    input: inputs/big.yaml
    expect:
      allowed: true
      parameters: {K8sMemoryLimits/memory-limit-enforcement: {limit: 32Gi}}
      warnings: [has no team label]
      patch: [{path: /object/metadata/labels/owner, value: platform}]
  - name: 20Gi is too much elsewhere
    input: {object: {metadata: {name: web}, spec: {containers: [{name: app, resources: {limits: {memory: 20Gi}}}]}}, namespaceLabels: {team: web}}
    expect:
      allowed: false
      violations: 1
      messages: ["at most 16Gi", {regex: "^\\\\[memory-limit-enforcement\\\\] container app"}]
  - name: system namespaces are not checked
    input: {object: {metadata: {name: dns}, spec: {containers: [{name: app, resources: {limits: {memory: 200Gi}}}]}}, namespaceLabels: {team: system}}
    expect:
      allowed: true
      parameters: {memory-limit-enforcement: null}
`;

const BIG = `object:
  metadata: {name: batch}
  spec: {containers: [{name: app, resources: {limits: {memory: 20Gi}}}]}
namespaceLabels: {team: big}
`;

function setup(files: Record<string, string> = {}) {
  return tempTree({ 'policies/memory.yaml': MEMORY_POLICIES, 'inputs/big.yaml': BIG, 'memory.verdict.yaml': SUITE, ...files });
}

describe('runSuites with core inputs', () => {
  it('runs every case of a passing suite and counts them', async () => {
    const { dir, cleanup } = setup();
    try {
      const seen: CaseResult[] = [];
      const plans: unknown[] = [];
      const report = await runSuites(['.'], { cwd: dir, onStart: (p) => plans.push(p), onCase: (c) => seen.push(c) });
      expect(plans).toEqual([{ suites: 1, cases: 4 }]);
      expect(seen.map((c) => [c.name, c.status, c.adapter])).toEqual([
        ['8Gi is fine for everyone', 'passed', 'core'],
        ['the big team gets 32Gi', 'passed', 'core'],
        ['20Gi is too much elsewhere', 'passed', 'core'],
        ['system namespaces are not checked', 'passed', 'core'],
      ]);
      expect(report.suites[0]).toMatchObject({ file: 'memory.verdict.yaml', name: 'memory limits', status: 'passed' });
      expect(summaryLine(report)).toBe('4 passed, 0 failed');
    } finally {
      cleanup();
    }
  });

  it('reports a failing case with the expected and actual values and the trace', async () => {
    const { dir, cleanup } = setup({
      'memory.verdict.yaml': SUITE.replace('parameters: {memory-limit-enforcement: {limit: 16Gi}}', 'parameters: {memory-limit-enforcement: {limit: 64Gi}}')
        .replace('messages: ["at most 16Gi"', 'messages: ["at most 8Gi"'),
    });
    try {
      const report = await runSuites(['memory.verdict.yaml'], { cwd: dir });
      expect(summaryLine(report)).toBe('2 passed, 2 failed');
      const [first, , third] = report.suites[0]!.cases;
      expect(first!.status).toBe('failed');
      const failed = first!.checks.filter((c) => !c.pass);
      expect(failed.map((c) => c.expectation)).toEqual(['parameters of memory-limit-enforcement']);
      expect(failed[0]!.expected).toEqual({ 'memory-limit-enforcement': { limit: '64Gi' } });
      expect(failed[0]!.actual).toEqual({ 'memory-limit-enforcement': { limit: '16Gi' } });
      expect(failed[0]!.trace).toContain('entry 1 "everyone-else" won');
      expect(third!.checks.find((c) => !c.pass)!.message).toContain('expected a denial message matching "at most 8Gi"');
      expect(first!.line).toBe(7);
    } finally {
      cleanup();
    }
  });

  it('runs only the cases a filter selects and reports skipped cases', async () => {
    const { dir, cleanup } = setup({ 'memory.verdict.yaml': SUITE.replace('  - name: system namespaces are not checked\n', '  - name: system namespaces are not checked\n    skip: true\n') });
    try {
      expect(summaryLine(await runSuites(['.'], { cwd: dir, filter: /too much|system/ }))).toBe('1 passed, 0 failed, 1 skipped');
      expect(summaryLine(await runSuites(['.'], { cwd: dir, filter: 'memory limits › 8Gi' }))).toBe('1 passed, 0 failed');
    } finally {
      cleanup();
    }
  });

  it('reports a case whose input file is missing or holds two documents as an error, and runs the others', async () => {
    const { dir, cleanup } = setup({ 'inputs/big.yaml': `${BIG}---\n${BIG}` });
    try {
      const report = await runSuites(['.'], { cwd: dir });
      const broken = report.suites[0]!.cases[1]!;
      expect(broken.status).toBe('error');
      expect(broken.error).toBe('input input (inputs/big.yaml) must hold exactly one document (found 2); put each object in its own file or case');
      expect(summaryLine(report)).toBe('3 passed, 1 failed');
    } finally {
      cleanup();
    }
  });

  it('reports a suite whose policies do not load, with file and line, and still runs other suites', async () => {
    const { dir, cleanup } = setup({
      'broken/policies.yaml': 'apiVersion: verdict.dev/v1\nkind: Policy\nmetadata: {name: x}\nspec:\n  validate: [{name: r, rule: {nope: 1}, message: m}]\n',
      'broken/broken.verdict.yaml': 'apiVersion: verdict.dev/v1\nkind: Suite\npolicies: [policies.yaml]\ncases: [{name: a, input: {}, expect: {allowed: true}}]\n',
    });
    try {
      const report = await runSuites(['.'], { cwd: dir });
      const broken = report.suites.find((s) => s.file.startsWith('broken'))!;
      expect(broken.status).toBe('error');
      expect(broken.error![0]).toBe('policies failed to load:');
      expect(broken.error![1]).toMatch(/^ {2}broken\/policies\.yaml:5:\d+ \(Policy\/x\) at \/spec\/validate\/0\/rule.*nope/);
      expect(summaryLine(report)).toBe('4 passed, 1 failed');
    } finally {
      cleanup();
    }
  });
});

describe('suite files', () => {
  it('rejects a malformed suite with every problem, its line and JSON path', () => {
    const { dir, cleanup } = tempTree({
      'bad.verdict.yaml': [
        'apiVersion: verdict.dev/v1',
        'kind: Suite',
        'polices: [a.yaml]',
        'cases:',
        '  - name: a',
        '    input: {}',
        '    expect: {allowed: yes, messages: []}',
        '  - name: b',
        '    input: {}',
        '    expect: {warnings: [{regex: "("}]}',
        '',
      ].join('\n'),
    });
    try {
      let error: SuiteError | undefined;
      try {
        loadSuiteFile('bad.verdict.yaml', { cwd: dir });
      } catch (e) {
        error = e as SuiteError;
      }
      expect(error).toBeInstanceOf(SuiteError);
      expect(error!.code).toBe('SUITE_INVALID');
      expect(error!.problems.map((p) => `${p.line}:${p.path}: ${p.message}`)).toEqual([
        '3:/polices: unknown key "polices"; did you mean "policies"?',
        '7:/cases/0/expect/allowed: must be boolean (got string "yes") (YAML 1.2 reads yes/no/on/off as strings: write true or false)',
        '7:/cases/0/expect/messages: must not be an empty list',
      ]);
    } finally {
      cleanup();
    }
  });

  it('rejects an invalid regular expression and a duplicate case name', () => {
    const { dir, cleanup } = tempTree({
      's.verdict.yaml': 'apiVersion: verdict.dev/v1\nkind: Suite\ncases:\n  - {name: a, input: {}, expect: {warnings: [{regex: "("}]}}\n  - {name: a, input: {}, expect: {allowed: true}}\n',
    });
    try {
      expect(() => loadSuiteFile('s.verdict.yaml', { cwd: dir })).toThrowError(SuiteError);
      try {
        loadSuiteFile('s.verdict.yaml', { cwd: dir });
      } catch (e) {
        expect((e as SuiteError).problems.map((p) => p.message)).toEqual([
          expect.stringMatching(/^invalid regular expression \/\(\/: missing closing \)/),
          'case name "a" is used twice in this suite; names must be unique',
        ]);
      }
    } finally {
      cleanup();
    }
  });

  it('counts a malformed suite file as one failure in a run', async () => {
    const { dir, cleanup } = tempTree({ 'x.verdict.yaml': 'apiVersion: verdict/v1\nkind: Suite\ncases: []\n' });
    try {
      const report = await runSuites(['.'], { cwd: dir });
      expect(report.suites[0]).toMatchObject({ status: 'error', file: 'x.verdict.yaml' });
      expect(report.suites[0]!.error).toContain(
        'x.verdict.yaml:1:13 at /apiVersion: must be "verdict.dev/v1" (got string "verdict/v1")',
      );
      expect(summaryLine(report)).toBe('0 passed, 1 failed');
    } finally {
      cleanup();
    }
  });

  it('finds suites below directories, skipping node_modules, and fails clearly for a missing path', () => {
    const { dir, cleanup } = setup({ 'node_modules/x/y.verdict.yaml': SUITE, 'a/b.verdict.yml': SUITE });
    try {
      expect(findSuites(['.'], { cwd: dir })).toEqual(['a/b.verdict.yml', 'memory.verdict.yaml']);
      expect(() => findSuites(['nope'], { cwd: dir })).toThrowError('no such file or directory: nope');
      expect(() => findSuites(['inputs'], { cwd: dir })).toThrowError('no *.verdict.yaml suite found under inputs');
    } finally {
      cleanup();
    }
  });

  it("loads a policies folder without the project's own files (package.json, lockfiles, tsconfig*.json)", async () => {
    const { dir, cleanup } = setup({
      'policies/package.json': '{"name": "policies", "private": true}\n',
      'policies/tsconfig.build.json': '{"compilerOptions": {}}\n',
      'policies/pnpm-lock.yaml': "lockfileVersion: '9.0'\n",
      'memory.verdict.yaml': SUITE.replace('policies: [policies/memory.yaml]', 'policies: [policies]'),
    });
    try {
      expect(findPolicyFiles(['policies'], { cwd: dir }).map((file) => relative(dir, file))).toEqual([join('policies', 'memory.yaml')]);
      expect(summaryLine(await runSuites(['.'], { cwd: dir }))).toBe('4 passed, 0 failed');
    } finally {
      cleanup();
    }
  });
});

describe('suite regular expressions run on the linear RE2 engine', () => {
  it('refuses a backreference with a hint, as gator verify (Go regexp) would', () => {
    const { dir, cleanup } = tempTree({
      's.verdict.yaml': 'apiVersion: verdict.dev/v1\nkind: Suite\ncases:\n  - {name: a, input: {}, expect: {assertions: [{violations: yes, message: "(a)\\\\1"}]}}\n',
    });
    try {
      expect(() => loadSuiteFile('s.verdict.yaml', { cwd: dir })).toThrowError(/backreferences cannot run in linear time/);
    } finally {
      cleanup();
    }
  });
});
