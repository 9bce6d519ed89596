import { describe, expect, it } from 'vitest';
import { FIXTURES, tempTree, verdict } from './helpers.js';

const K8S = ['-p', `${FIXTURES}/memory-template.yaml`, '-p', `${FIXTURES}/seed-003.yaml`, '-i', `${FIXTURES}/pod.yaml`];

describe('verdict eval', () => {
  it('wraps a bare object in an AdmissionReview and prints the response, exiting 1 for a denial', async () => {
    const run = await verdict(['eval', ...K8S, '--namespace-labels', 'field.cattle.io/projectId=web']);
    expect(run.code).toBe(1);
    const review = JSON.parse(run.stdout) as { kind: string; response: { allowed: boolean; status: { code: number; message: string } } };
    expect(review.kind).toBe('AdmissionReview');
    expect(review.response).toMatchObject({ allowed: false, status: { code: 403, message: '[memory-limit-enforcement] container app memory limit 40Gi must be at most 16Gi' } });
  }, 60_000);

  it('applies --cost-budget: a Pod that needs more units fails with a 500 under failurePolicy Fail', async () => {
    const run = await verdict(['eval', ...K8S, '--namespace-labels', 'field.cattle.io/projectId=web', '--cost-budget', '1']);
    expect(run.code).toBe(1);
    const review = JSON.parse(run.stdout) as { response: { status: { code: number; message: string } } };
    expect(review.response.status).toMatchObject({ code: 500, message: expect.stringMatching(/exceeded the cost budget of 1 units/) });
    expect(await verdict(['eval', ...K8S, '--cost-budget', 'lots'])).toMatchObject({ code: 2, stderr: expect.stringMatching(/--cost-budget must be a positive whole number of units \(got "lots"\)/) });
  }, 60_000);

  it('prints a text summary, and exits 0 when allowed', async () => {
    const run = await verdict(['eval', ...K8S, '--namespace-labels', 'field.cattle.io/projectId=64g-team', '-o', 'text']);
    expect(run).toMatchObject({ code: 0, stdout: 'ALLOWED (kubernetes)\n' });
  }, 60_000);

  it('evaluates a core input read from standard input, as YAML', async () => {
    const policy = 'apiVersion: verdict.dev/v1\nkind: Policy\nmetadata: {name: size}\nspec:\n  validate: [{name: small, rule: {"<=": [{var: size}, 10]}, message: "size {{size}} is over 10"}]\n';
    const { dir, cleanup } = tempTree({ 'policy.yaml': policy });
    try {
      const run = await verdict(['eval', '-p', 'policy.yaml', '-i', '-', '-o', 'yaml'], { cwd: dir, stdin: 'size: 30\n' });
      expect(run.code).toBe(1);
      expect(run.stdout).toMatch(/^allowed: false\nviolations:\n {2}- policy: size\n/);
    } finally {
      cleanup();
    }
  }, 60_000);

  it('answers a CI job and a Fiat query with adapter settings from --config', async () => {
    const job = await verdict(['eval', '-p', 'examples/ci/scenarios/1-allow-list/allow-list.yaml', '-i', 'examples/ci/scenarios/example-payloads/request-666.json', '-o', 'text']);
    expect(job).toMatchObject({ code: 1, stdout: 'REJECTED (ci)\n  ✗ project <missing> may not use the secure runners: you have no power here\n' });
    const { dir, cleanup } = tempTree({
      'fiat.yaml': 'spinnaker:\n  definitions: {users: {ann: [ops]}, applications: [{name: shop, permissions: {READ: [ops]}}]}\n',
      'query.yaml': '{user: ann, resourceType: application, resourceName: shop, authorization: READ}\n',
    });
    try {
      const run = await verdict(['eval', '-p', `${process.cwd()}/examples/spinnaker/policies`, '-i', 'query.yaml', '-c', 'fiat.yaml'], { cwd: dir });
      expect(run.code).toBe(0);
      expect(JSON.parse(run.stdout)).toEqual({ allowed: true, reason: 'application shop grants READ to user ann' });
    } finally {
      cleanup();
    }
  }, 60_000);

  it('takes the policies of a CI chain from --config, as a suite does, and refuses -p next to it', async () => {
    const policy = (name: string, spec: string) => `apiVersion: verdict.dev/v1\nkind: Policy\nmetadata: {name: ${name}}\nspec:\n${spec}`;
    const { dir, cleanup } = tempTree({
      'project.yaml': policy('no-latest', '  validate: [{name: pinned, rule: {"!": {ends_with: [{var: job.image}, ":latest"]}}, message: "image {{job.image}} uses :latest"}]\n'),
      'group.yaml': policy('protected', '  validate: [{name: protected, rule: {"==": [{var: refProtected}, true]}, message: "ref {{ref}} is not protected"}]\n'),
      'chain.yaml': 'ci:\n  chain:\n    - {level: project, policies: [project.yaml]}\n    - {level: group, name: acme, dryRun: true, policies: [group.yaml]}\n',
      'job.json': '{"id": 7, "variables": {"CI_JOB_IMAGE": "alpine:3.20", "CI_COMMIT_REF_NAME": "wip", "CI_COMMIT_REF_PROTECTED": "false"}}\n',
      'latest.json': '{"id": 8, "variables": {"CI_JOB_IMAGE": "alpine:latest"}}\n',
    });
    try {
      expect(await verdict(['eval', '-c', 'chain.yaml', '-i', 'job.json', '-o', 'text'], { cwd: dir })).toMatchObject({
        code: 0, stdout: 'ACCEPTED (ci)\n  reason: dry run (acme): would reject: ref wip is not protected\n',
      });
      expect(await verdict(['explain', '-c', 'chain.yaml', '-i', 'latest.json'], { cwd: dir })).toMatchObject({ code: 1, stdout: expect.stringMatching(/^REJECTED \(ci\)\n {2}✗ image alpine:latest uses :latest\n/) });
      // The dry-run level's denial is in its trace, marked as the job's reason words it: not enforced.
      const text = (await verdict(['explain', '-c', 'chain.yaml', '-i', 'job.json'], { cwd: dir })).stdout;
      expect(text).toMatch(/Policy\/protected \[deny\] \[dry run \(acme\): not enforced\]: matched\n(?: {4}.*\n)* {4}✗ protected\n {8}ref wip is not protected\n/);
      expect(text).toMatch(/Policy\/no-latest \[deny\]: matched/);
      expect(text).not.toMatch(/no-latest.*dry run/);
      const json = JSON.parse((await verdict(['explain', '-c', 'chain.yaml', '-i', 'job.json', '-o', 'json'], { cwd: dir })).stdout) as { allowed: boolean; warnings: string[]; trace: Array<Record<string, unknown>> };
      expect(json.allowed).toBe(true);
      expect(json.warnings).toEqual(['dry run (acme): would reject: ref wip is not protected']);
      expect(json.trace.map((t) => [t['policy'], t['ciLevel']])).toEqual([
        ['no-latest', { level: 'project', name: 'project', dryRun: false }],
        ['protected', { level: 'group', name: 'acme', dryRun: true }],
      ]);
      expect(await verdict(['eval', '-p', 'project.yaml', '-c', 'chain.yaml', '-i', 'job.json'], { cwd: dir })).toMatchObject({
        code: 2, stderr: 'verdict: verdict eval: --config chain.yaml has a ci.chain, whose levels name their own policies; -p would not be used: leave it out, or add its files to a level of the chain\n',
      });
    } finally {
      cleanup();
    }
  }, 90_000);

  it('shows a retagged CI job once: its reason and its tag changes, not the same again as warnings and patch lines', async () => {
    const policy = 'apiVersion: verdict.dev/v1\nkind: Policy\nmetadata: {name: pci}\nspec:\n  parameters: {reason: tagged pci}\n  mutate: [{name: tag, patch: [{op: add, path: /tags/-, value: pci}]}]\n';
    const { dir, cleanup } = tempTree({ 'pci.yaml': policy, 'job.json': '{"id": 1, "variables": {}, "tags": ["docker"]}' });
    try {
      const run = await verdict(['eval', '-p', 'pci.yaml', '-i', 'job.json', '-o', 'text'], { cwd: dir });
      expect(run).toMatchObject({ code: 0, stdout: 'ACCEPTED (ci)\n  reason: tagged pci\n  tags added: pci\n' });
    } finally {
      cleanup();
    }
  }, 60_000);

  it('validate names a misspelt job field of a CI policy, found by its match keys or given by --as ci', async () => {
    const rule = '  validate: [{name: pinned, rule: {"!": {glob: ["**/*:latest", {var: job.imag}]}}, message: pin it}]';
    const { dir, cleanup } = tempTree({
      'matched.yaml': ['apiVersion: verdict.dev/v1', 'kind: Policy', 'metadata: {name: no-latest}', 'spec:', '  match: {projects: [shop/*]}', rule, ''].join('\n'),
      'plain.yaml': ['apiVersion: verdict.dev/v1', 'kind: Policy', 'metadata: {name: no-latest}', 'spec:', rule, ''].join('\n'),
    });
    try {
      const problem = /^✗ \w+\.yaml:\d+:\d+ \(Policy\/no-latest\) at \/spec\/validate\/0\/rule\/!\/glob\/1\/var: reads job\.imag, but the CI job input has no "imag" under job; did you mean "image"\?/m;
      expect(await verdict(['validate', 'matched.yaml'], { cwd: dir })).toMatchObject({ code: 1, stdout: expect.stringMatching(problem) });
      expect(await verdict(['validate', '--as', 'ci', 'plain.yaml'], { cwd: dir })).toMatchObject({ code: 1, stdout: expect.stringMatching(problem) });
    } finally {
      cleanup();
    }
  }, 60_000);

  it('reports missing arguments, unreadable inputs and policies that do not load in one line each, with exit code 2', async () => {
    expect(await verdict(['eval', '-i', 'x.yaml'])).toMatchObject({ code: 2, stderr: 'verdict: verdict eval needs policies: -p <file or directory>; see verdict eval --help\n' });
    expect(await verdict(['eval', '-p', FIXTURES, '-i', 'nope.yaml'])).toMatchObject({ code: 2, stderr: 'verdict: cannot read input nope.yaml: ENOENT\n' });
    const broken = await verdict(['eval', '-p', `${FIXTURES}/memory-template.yaml`, '-p', `${FIXTURES}/seed-003-verbatim.yaml`, '-i', `${FIXTURES}/pod.yaml`]);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/^verdict: packages\/cli\/test\/fixtures\/seed-003-verbatim\.yaml:11:56 \(K8sMemoryLimits\/memory-limit-enforcement-64gteam\) at \/spec\/match\/namespaceSelector\/matchExpressions\/0\/operation: unknown field "operation" in match expression; did you mean "operator"\?\n$/);
  }, 60_000);
});

describe('verdict explain', () => {
  it('prints the answer, which entry won and why the earlier ones did not, the parameters and each rule', async () => {
    const run = await verdict(['explain', ...K8S, '--namespace-labels', 'field.cattle.io/projectId=web']);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe([
      'DENIED (kubernetes, 403)',
      '  ✗ [memory-limit-enforcement] container app memory limit 40Gi must be at most 16Gi',
      '',
      'policies',
      '  K8sMemoryLimits/memory-limit-enforcement [deny]: matched',
      '    parameterSelection (MatchFirst): entry 2 won',
      '      entry 0 did not match: requires namespaceSelector: field.cattle.io/projectId=32g-team (/spec/parameterSelection/0/match/namespaceSelector)',
      '      entry 1 did not match: requires namespaceSelector: field.cattle.io/projectId=64g-team (/spec/parameterSelection/1/match/namespaceSelector)',
      '    parameters: {limit: 16Gi}',
      '    ✗ container-memory-limit (1 of 1 elements failed)',
      '        container app memory limit 40Gi must be at most 16Gi (/object/spec/containers/0)',
      '',
    ].join('\n'));
  }, 60_000);

  it('says which selector ruled a policy out', async () => {
    const run = await verdict(['explain', ...K8S, '--namespace-labels', 'field.cattle.io/projectId=system']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('K8sMemoryLimits/memory-limit-enforcement [deny]: not matched: requires namespaceSelector: field.cattle.io/projectId!=system (/spec/match/namespaceSelector)');
  }, 60_000);
});

describe('verdict validate', () => {
  it('accepts valid policies and exits 0', async () => {
    const run = await verdict(['validate', `${FIXTURES}/memory-template.yaml`, `${FIXTURES}/seed-003.yaml`]);
    expect(run).toMatchObject({ code: 0, stdout: '✓ 2 documents, 1 policy (kubernetes): valid\n' });
  }, 60_000);

  it('prints every load problem with file, line and JSON path, and exits 1', async () => {
    const { dir, cleanup } = tempTree({
      'bad.yaml': [
        'apiVersion: verdict.dev/v1', 'kind: Policy', 'metadata: {name: limits}', 'spec:',
        '  parametersSchema: {type: object, properties: {limit: {type: string}}}',
        '  parameters: {limit: 16Gi}',
        '  parameterSelection:',
        '    - parameters: {limit: 32}',
        '---',
        'kind: K8sMemoryLimit',
        'metadata: {name: typo}',
        '',
      ].join('\n'),
    });
    try {
      const run = await verdict(['validate', 'bad.yaml'], { cwd: dir });
      expect(run.code).toBe(1);
      expect(run.stdout.split('\n')).toEqual([
        expect.stringMatching(/^✗ bad\.yaml:8:\d+ \(Policy\/limits\) at \/spec\/parameterSelection\/0\/parameters\/limit: parameterSelection entry 0: merged parameters at \/limit must be a string \(got number 32\)$/),
        expect.stringMatching(/^✗ bad\.yaml:10:\d+ \(K8sMemoryLimit\/typo\) at \/kind: no PolicyTemplate defines kind "K8sMemoryLimit"/),
        '2 problems: the policies do not load (core)',
        '',
      ]);
    } finally {
      cleanup();
    }
  }, 60_000);

  it('lints seed 003\'s last example: the top-level NotIn excludes the teams its entries name', async () => {
    const run = await verdict(['validate', `${FIXTURES}/memory-template.yaml`, `${FIXTURES}/seed-003-unreachable.yaml`]);
    expect(run.code).toBe(1);
    expect(run.stdout.split('\n')).toEqual([
      '! packages/cli/test/fixtures/seed-003-unreachable.yaml:16:7 (K8sMemoryLimits/memory-limit-enforcement-64gteam) at /spec/parameterSelection/0/match: parameterSelection entry 0 can never be chosen: it requires namespaceSelector: field.cattle.io/projectId=32g-team, but spec.match excludes that (namespaceSelector: field.cattle.io/projectId notin (32g-team,64g-team,system)) [UNREACHABLE_ENTRY]',
      '! packages/cli/test/fixtures/seed-003-unreachable.yaml:22:7 (K8sMemoryLimits/memory-limit-enforcement-64gteam) at /spec/parameterSelection/1/match: parameterSelection entry 1 can never be chosen: it requires namespaceSelector: field.cattle.io/projectId=64g-team, but spec.match excludes that (namespaceSelector: field.cattle.io/projectId notin (32g-team,64g-team,system)) [UNREACHABLE_ENTRY]',
      '2 documents, 1 policy (kubernetes) load, with 2 lint findings',
      '',
    ]);
    const json = await verdict(['validate', `${FIXTURES}/memory-template.yaml`, `${FIXTURES}/seed-003-unreachable.yaml`, '-o', 'json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ valid: false, adapter: 'kubernetes', problems: [], lint: [{ code: 'UNREACHABLE_ENTRY', entry: 0 }, { code: 'UNREACHABLE_ENTRY', entry: 1 }] });
    expect((await verdict(['validate', '--no-lint', `${FIXTURES}/memory-template.yaml`, `${FIXTURES}/seed-003-unreachable.yaml`])).code).toBe(0);
  }, 90_000);

  it('exits 2 for a path that does not exist', async () => {
    expect(await verdict(['validate', 'nope.yaml'])).toMatchObject({ code: 2, stderr: 'verdict: no such policy file or directory: nope.yaml\n' });
  }, 60_000);
});
