import { describe, expect, it } from 'vitest';
import { sideBySide, wrap } from '../src/commands/diff-format.js';
import { run } from './audit-helpers.js';

interface DiffJson {
  summary: { objects: number; changed: number };
  changes: Array<{
    file: string; line: number; name: string; change: string;
    base: { allowed: boolean }; head: { allowed: boolean };
    added: Array<{ policy: string; status: string; messages: string[] }>; removed: Array<{ policy: string; status: string }>;
    trace: { base: Array<{ policy: string; parameters?: unknown }>; head: Array<{ policy: string; parameters?: unknown }> };
  }>;
}

const diff = async (args: readonly string[], options: Parameters<typeof run>[1] = {}) => {
  const r = await run(['diff', ...args], options);
  return { ...r, json: () => JSON.parse(r.stdout) as DiffJson };
};

describe('verdict diff', () => {
  async function setup() {
    const r = await diff(['--base', 'policies', '--head', 'policies-v2', 'manifests/apps', 'manifests/cluster', '-o', 'json']);
    return { r, report: r.json() };
  }

  it('lists the objects whose decision or findings change, and exits 1', async () => {
    const { r, report } = await setup();
    expect(r.code).toBe(1);
    expect(report.summary).toEqual({ objects: 6, changed: 4, problems: 0 });
    expect(report.changes.map((c) => [c.file, c.line, c.name, c.change])).toEqual([
      ['manifests/apps/nested/deep/pod.yml', 1, 'debug', 'newly-denied'],
      ['manifests/apps/web.yaml', 2, 'web', 'newly-denied'],
      ['manifests/apps/web.yaml', 13, 'api', 'findings'],
      ['manifests/cluster/dump.yaml', 9, 'cart', 'findings'],
    ]);
  });

  it('says which findings appear and disappear, with the traces of the policies that changed', async () => {
    const { report } = await setup();
    const debug = report.changes[0]!;
    expect(debug.added.map((a) => [a.policy, a.status, a.messages[0]])).toEqual([
      ['must-have-owner', 'fail', 'missing label "team"'],
      ['no-latest-tag', 'fail', 'container shell uses busybox:latest'],
    ]);
    expect(debug.removed.map((a) => [a.policy, a.status])).toEqual([['no-latest-tag', 'warn']]);
    const web = report.changes[1]!;
    expect(web.trace.base.map((t) => [t.policy, t.parameters])).toEqual([['must-have-owner', { labels: ['owner'] }]]);
    expect(web.trace.head.map((t) => [t.policy, t.parameters])).toEqual([['must-have-owner', { labels: ['owner', 'team'] }]]);
  });

  it('prints the two traces side by side in the table', async () => {
    const r = await diff(['--base', 'policies', '--head', 'policies-v2', 'manifests/apps/web.yaml', '-o', 'table']);
    expect(r.stdout).toContain('manifests/apps/web.yaml:2  Deployment shop/web  allowed → denied\n  + fail [must-have-owner] missing label "team"\n');
    expect(r.stdout).toMatch(/ {6}parameters: \{labels: \[owner\]\} +│ {3}parameters: \{labels: \[owner, team\]\}/);
    expect(r.stdout.trimEnd().split('\n').at(-1)).toBe('2 objects: 1 change decision (1 newly denied, 0 newly allowed), 1 change findings only, 0 unchanged');
  });

  it('exits 0 when nothing changes, and 2 without --base or with policies that do not load', async () => {
    const same = await diff(['--base', 'policies', '--head', 'policies', 'manifests', '-o', 'table']);
    expect(same.code).toBe(0);
    expect(same.stdout).toContain('0 change decision (0 newly denied, 0 newly allowed), 0 change findings only, 10 unchanged');
    expect(same.stderr).toContain('manifests/broken/bad.yaml:10: unreadable manifest, not compared');
    expect((await diff(['--head', 'policies', 'manifests'])).stderr).toBe('verdict: verdict diff needs --base <policies>; see verdict diff --help\n');
    expect((await diff(['--base', 'policies', '--head', 'manifests/apps', 'manifests'])).code).toBe(2);
  });
});

describe('side-by-side columns', () => {
  it('wraps long lines at spaces, keeping the indentation, and pads the left column', () => {
    expect(wrap('  one two three four', 14)).toEqual(['  one two', '  three four']);
    expect(wrap('abcdefghijkl', 5)).toEqual(['abcde', 'fghij', 'kl']);
    const half = 21; // (45 - 3) / 2
    expect(sideBySide('a\nb', 'c', 45, ['base', 'head']).split('\n')).toEqual([`${'base'.padEnd(half)} │ head`, `${'a'.padEnd(half)} │ c`, `${'b'.padEnd(half)} │`]);
  });
});
