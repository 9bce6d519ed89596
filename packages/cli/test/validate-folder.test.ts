/**
 * `verdict validate` on a folder reports every file's
 * problems (one YAML syntax error used to hide the rest) with the column of
 * the offending key.
 */
import { describe, expect, it } from 'vitest';
import { tempTree, verdict } from './helpers.js';

const TEMPLATE = [
  'apiVersion: verdict.dev/v1',
  'kind: PolicyTemplate',
  'metadata: {name: limits}',
  'spec:',
  '  kind: Limits',
  '  parametersSchema: {type: object, properties: {limit: {type: string}}}',
  '  validate:',
  '    - name: limit',
  '      rule: true',
  '       message: m', // one space too many: the key is at column 8
  '',
].join('\n');

describe('verdict validate on a folder', () => {
  const setup = () => tempTree({
    'policies/a-template.yaml': TEMPLATE,
    'policies/b-constraint.yaml': 'kind: Limits\nmetadata: {name: l}\nspec: {parameters: {limit: 1Gi}}\n',
    'policies/c-policy.yaml': 'apiVersion: verdict.dev/v1\nkind: Policy\nmetadata: {name: p}\nspec:\n  paramters: {}\n  validate: [{name: r, rule: true, message: m}]\n',
    'policies/d-quote.yaml': 'kind: Policy\nmetadata: {name: "q}\n',
  });

  it('reports the syntax errors of every file and the problems of the files that parse, with the right columns', async () => {
    const { dir, cleanup } = setup();
    try {
      const run = await verdict(['validate', 'policies'], { cwd: dir });
      expect(run.code).toBe(1);
      expect(run.stdout.split('\n')).toEqual([
        '✗ policies/a-template.yaml:10:8: Implicit keys need to be on a single line: the value before this line runs into it; is this key indented more than the keys above it?',
        '✗ policies/c-policy.yaml:5:3 (Policy/p) at /spec/paramters: unknown field "paramters"; did you mean "parameters"?',
        '✗ policies/d-quote.yaml:2:18: Missing closing "quote',
        '3 problems in 3 files: the policies do not load (core)',
        '',
      ]);
      // b-constraint.yaml's kind is defined in a-template.yaml, which did not parse: no "unknown kind" noise.
      expect(run.stdout).not.toContain('b-constraint');
    } finally {
      cleanup();
    }
  }, 90_000);

  it('still reports a kind that no file defines', async () => {
    const { dir, cleanup } = tempTree({
      'a.yaml': 'kind: Limit\nmetadata: {name: l}\nspec: {}\n',
      'b.yaml': 'kind: Policy\n  metadata: x\n',
    });
    try {
      const run = await verdict(['validate', '.', '-o', 'json'], { cwd: dir });
      const report = JSON.parse(run.stdout) as { problems: Array<{ code: string; source: string; line: number; column: number }> };
      expect(report.problems.map((p) => [p.code, p.source, p.line, p.column])).toEqual([
        ['UNKNOWN_KIND', 'a.yaml', 1, 7],
        ['YAML_SYNTAX', 'b.yaml', 2, 3],
      ]);
    } finally {
      cleanup();
    }
  }, 90_000);

  it("leaves out a project's own files (package.json, lockfiles, tsconfig) when given the project folder, and reads them when named", async () => {
    const { dir, cleanup } = tempTree({
      'package.json': '{"name": "my-policies", "private": true, "type": "module"}\n',
      'package-lock.json': '{"name": "my-policies", "lockfileVersion": 3, "packages": {}}\n',
      'tsconfig.json': '{"compilerOptions": {"strict": true}}\n',
      'tsconfig.build.json': '{"extends": "./tsconfig.json"}\n',
      'pnpm-lock.yaml': "lockfileVersion: '9.0'\n",
      'policies/size.json': '{"apiVersion": "verdict.dev/v1", "kind": "Policy", "metadata": {"name": "size"}, "spec": {"validate": [{"name": "small", "rule": {"<=": [{"var": "size"}, 10]}, "message": "too big"}]}}\n',
    });
    try {
      const folder = await verdict(['validate', '.'], { cwd: dir });
      expect(folder.stdout).toBe('✓ 1 document, 1 policy (core): valid\n');
      expect(folder.code).toBe(0);
      const named = await verdict(['validate', 'package.json', 'policies'], { cwd: dir });
      expect(named.code).toBe(1);
      expect(named.stdout).toContain('✗ package.json:1:1 at /kind: missing required field "kind"');
    } finally {
      cleanup();
    }
  }, 90_000);
});
