import { describe, expect, it } from 'vitest';
import { AdmissionError, loadKubernetesPolicies, ParamCache, type AdmissionWebhookOptions } from '@verdict/kubernetes';
import { webhookFor } from './helpers.js';
import { binding, configMap, deployment, policy } from './vap-helpers.js';

const P = 'limits.example.com';
const LIMIT = policy(P, {
  paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
  validations: [{ expression: 'object.spec.replicas <= int(params.data.max)', messageExpression: "'at most ' + params.data.max + ' (' + params.metadata.name + ')'" }],
});

function setup(paramRef: Record<string, unknown> | undefined, extra: unknown[], options: Partial<AdmissionWebhookOptions> = {}) {
  const b = binding('b.example.com', P, paramRef ? { paramRef } : {});
  return webhookFor({ policies: [LIMIT, b, ...extra] as never, ...options });
}

const denial = (message: string) => `ValidatingAdmissionPolicy '${P}' with binding 'b.example.com' denied request: ${message}`;

describe('parameters of a binding (paramRef)', () => {
  it('uses the parameter object named by name and namespace, from the policy set', async () => {
    const { run } = setup({ name: 'limit', namespace: 'config', parameterNotFoundAction: 'Deny' }, [configMap('limit', { max: '3' }, { namespace: 'config' })]);
    expect((await run(deployment({ replicas: 4, namespace: 'apps' }))).response.status?.message).toBe(denial('at most 3 (limit)'));
    expect((await run(deployment({ replicas: 3, namespace: 'apps' }))).response.allowed).toBe(true);
  });

  it('looks in the namespace of the request when paramRef has no namespace (per-namespace parameters)', async () => {
    const { run } = setup({ name: 'limit', parameterNotFoundAction: 'Allow' }, [configMap('limit', { max: '1' }, { namespace: 'small' }), configMap('limit', { max: '10' }, { namespace: 'big' })]);
    expect((await run(deployment({ replicas: 5, namespace: 'small' }))).response.allowed).toBe(false);
    expect((await run(deployment({ replicas: 5, namespace: 'big' }))).response.allowed).toBe(true);
    expect((await run(deployment({ replicas: 50, namespace: 'elsewhere' }))).response.allowed).toBe(true);
  });

  it('evaluates the policy once per parameter a selector finds; every one must pass', async () => {
    const labels = { limits: 'yes' };
    const { run } = setup({ namespace: 'config', selector: { matchLabels: labels }, parameterNotFoundAction: 'Deny' }, [
      configMap('loose', { max: '10' }, { namespace: 'config', labels }), configMap('strict', { max: '2' }, { namespace: 'config', labels }), configMap('other', { max: '0' }, { namespace: 'config' }),
    ]);
    expect((await run(deployment({ replicas: 2 }))).response.allowed).toBe(true);
    expect((await run(deployment({ replicas: 3 }))).response.status?.message).toBe(denial('at most 2 (strict)'));
  });

  it('denies without parameters under parameterNotFoundAction Deny (the default), and does nothing under Allow', async () => {
    const deny = await setup({ name: 'missing', namespace: 'config', parameterNotFoundAction: 'Deny' }, []).run(deployment());
    expect(deny.response.status).toMatchObject({ code: 422, message: denial('failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction') });
    const byDefault = await setup({ name: 'missing', namespace: 'config' }, []).run(deployment());
    expect(byDefault.response.allowed).toBe(false);
    const allow = await setup({ name: 'missing', namespace: 'config', parameterNotFoundAction: 'Allow' }, []).run(deployment({ replicas: 100 }));
    expect(allow.response.allowed).toBe(true);
  });

  it('refuses a namespaced paramRef without namespace for a cluster-scoped request', async () => {
    const nodes = policy(P, {
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['nodes'] }] },
      validations: [{ expression: 'true' }],
    });
    const { run } = webhookFor({ policies: [nodes, binding('b.example.com', P, { paramRef: { name: 'x', parameterNotFoundAction: 'Allow' } })] as never });
    const { response } = await run({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } });
    expect(response.status?.message).toBe(denial('failed to configure binding: cannot use namespaced paramRef in policy binding that matches cluster-scoped resources'));
  });

  it('gives params null to a binding without paramRef', async () => {
    const guarded = policy(P, { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, validations: [{ expression: 'params != null', message: 'params missing but required to bind to this policy' }] });
    const { run } = webhookFor({ policies: [guarded, binding('b.example.com', P)] as never });
    expect((await run(deployment())).response.status?.message).toBe(denial('params missing but required to bind to this policy'));
  });

  it('reads parameters from a ParamCache the host feeds, which wins over the set for the same object', async () => {
    const cache = new ParamCache([configMap('limit', { max: '1' }, { namespace: 'config' })]);
    const { run } = setup({ name: 'limit', namespace: 'config', parameterNotFoundAction: 'Deny' }, [configMap('limit', { max: '100' }, { namespace: 'config' })], { params: cache });
    expect((await run(deployment({ replicas: 2 }))).response.status?.message).toBe(denial('at most 1 (limit)'));
    cache.apply({ type: 'MODIFIED', object: configMap('limit', { max: '5' }, { namespace: 'config' }) });
    expect((await run(deployment({ replicas: 2 }))).response.allowed).toBe(true);
    cache.apply({ type: 'DELETED', object: configMap('limit', {}, { namespace: 'config' }) });
    expect((await run(deployment({ replicas: 2 }))).response.allowed).toBe(true);
    expect(cache.size).toBe(0);
  });

  it('refuses params for a compiled set, which takes them at compile time', () => {
    const set = loadKubernetesPolicies([LIMIT, binding('b.example.com', P)] as never);
    expect(() => webhookFor({ policies: set, params: new ParamCache() })).toThrow(AdmissionError);
  });
});
