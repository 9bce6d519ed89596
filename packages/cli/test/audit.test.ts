import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { run, UNIQUE_INGRESS_HOST, UNIQUE_SERVICE_SELECTOR, type JsonReport } from './audit-helpers.js';
import { ROOT, tempTree } from './helpers.js';

const audit = async (args: readonly string[], options: Parameters<typeof run>[1] = {}) => {
  const r = await run(['audit', ...args], options);
  return { ...r, json: () => JSON.parse(r.stdout) as JsonReport };
};

describe('verdict audit over a folder of manifests', () => {
  async function setup() {
    const r = await audit(['-p', 'policies', 'manifests', '-o', 'json']);
    const report = r.json();
    const at = (name: string) => report.objects.find((o) => o.name === name)!;
    return { r, report, at };
  }

  it('reads nested folders, YAML documents, List items and JSON, and ignores other files', async () => {
    const { report } = await setup();
    expect(report.summary.files).toBe(6);
    expect(report.objects.map((o) => `${o.file}:${o.line} ${o.kind} ${o.name}`)).toEqual([
      'manifests/apps/nested/deep/pod.yml:1 Pod debug',
      'manifests/apps/web.yaml:2 Deployment web',
      'manifests/apps/web.yaml:13 Deployment api',
      'manifests/broken/bad.yaml:1 Pod before-the-break',
      'manifests/broken/bad.yaml:12 Pod after-the-break',
      'manifests/cluster/dump.yaml:4 Namespace shop',
      'manifests/cluster/dump.yaml:9 Pod cart',
      'manifests/cluster/dump.yaml:16 ClusterRole viewer',
      'manifests/data/pods.json:5 Pod json-ok',
      'manifests/data/pods.json:11 Pod json-bad',
      'manifests/kustomization.yaml:1 Kustomization ',
    ]);
  });

  it('decides each object as a CREATE with the Kubernetes adapter and reports every rule that applied', async () => {
    const { at } = await setup();
    expect(at('api')).toMatchObject({ allowed: false, namespace: 'shop', results: [{ policy: 'must-have-owner', rule: 'has-labels', status: 'fail', messages: ['missing label "owner"'] }] });
    expect(at('web')).toMatchObject({ allowed: true, results: [{ policy: 'must-have-owner', status: 'pass', messages: [] }] });
    expect(at('debug')).toMatchObject({ allowed: true, namespace: 'default' });
    expect(at('debug').results.map((r) => [r.policy, r.status])).toEqual([['must-have-owner', 'pass'], ['no-latest-tag', 'warn']]);
    expect(at('viewer').results).toEqual([]);
  });

  it('reports a manifest that does not parse with its file and line, and decides the documents around it', async () => {
    const { report, at } = await setup();
    expect(report.problems).toEqual([{ file: 'manifests/broken/bad.yaml', line: 10, column: 3, message: expect.stringContaining('Flow sequence') as string }]);
    expect(at('before-the-break').allowed).toBe(true);
    expect(at('after-the-break').allowed).toBe(false);
  });

  it('skips documents that are not inputs of the policies\' adapter, saying why', async () => {
    const { report } = await setup();
    expect(report.objects.at(-1)).toMatchObject({ file: 'manifests/kustomization.yaml', skipped: 'not a Kubernetes object (the policies are for kubernetes)' });
    expect(report.summary).toMatchObject({ objects: 10, denied: 4, warned: 1, skipped: 1, problems: 1 });
  });

  it('exits 1 when an object is denied or a manifest does not parse, 0 otherwise', async () => {
    const { r } = await setup();
    expect(r.code).toBe(1);
    expect((await audit(['-p', 'policies', 'manifests/apps/nested', '-o', 'json'])).code).toBe(0);
    expect((await audit(['-p', 'policies', 'manifests/apps/nested', '-o', 'json', '--fail-on', 'warn'])).code).toBe(1);
    expect((await audit(['-p', 'policies', 'manifests/broken/bad.yaml', '-o', 'json'])).code).toBe(1);
  });
});

describe('verdict audit input and usage', () => {
  it('reads manifests from standard input with -', async () => {
    const stdin = 'apiVersion: v1\nkind: Pod\nmetadata: {name: a, namespace: x}\n---\n# second\napiVersion: v1\nkind: Pod\nmetadata: {name: b, namespace: x, labels: {owner: me}}\n';
    const r = await audit(['-p', 'policies', '-', '-o', 'json'], { stdin });
    expect(r.json().objects.map((o) => [o.file, o.line, o.name, o.allowed])).toEqual([['(stdin)', 1, 'a', false], ['(stdin)', 6, 'b', true]]);
    expect(r.code).toBe(1);
  });

  it('gives namespaced objects without a namespace the one of --namespace', async () => {
    const r = await audit(['-p', 'policies', 'manifests/apps/nested', '-o', 'json', '-n', 'tools']);
    expect(r.json().objects[0]).toMatchObject({ name: 'debug', namespace: 'tools' });
  });

  it('prints a table on a terminal and JSON when piped', async () => {
    const tty = await audit(['-p', 'policies', 'manifests/apps'], { tty: true });
    expect(tty.stdout).toContain('\u001b[1mmanifests/apps/web.yaml:13\u001b[22m  Deployment shop/api  \u001b[31mdenied\u001b[39m');
    const piped = await audit(['-p', 'policies', 'manifests/apps']);
    expect(JSON.parse(piped.stdout)).toHaveProperty('summary.denied', 1);
  });

  it('refuses missing paths, unknown formats and policies that do not load with exit code 2', async () => {
    const missing = await audit(['-p', 'policies', 'nowhere']);
    expect(missing).toMatchObject({ code: 2, stderr: 'verdict: no such file or directory: nowhere; see verdict audit --help\n' });
    expect((await audit(['-p', 'policies'])).stderr).toContain('verdict audit needs manifests');
    expect((await audit(['-p', 'policies', 'manifests', '-o', 'xml'])).stderr).toContain('--output must be one of table, json, sarif, policyreport, junit');
    const { dir, cleanup } = tempTree({ 'bad.yaml': 'apiVersion: verdict.dev/v1\nkind: Policy\nmetadata: {name: x}\nspec: {validate: [{name: r, rule: {nope: 1}, message: m}]}\n' });
    try {
      const bad = await audit(['-p', join(dir, 'bad.yaml'), 'manifests']);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/unknown operation "nope"/);
    } finally {
      cleanup();
    }
  });

  it('prints the time of each phase on stderr with --stats', async () => {
    const r = await audit(['-p', 'policies', 'manifests/apps', '-o', 'json', '--stats']);
    const line = /^verdict audit stats: (\{.*\})\n$/.exec(r.stderr);
    expect(line).not.toBeNull();
    const stats = JSON.parse(line![1]!) as Record<string, number>;
    expect(Object.keys(stats)).toEqual(['files', 'objects', 'skipped', 'loadMs', 'readMs', 'decideMs', 'writeMs', 'objectsPerSecond']);
    expect(stats).toMatchObject({ files: 2, objects: 3 });
    expect((await audit(['-p', 'policies', 'manifests/apps', '-o', 'json'])).stderr).toBe('');
  });

  it('does not audit the policy files when they sit in the audited folder', async () => {
    const r = await audit(['-p', 'policies', '.', '-o', 'json']);
    expect(r.json().objects.some((o) => o.file.startsWith('policies/'))).toBe(false);
  });

  it('refuses a document larger than --max-document-size, with its line', async () => {
    const r = await audit(['-p', 'policies', 'manifests/apps/web.yaml', '-o', 'json', '--max-document-size', '100']);
    expect(r.json().problems).toEqual([
      { file: 'manifests/apps/web.yaml', line: 2, message: 'the document is 182 bytes, over the limit of 100 (raise it with --max-document-size)' },
      { file: 'manifests/apps/web.yaml', line: 13, message: 'the document is 155 bytes, over the limit of 100 (raise it with --max-document-size)' },
    ]);
    expect(r.json().objects).toEqual([]);
    expect((await audit(['-p', 'policies', 'manifests', '--max-document-size', 'lots'])).stderr).toContain('--max-document-size must be a positive size');
  });
});

describe('verdict audit with other adapters', () => {
  it('decides CI jobs with the CI adapter', async () => {
    const jobs = '{id: 1, variables: {CI_PROJECT_PATH: acme/payments/a, CI_PROJECT_ID: 1}, tags: [secure-runner]}\n---\n{id: 2, variables: {CI_PROJECT_PATH: mallory/x, CI_PROJECT_ID: 2}, tags: [secure-runner]}\n';
    const r = await audit(['-p', join(ROOT, 'examples/ci/scenarios/1-allow-list/allow-list.yaml'), '-', '-o', 'json'], { stdin: jobs });
    expect(r.json().objects.map((o) => [o.kind, o.name, o.allowed])).toEqual([['Job', '1', true], ['Job', '2', false]]);
    expect(r.json().objects[1]!.results[0]!.messages).toEqual(['project mallory/x may not use the secure runners: you have no power here']);
  });
});

describe('verdict audit inventory', () => {
  function setup() {
    const ingress = (name: string, namespace: string, host: string) => `apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: ${name}, namespace: ${namespace}}\nspec: {rules: [{host: ${host}}]}\n`;
    return tempTree({
      'a/ingress.yaml': ingress('shop', 'web', 'shop.example.com'),
      'b/ingress.yaml': `${ingress('shop-copy', 'other', 'shop.example.com')}---\n${ingress('blog', 'web', 'blog.example.com')}`,
      'services.yaml': 'apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Service, metadata: {name: a, namespace: x}, spec: {selector: {app: a}}}\n- {apiVersion: v1, kind: Service, metadata: {name: b, namespace: x}, spec: {selector: {app: a}}}\n- {apiVersion: v1, kind: Service, metadata: {name: c, namespace: x}, spec: {selector: {app: c}}}\n',
    });
  }

  it('lets uniqueingresshost see every audited Ingress, and never the object itself', async () => {
    const { dir, cleanup } = setup();
    try {
      const r = await audit(['-p', UNIQUE_INGRESS_HOST, '.', '-o', 'json'], { cwd: dir });
      const denied = r.json().objects.filter((o) => o.kind === 'Ingress').map((o) => [o.name, o.allowed, o.results.flatMap((x) => x.messages)]);
      expect(denied).toEqual([
        ['shop', false, ['ingress host conflicts with an existing ingress <shop.example.com>']],
        ['shop-copy', false, ['ingress host conflicts with an existing ingress <shop.example.com>']],
        ['blog', true, []],
      ]);
    } finally {
      cleanup();
    }
  });

  it('lets uniqueserviceselector compare the items of a List', async () => {
    const { dir, cleanup } = setup();
    try {
      const r = await audit(['-p', UNIQUE_SERVICE_SELECTOR, 'services.yaml', '-o', 'json'], { cwd: dir });
      expect(r.json().objects.map((o) => [o.name, o.results.flatMap((x) => x.messages)])).toEqual([
        ['a', ['same selector as service <b> in namespace <x>']],
        ['b', ['same selector as service <a> in namespace <x>']],
        ['c', []],
      ]);
    } finally {
      cleanup();
    }
  });

  it('gives objects the labels of the audited Namespaces', async () => {
    const policy = 'apiVersion: verdict.dev/v1\nkind: Policy\nmetadata: {name: prod-pods-pinned}\nspec:\n  match: {kinds: [{apiGroups: [""], kinds: [Pod]}], namespaceSelector: {matchLabels: {env: prod}}}\n  validate: [{name: pinned, rule: {"!": {var: object.spec.latest}}, message: no latest in prod}]\n';
    const { dir, cleanup } = tempTree({
      'policy.yaml': policy,
      'm.yaml': 'apiVersion: v1\nkind: Namespace\nmetadata: {name: prod, labels: {env: prod}}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: prod}\nspec: {latest: true}\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: dev}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: d, namespace: dev}\nspec: {latest: true}\n',
    });
    try {
      const r = await audit(['-p', 'policy.yaml', 'm.yaml', '-o', 'json'], { cwd: dir });
      expect(r.json().objects.filter((o) => o.kind === 'Pod').map((o) => [o.name, o.allowed])).toEqual([['p', false], ['d', true]]);
    } finally {
      cleanup();
    }
  });
});
