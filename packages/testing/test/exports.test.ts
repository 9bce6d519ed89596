import { describe, expect, it } from 'vitest';
import * as testing from '@verdict/testing';
import * as ci from '@verdict/testing/ci';
import * as internal from '@verdict/testing/internal';
import * as kubernetes from '@verdict/testing/kubernetes';
import * as spinnaker from '@verdict/testing/spinnaker';
import { SuiteError, toOutcome, verdictMatchers } from '@verdict/testing';
import { displayPath, findPolicyFiles, parseSuites, readInputFile, readPolicyFiles, runSuite } from '@verdict/testing/internal';
import suiteSchema from '../schema/suite.schema.json';
import { checkReason, checkStatus, relevantTrace } from '../src/checks.js';
import { checkRunners, checkTags } from '../src/checks-data.js';
import { formatSuiteProblem } from '../src/errors.js';
import { failureText } from '../src/matchers.js';
import { isDecision } from '../src/outcome.js';
import { formatCheckFailure, formatDiff } from '../src/report.js';
import { formatPolicyTrace } from '../src/trace.js';
import { memoryPolicies, MEMORY_POLICIES, pod, tempTree } from './helpers.js';

describe('the public surface of @verdict/testing', () => {
  it('exports exactly these runtime values from each entry point', () => {
    expect(Object.keys(testing).sort()).toEqual([
      'SuiteError', 'checkAllowed', 'checkDenied', 'checkParameters', 'checkPatch', 'checkWarnings', 'createEvaluator', 'detectAdapter', 'evaluateInput',
      'formatCaseFailure', 'formatTrace', 'runSuites', 'summaryLine', 'toJUnitXml', 'toOutcome', 'verdictMatchers',
    ]);
    expect(Object.keys(kubernetes).sort()).toEqual(['admissionReviewFor', 'loadGatorSuite', 'loadKyvernoTest', 'namespaceLabelsOf', 'parseGatorSuite', 'parseKyvernoTest', 'runGatorSuite', 'runKyvernoTest']);
    expect(Object.keys(ci)).toEqual(['ciJobFor']);
    expect(Object.keys(spinnaker)).toEqual(['fiatQueryFor']);
    expect(Object.keys(internal).sort()).toEqual([
      'checkExpectations', 'displayPath', 'escapeXml', 'findPolicyFiles', 'inline', 'isMissing', 'loadSuiteFile', 'parseInput', 'parseSuites', 'readInputFile', 'readPolicyFiles', 'runSuite', 'traceInWords', 'unboundAdmissionPolicies',
    ]);
  });

  it('registers exactly the six matchers', () => {
    expect(Object.keys(verdictMatchers).sort()).toEqual(['toBeAllowed', 'toBeDenied', 'toPatch', 'toPatchResource', 'toSelectParameters', 'toWarn']);
    expect(isDecision(memoryPolicies().evaluate({}))).toBe(true);
    expect(isDecision({ allowed: true })).toBe(false);
  });
});

describe('checks on adapter fields', () => {
  it('check a status code, a reason, CI tags and runners regardless of order', () => {
    const admission = toOutcome({ kind: 'AdmissionReview', response: { uid: 'u', allowed: false, status: { code: 403, message: '[p] no' } } });
    expect(checkStatus(admission, 403).pass).toBe(true);
    expect(checkStatus(admission, 500).message).toBe('expected status code 500, but it was 403');
    const job = toOutcome({ id: 1, admission: 'accepted', reason: 'retagged', tags: { add: ['a', 'b'], remove: [] }, runners: { accepted_ids: ['1'], rejected_ids: ['2', '3'] } });
    expect(checkReason(job, 'retag').pass).toBe(true);
    expect(checkReason(job, /^x/).message).toBe('expected the reason to match /^x/, but it was "retagged"');
    expect(checkTags(job, { add: ['b', 'a'] }).pass).toBe(true);
    expect(checkTags(job, { remove: ['a'] }).message).toBe('expected tags {remove: [a]}, but the job response has {add: [a, b], remove: []}');
    expect(checkRunners(job, { rejected_ids: ['3', '2'] }).pass).toBe(true);
    expect(checkRunners(job, { accepted_ids: ['2'] }).pass).toBe(false);
  });

  it('format a failure with its diff and trace, for matchers and reports', () => {
    const outcome = toOutcome(memoryPolicies().evaluate({ object: pod('20Gi', { team: 'a', owner: 'b' }), namespaceLabels: { team: 'web' } }));
    const check = testing.checkAllowed(outcome, true);
    expect(failureText(check, false)).toMatch(/^expected the decision to be allowed, but it was denied:\n.*\n\ntrace:\n {2}K8sMemoryLimits/);
    expect(failureText(check, true)).toMatch(/^expected the decision not to be allowed, but it was allowed\n\ntrace:\n/);
    expect(formatDiff(check)).toBe('- allowed: true\n+ allowed: false\n+ denials:\n+   - "[memory-limit-enforcement] container app memory limit 20Gi must be at most 16Gi"');
    expect(formatCheckFailure(check)).toContain('- expected  + actual');
    expect(relevantTrace(outcome, ['team-label'])).toBe('Policy/team-label [warn]: matched\n  parameters: {}\n  ✓ has-team');
    expect(formatPolicyTrace(outcome.decision!.trace[1]!)[0]).toBe('K8sMemoryLimits/memory-limit-enforcement [deny]: matched');
  });
});

describe('files and suites', () => {
  it('read policy directories (suites excluded), inputs, and paths for display', () => {
    const { dir, cleanup } = tempTree({ 'p/a.yaml': MEMORY_POLICIES, 'p/s.verdict.yaml': 'x', 'in.json': '{"a": 1}' });
    try {
      expect(findPolicyFiles(['p'], { cwd: dir }).map((f) => displayPath(f, dir))).toEqual(['p/a.yaml']);
      expect(readPolicyFiles(['p'], { cwd: dir })).toHaveLength(4);
      expect(readInputFile(`${dir}/in.json`)).toEqual({ a: 1 });
      expect(() => readInputFile(`${dir}/none.json`, 'none.json')).toThrowError('cannot read input none.json: ENOENT');
      expect(displayPath('/elsewhere/x', dir)).toBe('/elsewhere/x');
    } finally {
      cleanup();
    }
  });

  it('parse suite text, run one suite, and ship the JSON Schema', async () => {
    const [suite] = parseSuites('apiVersion: verdict.dev/v1\nkind: Suite\ncases: [{name: a, input: {size: 1}, expect: {allowed: true}}]\n', { file: 'x.verdict.yaml', dir: '/' });
    const result = await runSuite(suite!);
    expect(result).toMatchObject({ status: 'passed', cases: [{ name: 'a', status: 'passed', adapter: 'core' }] });
    expect(suiteSchema.$id).toBe('https://verdict.dev/schema/suite.schema.json');
    const error = SuiteError.invalid([{ file: 'x.verdict.yaml', path: '/cases', message: 'must not be an empty list', line: 3, column: 1 }]);
    expect(error).toMatchObject({ code: 'SUITE_INVALID', path: '/cases', message: 'x.verdict.yaml:3:1 at /cases: must not be an empty list' });
    expect(formatSuiteProblem({ file: 'f', path: '', message: 'm' })).toBe('f: m');
  });
});
