import { describe, expectTypeOf, it } from 'vitest';
import type { PolicySet, VerdictError } from '@verdict/core';
import {
  createJobAdmission, jobFor, loadJobPolicies, type AdmissionResponse, type JobAdmissionError, type JobAdmissionErrorCode, type JobExplanation,
  type JobId, type JobInput, type JobPayload,
} from '@verdict/ci';

describe('public types of @verdict/ci', () => {
  const { admit, explain } = createJobAdmission({ chain: [] });
  const job: JobPayload = { id: 1, variables: { CI_PROJECT_ID: 1 }, tags: ['docker'] };

  it('admit answers a list with a list, one job with one response, text with either', () => {
    expectTypeOf(admit([job])).toEqualTypeOf<AdmissionResponse[]>();
    expectTypeOf(admit(job)).toEqualTypeOf<AdmissionResponse>();
    expectTypeOf(admit('[]')).toEqualTypeOf<AdmissionResponse | AdmissionResponse[]>();
    expectTypeOf(explain(job)).toEqualTypeOf<JobExplanation>();
    expectTypeOf(explain([job])).toEqualTypeOf<JobExplanation[]>();
  });

  it('a response has the proposal\'s fields', () => {
    expectTypeOf<AdmissionResponse['admission']>().toEqualTypeOf<'accepted' | 'rejected'>();
    expectTypeOf<AdmissionResponse['id']>().toEqualTypeOf<JobId | null>();
    expectTypeOf<NonNullable<AdmissionResponse['runners']>>().toEqualTypeOf<{ accepted_ids: string[]; rejected_ids: string[] }>();
    expectTypeOf<NonNullable<AdmissionResponse['tags']>>().toEqualTypeOf<{ add: string[]; remove: string[] }>();
  });

  it('chain levels are project, group or instance', () => {
    // @ts-expect-error: not a level
    createJobAdmission({ chain: [{ level: 'namespace', policies: '' }] });
    expectTypeOf(loadJobPolicies).returns.toEqualTypeOf<PolicySet>();
  });

  it('jobFor builds the job input with string variables', () => {
    expectTypeOf(jobFor(job)).toEqualTypeOf<JobInput>();
    expectTypeOf<JobInput['variables']>().toEqualTypeOf<Record<string, string>>();
    expectTypeOf<JobInput['controller']['level']>().toEqualTypeOf<'project' | 'group' | 'instance'>();
  });

  it('JobAdmissionError is a VerdictError over its own codes', () => {
    expectTypeOf<JobAdmissionError>().toMatchTypeOf<VerdictError<JobAdmissionErrorCode>>();
    expectTypeOf<JobAdmissionError['code']>().toEqualTypeOf<JobAdmissionErrorCode>();
  });
});
