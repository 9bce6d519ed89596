import { describe, expect, it } from 'vitest';
import { VALIDATION_FAILURE_ANNOTATION } from '@verdict/kubernetes';
import { webhookFor } from './helpers.js';
import { binding, deployment, policy } from './vap-helpers.js';

const P = 'replicas.example.com';

function setup(spec: Record<string, unknown>, bindingSpec: Record<string, unknown> = {}, extra: unknown[] = []) {
  return webhookFor({ policies: [policy(P, spec), binding('b.example.com', P, bindingSpec), ...extra] as never, namespaceLabels: () => ({ env: 'test' }) });
}

const atMostFive = { validations: [{ expression: 'object.spec.replicas <= 5' }] };

describe('the answer of a ValidatingAdmissionPolicy', () => {
  it('denies with the API server message and code 422 (reason Invalid) when no reason is given', async () => {
    const { response } = await setup(atMostFive).run(deployment({ replicas: 6 }));
    expect(response.allowed).toBe(false);
    expect(response.status).toEqual({
      status: 'Failure', code: 422, reason: 'Invalid',
      message: `ValidatingAdmissionPolicy '${P}' with binding 'b.example.com' denied request: failed expression: object.spec.replicas <= 5`,
    });
  });

  it('admits what passes every validation', async () => {
    const { response } = await setup(atMostFive).run(deployment({ replicas: 5 }));
    expect(response).toEqual({ uid: response.uid, allowed: true });
  });

  it.each([['Forbidden', 403], ['Invalid', 422], ['RequestEntityTooLarge', 413], ['Unauthorized', 401]])('answers reason %s with code %i', async (reason, code) => {
    const { response } = await setup({ validations: [{ expression: 'false', reason }] }).run(deployment());
    expect(response.status).toMatchObject({ code, reason });
  });

  it('uses messageExpression, falling back to message when it fails, is blank or spans lines, then to the expression', async () => {
    const validations = [
      { expression: 'object.spec.replicas < 0', messageExpression: "'replicas is ' + string(object.spec.replicas)", message: 'static' },
    ];
    expect((await setup({ validations }).run(deployment({ replicas: 3 }))).response.status?.message).toMatch(/denied request: replicas is 3$/);
    const failing = [{ expression: 'false', messageExpression: 'object.spec.nope', message: 'static message' }];
    expect((await setup({ validations: failing }).run(deployment())).response.status?.message).toMatch(/denied request: static message$/);
    const multiLine = [{ expression: 'false', messageExpression: "'a\\nb'", message: 'one line' }];
    expect((await setup({ validations: multiLine }).run(deployment())).response.status?.message).toMatch(/denied request: one line$/);
    const blank = [{ expression: 'false', messageExpression: "'  '" }];
    expect((await setup({ validations: blank }).run(deployment())).response.status?.message).toMatch(/denied request: failed expression: false$/);
  });

  it('shows a static message as written, braces included (the API server expands nothing)', async () => {
    const { response } = await setup({ validations: [{ expression: 'false', message: '  use {{ replicas }} of at most 5  ' }] }).run(deployment());
    expect(response.status?.message).toMatch(/denied request: use \{\{ replicas \}\} of at most 5$/);
  });

  it('answers with the first failing validation, its message and its code', async () => {
    const validations = [{ expression: 'true' }, { expression: 'false', message: 'second', reason: 'Forbidden' }, { expression: 'false', message: 'third' }];
    const { response } = await setup({ validations }).run(deployment());
    expect(response.status).toMatchObject({ code: 403, message: `ValidatingAdmissionPolicy '${P}' with binding 'b.example.com' denied request: second` });
  });

  it('warns instead of denying for a Warn binding', async () => {
    const { response } = await setup(atMostFive, { validationActions: ['Warn'] }).run(deployment({ replicas: 9 }));
    expect(response.allowed).toBe(true);
    expect(response.warnings).toEqual([`Validation failed for ValidatingAdmissionPolicy '${P}' with binding 'b.example.com': failed expression: object.spec.replicas <= 5`]);
  });

  it('warns once, in the API server words, for an expression error under a Warn binding', async () => {
    const { response } = await setup({ validations: [{ expression: 'object.spec.missing > 1' }] }, { validationActions: ['Warn'] }).run(deployment());
    expect(response.allowed).toBe(true);
    expect(response.warnings).toHaveLength(1);
    expect(response.warnings?.[0]).toMatch(/^Validation failed for ValidatingAdmissionPolicy '.*' with binding 'b\.example\.com': expression 'object\.spec\.missing > 1' resulted in error: /);
  });

  it('records failures of an Audit binding in the validation_failure audit annotation, as a JSON list', async () => {
    const { response } = await setup({ validations: [{ expression: 'true' }, { expression: 'false', message: 'no' }] }, { validationActions: ['Warn', 'Audit'] }).run(deployment());
    expect(response.allowed).toBe(true);
    expect(response.warnings).toHaveLength(1);
    expect(JSON.parse(response.auditAnnotations?.[VALIDATION_FAILURE_ANNOTATION] ?? 'null')).toEqual([
      { message: 'no', policy: P, binding: 'b.example.com', expressionIndex: 1, validationActions: ['Warn', 'Audit'] },
    ]);
  });

  it('denies and audits for a Deny and Audit binding', async () => {
    const { response } = await setup(atMostFive, { validationActions: ['Deny', 'Audit'] }).run(deployment({ replicas: 9 }));
    expect(response.allowed).toBe(false);
    expect(response.auditAnnotations?.[VALIDATION_FAILURE_ANNOTATION]).toContain('"expressionIndex":0');
  });

  it('denies a run-time error under failurePolicy Fail with the API server message, and admits it under Ignore', async () => {
    const typo = { validations: [{ expression: 'object.replicas > 1', message: 'must be replicated', reason: 'Invalid' }] };
    const fail = await setup(typo).run(deployment());
    expect(fail.response.status?.code).toBe(422);
    expect(fail.response.status?.message).toMatch(new RegExp(`^ValidatingAdmissionPolicy '${P}' with binding 'b.example.com' denied request: expression 'object.replicas > 1' resulted in error: .*replicas`));
    const ignore = await setup({ ...typo, failurePolicy: 'Ignore' }).run(deployment());
    expect(ignore.response).toEqual({ uid: ignore.response.uid, allowed: true });
  });

  it('skips the policy when a match condition is false, and follows failurePolicy when one fails', async () => {
    const skip = await setup({ ...atMostFive, matchConditions: [{ name: 'big-only', expression: 'object.spec.replicas > 100' }] }).run(deployment({ replicas: 9 }));
    expect(skip.response.allowed).toBe(true);
    const broken = { ...atMostFive, matchConditions: [{ name: 'broken', expression: 'object.spec.nope == 1' }] };
    expect((await setup(broken).run(deployment({ replicas: 9 }))).response.allowed).toBe(false);
    expect((await setup({ ...broken, failurePolicy: 'Ignore' }).run(deployment({ replicas: 9 }))).response.allowed).toBe(true);
  });

  it('evaluates variables in order, each seeing the ones before it', async () => {
    const spec = {
      variables: [{ name: 'replicas', expression: 'object.spec.replicas' }, { name: 'limit', expression: 'variables.replicas > 3 ? 3 : 10' }],
      validations: [{ expression: 'variables.replicas <= variables.limit', messageExpression: "'at most ' + string(variables.limit)" }],
    };
    expect((await setup(spec).run(deployment({ replicas: 4 }))).response.status?.message).toMatch(/at most 3$/);
    expect((await setup(spec).run(deployment({ replicas: 2 }))).response.allowed).toBe(true);
  });

  it('publishes audit annotations as <policy>_<key>, leaving out null values', async () => {
    const spec = {
      validations: [{ expression: 'true' }],
      auditAnnotations: [
        { key: 'high-replica-count', valueExpression: "object.spec.replicas > 50 ? dyn('Deployment spec.replicas set to ' + string(object.spec.replicas)) : null" },
      ],
    };
    expect((await setup(spec).run(deployment({ replicas: 128 }))).response.auditAnnotations).toEqual({ [`${P}_high-replica-count`]: 'Deployment spec.replicas set to 128' });
    expect((await setup(spec).run(deployment({ replicas: 3 }))).response.auditAnnotations).toBeUndefined();
  });

  it('sees request, namespaceObject (from the namespace lookup), oldObject on UPDATE and a null object on DELETE', async () => {
    const spec = {
      matchConstraints: { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['*'], resources: ['deployments'] }] },
      validations: [
        { expression: "request.operation != 'DELETE' || (object == null && oldObject != null)", message: 'delete' },
        { expression: "request.operation != 'UPDATE' || oldObject.spec.replicas <= object.spec.replicas", message: 'no scaling down' },
        { expression: "namespaceObject.metadata.labels.env == 'test' && namespaceObject.metadata.name == request.namespace", message: 'namespace' },
        { expression: "request.userInfo.username == 'kubernetes-admin' && request.kind.kind == 'Deployment' && request.resource.resource == 'deployments'", message: 'request' },
      ],
    };
    const { run } = setup(spec);
    expect((await run(deployment({ replicas: 2 }))).response.allowed).toBe(true);
    expect((await run(deployment({ replicas: 1 }), { oldObject: deployment({ replicas: 3 }) })).response.status?.message).toMatch(/no scaling down$/);
    expect((await run(null, { operation: 'DELETE', oldObject: deployment() })).response.allowed).toBe(true);
  });
});
