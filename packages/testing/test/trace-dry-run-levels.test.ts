/**
 * A CI chain's dry-run levels in traces: every policy trace of a chain names
 * its level (`ciLevel: {level, name, dryRun}`, as the job's explanation names
 * its levels), and the text trace marks a dry-run level's policies in the
 * words of the job's reason (`dry run (acme): not enforced`), so a denial
 * there reads as reported, not enforced.
 */
import { describe, expect, it } from 'vitest';
import { evaluateInput, formatTrace } from '@verdict/testing';
import { ciJobFor } from '@verdict/testing/ci';
import { PROTECTED_DEPLOYS, tempTree } from './helpers.js';

const job = ciJobFor({ CI_ENVIRONMENT_NAME: 'production', CI_COMMIT_REF_PROTECTED: 'false' }, [], { id: 1 });

async function setup(dryRun: boolean) {
  const { dir, cleanup } = tempTree({ 'group.yaml': PROTECTED_DEPLOYS });
  try {
    return await evaluateInput([], job, { baseDir: dir, ci: { chain: [{ level: 'group', name: 'acme', dryRun, policies: ['group.yaml'] }] } });
  } finally {
    cleanup();
  }
}

describe("a CI chain's dry-run levels in traces", () => {
  it("marks a dry-run level's policy as not enforced, its denial still shown", async () => {
    const outcome = await setup(true);
    expect(outcome.allowed).toBe(true);
    const text = formatTrace(outcome.decision!);
    expect(text).toContain('Policy/protected-deploys [deny] [dry run (acme): not enforced]: matched');
    expect(text).toContain('✗ protected');
    expect(text).toContain('deploys must run on a protected ref');
    expect(outcome.decision!.trace[0]).toMatchObject({ ciLevel: { level: 'group', name: 'acme', dryRun: true } });
  });

  it('leaves an enforcing level unmarked, and names its level', async () => {
    const outcome = await setup(false);
    expect(outcome.allowed).toBe(false);
    const text = formatTrace(outcome.decision!);
    expect(text).toContain('Policy/protected-deploys [deny]: matched');
    expect(text).not.toContain('dry run');
    expect(outcome.decision!.trace[0]).toMatchObject({ ciLevel: { level: 'group', name: 'acme', dryRun: false } });
  });
});
