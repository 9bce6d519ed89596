import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadScenario, main, runScenario, SCENARIOS } from '../src/index.js';

describe('the scenario folders', () => {
  it.each(SCENARIOS.map((name) => [name]))('%s: every request gets exactly its expected response', (name) => {
    const exchanges = runScenario(name);
    expect(exchanges.length).toBeGreaterThan(0);
    for (const { actual, expected } of exchanges) expect(actual).toEqual(expected);
  });
});

describe('scenario 1: allow-list by project', () => {
  it('rejects projects off the list with a reason and never touches tags or runners', () => {
    const [exchange] = runScenario('1-allow-list');
    const rejected = exchange!.actual.filter((r) => r.admission === 'rejected');
    expect(rejected.map((r) => r.id)).toEqual([666]);
    expect(rejected[0]!.reason).toContain('you have no power here');
    expect(exchange!.actual.every((r) => r.tags === undefined && r.runners === undefined)).toBe(true);
  });
});

describe('scenario 2: retag by user', () => {
  it('adds zone_a for users of zone A, by login or by user id', () => {
    const { admission } = loadScenario('2-retag-by-user');
    const byId = admission.admit({ id: 1, variables: { GITLAB_USER_ID: 98123 }, tags: ['docker'] });
    expect(byId.tags).toEqual({ add: ['zone_a'], remove: [] });
    const explained = admission.explain({ id: 2, variables: { GITLAB_USER_LOGIN: 'bob' }, tags: ['zone_b', 'docker'] });
    expect(explained.tags).toEqual(['docker', 'zone_a']);
    expect(explained.levels[0]!.decision.trace[0]!.selection?.matched).toEqual([{ index: 0, name: 'zone-a' }]);
  });
});

describe('scenario 3: runner pools by user access', () => {
  it('rejects a user who may use no runner and keeps the job\'s tags', () => {
    const { admission } = loadScenario('3-runner-pools');
    const result = admission.explain({ id: 9, variables: { GITLAB_USER_LOGIN: 'stranger' }, tags: ['docker'] });
    expect(result.response.admission).toBe('rejected');
    expect(result.response.reason).toMatch(/no runner is left for this job/);
    expect(result.tags).toEqual(['docker']);
  });
});

describe('the design\'s example payloads', () => {
  it('answer job 245 through both levels: the instance level sees the group level\'s retag', () => {
    const { admission } = loadScenario('example-payloads');
    const [result] = admission.explain([{ id: 245, variables: { CI_PROJECT_ID: 245, GITLAB_USER_ID: 98123 }, tags: ['linux', 'eu-west'] }]);
    expect(result!.levels.map((l) => [l.name, l.input.tags])).toEqual([
      ['region-routing', ['linux', 'eu-west']],
      ['gitlab.example.com', ['linux', 'us-west']],
    ]);
  });

  it('rejects a US job when the user has no uid on any us-west runner', () => {
    const { admission } = loadScenario('example-payloads');
    expect(admission.admit({ id: 7, variables: { CI_PROJECT_ID: 245, GITLAB_USER_ID: 1 }, tags: ['us-west'] })).toEqual({
      id: 7, admission: 'rejected',
      reason: 'user 1 has no uid on any us-west runner; no runner is left for this job (2 runners in the inventory): policy "uid-runners" (gitlab.example.com) accepts no runner',
    });
  });
});

describe('the example program', () => {
  it('prints every answer and reports no difference', () => {
    const lines: string[] = [];
    expect(main((line) => lines.push(line))).toBe(0);
    expect(lines.filter((l) => l.startsWith('ok'))).toHaveLength(14);
  });

  it('runs as `pnpm start` does and exits 0', async () => {
    const tsx = createRequire(import.meta.url).resolve('tsx/cli');
    const entry = fileURLToPath(new URL('../src/index.ts', import.meta.url));
    const { code, stdout } = await new Promise<{ code: number; stdout: string }>((done) => {
      execFile(process.execPath, [tsx, '--conditions=@verdict/source', entry], (error, out) => done({ code: error ? Number(error.code ?? 1) : 0, stdout: out }));
    });
    expect(code).toBe(0);
    expect(stdout).toContain('ok   request-245.json {"id":245,"admission":"accepted"');
    expect(stdout).not.toContain('DIFF');
  });
});
