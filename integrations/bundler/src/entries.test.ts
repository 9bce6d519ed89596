// Every entry point under bundler resolution (the `import` conditions and .d.ts files), and the matchers' types.
import '@verdict/testing/vitest';
import { describe, expect, it } from 'vitest';
import { compileCel } from '@verdict/cel';
import { buildCel } from '@verdict/cel/internal';
import { EXIT } from '@verdict/cli';
import { createJobAdmission, type JobPayload } from '@verdict/ci';
import { compilePolicies, parsePolicyDocuments, type Decision } from '@verdict/core';
import policySchema from '@verdict/core/schema/policy.schema.json';
import { createAdmissionWebhook } from '@verdict/kubernetes';
import { createPermissionEvaluator, type FiatQuery } from '@verdict/spinnaker';
import { resourceInput } from '@verdict/spinnaker/internal';
import { createRedisPermissionSource, type RedisClientLike } from '@verdict/spinnaker/redis';
import { evaluateInput, verdictMatchers } from '@verdict/testing';
import { ciJobFor } from '@verdict/testing/ci';
import { inline } from '@verdict/testing/internal';
import { admissionReviewFor } from '@verdict/testing/kubernetes';
import { fiatQueryFor } from '@verdict/testing/spinnaker';
import suiteSchema from '@verdict/testing/schema/suite.schema.json';

const LIMIT = `
apiVersion: verdict.dev/v1
kind: Policy
metadata: {name: limit}
spec:
  validate: [{name: r, rule: {"<=": [{quantity: {var: object.memory}}, {quantity: "1Gi"}]}, message: too big}]
`;

describe('a bundler-resolution project', () => {
  it('types and runs every entry point', async () => {
    const decision: Decision = compilePolicies(parsePolicyDocuments(LIMIT)).evaluate({ object: { memory: '2Gi' } });
    expect(decision).toBeDenied('too big');
    expect(decision).not.toBeAllowed();
    expect(compileCel('object.memory == "2Gi"').evaluate({ object: { memory: '2Gi' } })).toBe(true);
    expect(typeof buildCel).toBe('function');
    const webhook = createAdmissionWebhook({ policies: LIMIT.replace('object.memory', 'object.metadata.annotations.memory') });
    const review = admissionReviewFor({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', annotations: { memory: '2Gi' } } });
    expect(await webhook.review(review)).toBeDenied(/too big/);
    const job: JobPayload = ciJobFor({ A: '1' }, ['docker']);
    expect(createJobAdmission({ chain: [{ level: 'instance', policies: [] }] }).admit(job)).toBeAllowed();
    const query: FiatQuery = fiatQueryFor('ann', 'read', 'application', 'shop');
    expect(createPermissionEvaluator({ definitions: {} }).check(query)).toBeDenied();
    const client: RedisClientLike | undefined = undefined;
    expect(() => createRedisPermissionSource(client ? { client } : {})).toThrow(/needs exactly one of client/);
    expect(await evaluateInput(LIMIT, { object: { memory: '1Mi' } })).toBeAllowed();
    expect(Object.keys(verdictMatchers)).toContain('toBeDenied');
    expect(inline({ a: 1 })).toBe('{a: 1}');
    expect(typeof resourceInput).toBe('function');
    expect(policySchema.$id).toMatch(/policy/);
    expect(suiteSchema.$id).toMatch(/suite/);
    expect(EXIT.OK).toBe(0);
  });
});
