import '@verdict/testing/vitest';
import { describe, expect, it } from 'vitest';
import { createEvaluator, detectAdapter, evaluateInput, formatCaseFailure, formatTrace, summaryLine } from '@verdict/testing';
import { ciJobFor } from '@verdict/testing/ci';
import { inline, parseInput } from '@verdict/testing/internal';
import { admissionReviewFor, namespaceLabelsOf } from '@verdict/testing/kubernetes';
import { fiatQueryFor } from '@verdict/testing/spinnaker';
import { checkAssertion } from '../src/checks.js';
import { decisionOutcome } from '../src/outcome.js';
import { diffLines } from '../src/report.js';
import { textMatches } from '../src/text.js';
import { describeSelection } from '../src/trace.js';
import { parsePolicyDocuments } from '@verdict/core';
import { MEMORY_POLICIES, memoryPolicies, pod } from './helpers.js';

describe('fixtures', () => {
  it('builds an AdmissionReview for a bare object and remembers its namespace labels for the webhook', async () => {
    const review = admissionReviewFor(pod('20Gi'), { operation: 'UPDATE', oldObject: pod('8Gi'), namespaceLabels: { team: 'big' }, userInfo: { username: 'alice' } });
    expect(review.request).toMatchObject({ operation: 'UPDATE', namespace: 'apps', name: 'web', userInfo: { username: 'alice' }, kind: { kind: 'Pod' } });
    expect(namespaceLabelsOf(review)).toEqual({ team: 'big' });
    expect(namespaceLabelsOf(admissionReviewFor(pod('1Gi')))).toBeUndefined();
    // The webhook sees the remembered labels: the big team's 32Gi applies.
    const outcome = await evaluateInput(MEMORY_POLICIES.replaceAll('/object/metadata', '/metadata'), review);
    expect(outcome).toBeAllowed();
    expect(outcome).toSelectParameters({ 'memory-limit-enforcement': { limit: '32Gi' } });
  });

  it('builds a CI job and a Fiat query in their wire formats', () => {
    const job = ciJobFor({ CI_PROJECT_PATH: 'acme/web', GITLAB_USER_ID: 7 }, ['docker'], { id: 42 });
    expect(job).toEqual({ id: 42, variables: { CI_PROJECT_PATH: 'acme/web', GITLAB_USER_ID: 7 }, tags: ['docker'] });
    // The variables are typed as given: a test reads one without a cast (a type error if it were a union with a list).
    const path: string = job.variables.CI_PROJECT_PATH;
    expect(path).toBe('acme/web');
    expect(ciJobFor({}).id).not.toBe(ciJobFor({}).id);
    expect(fiatQueryFor('ann', 'read', 'applications', 'shop')).toEqual({ user: 'ann', authorization: 'READ', resourceType: 'application', resourceName: 'shop' });
    expect(() => fiatQueryFor('ann', 'read', 'applications', '')).toThrowError('query.resourceName must be a non-empty string (got "")');
  });

  it('tells which adapter an input needs', () => {
    expect(detectAdapter(pod('1Gi'))).toBe('kubernetes');
    expect(detectAdapter(admissionReviewFor(pod('1Gi')))).toBe('kubernetes');
    expect(detectAdapter(ciJobFor({}))).toBe('ci');
    expect(detectAdapter([ciJobFor({})])).toBe('ci');
    expect(detectAdapter(fiatQueryFor('a', 'READ', 'application', 'x'))).toBe('spinnaker');
    expect(detectAdapter({ object: pod('1Gi'), namespaceLabels: {} })).toBe('core');
  });

  it('reuses compiled policies through createEvaluator', async () => {
    const evaluator = await createEvaluator('core', parsePolicyDocuments(MEMORY_POLICIES));
    expect(evaluator.adapter).toBe('core');
    expect(await evaluator.evaluate({ object: pod('20Gi', { team: 'a', owner: 'b' }), namespaceLabels: { team: 'big' } })).toBeAllowed();
  });

  it('parses one input document and refuses two', () => {
    expect(parseInput('{"a": 1}', 'x.json')).toEqual({ a: 1 });
    expect(() => parseInput('a: 1\n---\nb: 2\n', 'x.yaml')).toThrowError('input x.yaml must hold exactly one document (found 2)');
  });
});

describe('reports', () => {
  it('diffs lines with expected (-) before actual (+)', () => {
    expect(diffLines('a\nb\nc', 'a\nx\nc')).toEqual(['  a', '- b', '+ x', '  c']);
    expect(diffLines('', 'a')).toEqual(['- ', '+ a']);
  });

  it('writes the summary line CI systems read', () => {
    expect(summaryLine({ passed: 3, failed: 0, skipped: 0 })).toBe('3 passed, 0 failed');
    expect(summaryLine({ passed: 3, failed: 1, skipped: 2 })).toBe('3 passed, 1 failed, 2 skipped');
  });

  it('formats a failing case with its message, diff and trace, and an errored case with its error', () => {
    const outcome = decisionOutcome(memoryPolicies().evaluate({ object: pod('20Gi', { team: 'a', owner: 'b' }), namespaceLabels: { team: 'web' } }));
    const check = checkAssertion(outcome, { violations: 0 });
    expect(check.pass).toBe(false);
    const text = formatCaseFailure({ name: 'x', status: 'failed', checks: [check], durationMs: 1 });
    expect(text).toContain('expected 0 violations, but found 1; the denial messages were:');
    expect(text).toContain('- expected  + actual\n- violations: 0\n+ violations: 1');
    expect(text).toContain('trace:\n  K8sMemoryLimits/memory-limit-enforcement');
    expect(formatCaseFailure({ name: 'x', status: 'error', checks: [], error: 'cannot read input', durationMs: 0 })).toBe('cannot read input');
  });

  it('formats the trace of every policy with colour hooks', () => {
    const decision = memoryPolicies().evaluate({ object: pod('8Gi', { team: 'a', owner: 'b' }), namespaceLabels: { team: 'system' } }, { explain: true });
    const text = formatTrace(decision, { style: { dim: (s) => `<${s}>` } });
    expect(text).toContain('K8sMemoryLimits/memory-limit-enforcement <[deny]>: <not matched>: requires namespaceLabels: team!=system <(/spec/match/labels)>');
    expect(text).toContain('Policy/team-label <[warn]>: matched');
    expect(formatTrace([])).toBe('(no policies were evaluated)');
    expect(describeSelection({ behavior: 'MatchAny', matched: [{ index: 0 }, { index: 2, name: 'b' }], outcome: 'selected' }))
      .toBe('parameterSelection (MatchAny): entry 0, entry 2 "b" merged in this order');
  });

  it('counts gator-style assertions against messages with or without their [policy] prefix', () => {
    const outcome = { kind: 'decision' as const, allowed: false, denials: ['[p] container <a> bad', '[p] initContainer <b> bad'], warnings: [], answer: {} };
    expect(checkAssertion(outcome, { violations: 1, message: /^container/ }).pass).toBe(true);
    expect(checkAssertion(outcome, { violations: 'yes', message: /initContainer/ }).pass).toBe(true);
    expect(checkAssertion(outcome, { violations: 'no', message: /ephemeral/ }).pass).toBe(true);
    expect(checkAssertion(outcome, { violations: 2 }).pass).toBe(true);
    expect(checkAssertion(outcome, { violations: 'no' }).pass).toBe(false);
  });

  it('renders values on one line and matches text by substring or RegExp', () => {
    expect(inline({ limit: '16Gi', teams: ['a', 'b c'], on: 'yes', n: 1 })).toBe('{limit: 16Gi, teams: [a, b c], "on": "yes", n: 1}');
    expect(inline('x'.repeat(300), 10)).toBe('xxxxxxxxx…');
    expect(textMatches('memory 16Gi', '16Gi')).toBe(true);
    expect(textMatches('memory 16Gi', /^memory/)).toBe(true);
    expect(textMatches('memory 16Gi', '32Gi')).toBe(false);
  });
});
