/**
 * The job input has a known shape: a policy that reads a field the job input
 * does not have does not load (with a did-you-mean), and a negated match over
 * a missing value rejects the job instead of accepting it.
 */
import { describe, expect, it } from 'vitest';
import { PolicyLoadError, type Problem } from '@verdict/core';
import { createJobAdmission, JobAdmissionError, loadJobPolicies, type JobPayload } from '@verdict/ci';

const noLatest = (path: string, message = 'image {{job.image}} must be pinned') => `
apiVersion: verdict.dev/v1
kind: Policy
metadata: {name: no-latest}
spec:
  validate:
    - name: pinned
      rule: {"!": {glob: ['**/*:latest', {var: ${path}}]}}
      message: "${message}"
`;

function problems(text: string): readonly Problem[] {
  try {
    loadJobPolicies(text, { source: 'no-latest.yaml' });
  } catch (error) {
    if (error instanceof PolicyLoadError) return error.problems;
    throw error;
  }
  expect.fail('expected a PolicyLoadError');
}

describe('paths of the job input', () => {
  it('refuses a misspelt job field at load, where it is, with a did-you-mean', () => {
    expect(problems(noLatest('job.imag'))).toEqual([expect.objectContaining({
      code: 'UNKNOWN_INPUT_PATH', path: '/spec/validate/0/rule/!/glob/1/var', source: 'no-latest.yaml', line: 8,
      message: 'reads job.imag, but the CI job input has no "imag" under job; did you mean "image"? (it has: name, stage, image)',
    })]);
    expect(() => createJobAdmission({ chain: [{ level: 'instance', policies: noLatest('job.imag') }] })).toThrow(JobAdmissionError);
    expect(() => createJobAdmission({ chain: [{ level: 'instance', policies: noLatest('job.imag') }] })).toThrow(/instance:8:48 .*did you mean "image"/);
  });

  it('refuses misspelt top-level fields and message paths too', () => {
    expect(problems(noLatest('projct.path', 'image {{job.imgae}}')).map((p) => p.message.split(';')[0])).toEqual([
      'reads projct.path, but the CI job input has no "projct"',
      'reads job.imgae, but the CI job input has no "imgae" under job',
    ]);
  });

  it('refuses a misspelt field in a reason parameter, in spec.parameters and in an entry', () => {
    const text = [
      'apiVersion: verdict.dev/v1', 'kind: Policy', 'metadata: {name: zone}', 'spec:',
      '  parameters: {reason: "user {{user.logn}} is in zone A ({{parameters.zone}})", zone: a}',
      '  parameterSelection: [{match: {users: [bob]}, parameters: {reason: "{{variables.ANY}} {{jbo.name}}"}}]', '',
    ].join('\n');
    expect(problems(text).map((p) => [p.code, p.path, p.message.split(';')[0]])).toEqual([
      ['INVALID_PARAMETERS', '/spec/parameters/reason', 'parameter "reason" reads user.logn, but the CI job input has no "logn" under user'],
      ['INVALID_PARAMETERS', '/spec/parameterSelection/0/parameters/reason', 'parameter "reason" reads jbo.name, but the CI job input has no "jbo"'],
    ]);
    expect(problems(text)[0]!.message).toContain('did you mean "login"?');
  });

  it('accepts every derived field, any variable name and the controller', () => {
    for (const path of ['job.image', 'job.stage', 'project.groups', 'project.rootNamespace', 'user.email', 'ref', 'refProtected', 'pipelineSource', 'environment', 'variables.MY_OWN_VARIABLE', 'controller.dryRun', 'tags', 'untag', 'id']) {
      expect(() => loadJobPolicies(noLatest(path)), path).not.toThrow();
    }
  });

  it('rejects a :latest image and a job without an image, accepts a pinned one', () => {
    const { admit } = createJobAdmission({ chain: [{ level: 'instance', policies: noLatest('job.image') }] });
    const job = (image?: string) => ({ id: 1, variables: image === undefined ? {} : { CI_JOB_IMAGE: image }, tags: [] as string[] }) as JobPayload;
    expect(admit(job('registry.example.com/app:latest'))).toMatchObject({ admission: 'rejected', reason: 'image registry.example.com/app:latest must be pinned' });
    expect(admit(job('registry.example.com/app:1.4.2'))).toMatchObject({ admission: 'accepted' });
    expect(admit(job(undefined))).toMatchObject({ admission: 'rejected', reason: 'image <missing> must be pinned' });
  });
});
