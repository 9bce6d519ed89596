import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PolicyLoadError, type Problem } from '@verdict/core';
import { loadKubernetesPolicies, type AdmissionWebhookOptions } from '@verdict/kubernetes';
import { namespace, pod, webhookFor } from './helpers.js';

const fixture = (path: string) => readFileSync(fileURLToPath(new URL(`../../../test/fixtures/gatekeeper-library-cel/${path}`, import.meta.url)), 'utf8');

/** A ConstraintTemplate with only a CEL block: pods must carry the labels listed in the parameters. */
function template(source: Record<string, unknown>, kind = 'K8sLabels') {
  return {
    apiVersion: 'templates.gatekeeper.sh/v1',
    kind: 'ConstraintTemplate',
    metadata: { name: kind.toLowerCase() },
    spec: {
      crd: { spec: { names: { kind }, validation: { openAPIV3Schema: { type: 'object', properties: { labels: { type: 'array', items: { type: 'string' } }, limit: { type: 'integer', default: 2 } } } } } },
      targets: [{ target: 'admission.k8s.gatekeeper.sh', code: [{ engine: 'K8sNativeValidation', source }, { engine: 'Rego', source: { rego: 'package x\nviolation[{"msg": "rego is not run"}] { true }' } }] }],
    },
  };
}

const LABELS = {
  validations: [{
    expression: 'variables.params.labels.all(l, has(variables.anyObject.metadata.labels) && l in variables.anyObject.metadata.labels)',
    messageExpression: '"missing labels: " + variables.params.labels.filter(l, !has(variables.anyObject.metadata.labels) || !(l in variables.anyObject.metadata.labels)).join(", ")',
  }],
};

function constraint(spec: Record<string, unknown>, name = 'must-label', kind = 'K8sLabels') {
  return { apiVersion: 'constraints.gatekeeper.sh/v1beta1', kind, metadata: { name }, spec: { match: { kinds: [{ apiGroups: [''], kinds: ['Pod'] }] }, ...spec } };
}

function setup(documents: unknown[], options: Partial<AdmissionWebhookOptions> = {}) {
  return webhookFor({ policies: documents as never, ...options });
}

function problemsOf(documents: unknown[]): Problem[] {
  try {
    loadKubernetesPolicies(documents as never);
  } catch (error) {
    if (error instanceof PolicyLoadError) return [...error.problems];
    throw error;
  }
  throw new Error('expected the policies not to load');
}

describe('Gatekeeper ConstraintTemplates with a K8sNativeValidation block', () => {
  it('run the CEL block with variables.params and variables.anyObject, answering [constraint] message', async () => {
    const { run } = setup([template(LABELS), constraint({ parameters: { labels: ['owner', 'team'] } })]);
    const { response } = await run(pod({ namespace: 'default', labels: { owner: 'me' } }));
    expect(response.status).toEqual({ status: 'Failure', code: 403, reason: 'Forbidden', message: '[must-label] missing labels: team' });
    expect((await run(pod({ namespace: 'default', labels: { owner: 'me', team: 'a' } }))).response.allowed).toBe(true);
  });

  it('run the upstream requiredlabels template from gatekeeper-library as it is', async () => {
    const { run } = setup([fixture('requiredlabels/template.yaml'), fixture('requiredlabels/samples/all-must-have-owner/constraint.yaml')].join('\n---\n') as never);
    const { response } = await run(namespace('apps', { owner: 'me.agilebank.demo' }));
    expect(response.allowed).toBe(true);
    const bad = await run(namespace('apps', { owner: 'nobody' }));
    expect(bad.response.status?.message).toBe('[all-must-have-owner] regex mismatch');
  });

  it('see the deleted object as object and variables.anyObject on DELETE (Gatekeeper\'s webhook copies oldObject into object)', async () => {
    const source = { validations: [{ expression: 'object.metadata.name == "gone" && variables.anyObject.metadata.name == "gone" && oldObject.metadata.name == "gone"', message: 'seen' }] };
    const { run } = setup([template(source), constraint({})]);
    const { response } = await run(null, { operation: 'DELETE', oldObject: pod({ name: 'gone', namespace: 'default' }) });
    expect(response.allowed).toBe(true);
  });

  it('skip the constraint when a match condition (Gatekeeper names the field matchCondition) is false', async () => {
    const gated = { ...LABELS, matchCondition: [{ name: 'only-prod', expression: 'has(object.metadata.labels) && object.metadata.labels.env == "prod"' }] };
    const { run } = setup([template(gated), constraint({ parameters: { labels: ['owner'] } })]);
    expect((await run(pod({ namespace: 'default', labels: { env: 'dev' } }))).response.allowed).toBe(true);
    expect((await run(pod({ namespace: 'default', labels: { env: 'prod' } }))).response.allowed).toBe(false);
    const aliased = { ...LABELS, matchConditions: gated.matchCondition };
    expect((await setup([template(aliased), constraint({ parameters: { labels: ['owner'] } })]).run(pod({ namespace: 'default', labels: { env: 'dev' } }))).response.allowed).toBe(true);
  });

  it('turn an evaluation error into a violation under failurePolicy Fail (the default), and ignore it under Ignore', async () => {
    const broken = { validations: [{ expression: 'object.spec.nope == 1' }] };
    const fail = await setup([template(broken), constraint({})]).run(pod({ namespace: 'default' }));
    expect(fail.response.status).toMatchObject({ code: 403 });
    expect(fail.response.status?.message).toMatch(/^\[must-label\] expression 'object.spec.nope == 1' resulted in error: /);
    const ignore = await setup([template({ ...broken, failurePolicy: 'Ignore' }), constraint({})]).run(pod({ namespace: 'default' }));
    expect(ignore.response.allowed).toBe(true);
  });

  it('warn for a constraint with enforcementAction warn', async () => {
    const { response } = await setup([template(LABELS), constraint({ enforcementAction: 'warn', parameters: { labels: ['owner'] } })]).run(pod({ namespace: 'default' }));
    expect(response.allowed).toBe(true);
    expect(response.warnings).toEqual(['[must-label] missing labels: owner']);
  });

  it('choose parameters per namespace with parameterSelection, defaults from the schema applied', async () => {
    const source = { validations: [{ expression: 'size(variables.anyObject.spec.containers) <= variables.params.limit', messageExpression: '"at most " + string(variables.params.limit) + " containers"' }] };
    const c = constraint({
      parameters: {},
      parameterSelection: [{ name: 'batch', match: { namespaces: ['batch'] }, parameters: { limit: 5 } }],
    });
    const { run, webhook } = setup([template(source), c]);
    const three = { ...pod({ namespace: 'default' }), spec: { containers: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] } };
    expect((await run(three)).response.status?.message).toBe('[must-label] at most 2 containers');
    expect((await run({ ...three, metadata: { name: 'p', namespace: 'batch' } })).response.allowed).toBe(true);
    expect(webhook.policies.policies[0]).toMatchObject({ kind: 'K8sLabels', template: 'k8slabels', parameterSelection: 1 });
  });

  it('keep refusing a ConstraintTemplate with only Rego, with the porting hint', () => {
    const rego = template(LABELS);
    (rego.spec.targets[0]!.code as unknown[]).shift();
    const [p] = problemsOf([rego]);
    expect(p).toMatchObject({ code: 'UNSUPPORTED' });
    expect(p!.message).toContain('port the logic to a PolicyTemplate');
  });

  it('refuse the variable names Gatekeeper reserves and a name that is not the lowercase kind, without calling its constraints unknown', () => {
    const problems = problemsOf([{ ...template({ variables: [{ name: 'params', expression: '1' }, { name: 'gatekeeper_internal_x', expression: '1' }], validations: [{ expression: 'true' }] }), metadata: { name: 'wrong' } }, constraint({})]);
    expect(problems.map((p) => p.path)).toEqual(['/metadata/name', '/spec/targets/0/code/0/source/variables/0/name', '/spec/targets/0/code/0/source/variables/1/name']);
  });

  it('report a CEL error at its place in the code block, past the variables Gatekeeper adds', () => {
    const problems = problemsOf([template({ variables: [{ name: 'ok', expression: 'true' }, { name: 'bad', expression: 'object.' }], validations: [{ expression: 'variables.ok' }] })]);
    expect(problems.map((p) => [p.code, p.path])).toEqual([['INVALID_RULE', '/spec/targets/0/code/0/source/variables/1/expression']]);
  });

  it('check constraints against the template schema', () => {
    const [p] = problemsOf([template(LABELS), constraint({ parameters: { labels: 'owner' } })]);
    expect(p).toMatchObject({ code: 'INVALID_PARAMETERS', document: 1 });
  });
});
