import { describe, expect, it } from 'vitest';
import { run } from '../src/index.js';

describe('ValidatingAdmissionPolicy example', () => {
  it('answers each Deployment as the API server and Gatekeeper would', async () => {
    const answers = await run();
    expect(answers.map(({ deployment, response }) => [deployment, response.allowed, response.status?.code])).toEqual([
      ['test/web', false, 422],
      ['prod/web', true, undefined],
      ['prod/web', true, undefined],
      ['team-a/api', false, 403],
    ]);
  });

  it('takes the test limit from the ParamCache, which wins over the document of the same name', async () => {
    const [test] = await run();
    expect(test!.response.status?.message).toBe("ValidatingAdmissionPolicy 'replicalimit-policy.example.com' with binding 'replicalimit-binding-test.example.com' denied request: object.spec.replicas must be no greater than 2");
  });

  it('warns and audits an image from another environment', async () => {
    const warned = (await run())[2]!.response;
    expect(warned.warnings).toEqual(["Validation failed for ValidatingAdmissionPolicy 'image-matches-namespace-environment.policy.example.com' with binding 'image-environment-warn': only prod images are allowed in namespace prod"]);
    expect(JSON.parse(warned.auditAnnotations?.['validation_failure'] ?? '[]')).toMatchObject([{ binding: 'image-environment-warn', expressionIndex: 0 }]);
    // <policy>_<key> is longer than an annotation key may be (63): shortened, with a hash.
    const environment = Object.entries(warned.auditAnnotations ?? {}).filter(([key]) => key.startsWith('image-matches-namespace-environment.policy.example.com-'));
    expect(environment.map(([, value]) => value)).toEqual(['prod']);
  });
});
