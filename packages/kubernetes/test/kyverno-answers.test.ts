import { describe, expect, it } from 'vitest';
import { admissionReviewFor, loadKubernetesPolicies, toAdmissionInput } from '@verdict/kubernetes';
import { webhookFor } from './helpers.js';
import { NO_LATEST, podWith, validatingPolicy } from './kyverno-helpers.js';

function setup(policies: Array<Record<string, unknown>>) {
  return webhookFor({ policies: policies as never, namespaceLabels: () => ({}) });
}

describe('the answer of a Kyverno ValidatingPolicy', () => {
  it('denies with "Policy <name> failed: <message>" and no status code, as Kyverno answers (the API server reports 400)', async () => {
    const { response } = await setup([validatingPolicy('no-latest', { validationActions: ['Deny'], ...NO_LATEST })]).run(podWith('nginx:latest'));
    expect(response).toEqual({ uid: response.uid, allowed: false, status: { status: 'Failure', message: 'Policy no-latest failed: An image tag other than latest is required.' } });
  });

  it('admits what passes, and denies by default when validationActions is absent (Kyverno defaults it to Deny)', async () => {
    const { run } = setup([validatingPolicy('no-latest', NO_LATEST)]);
    expect((await run(podWith('nginx:1.27'))).response).toEqual({ uid: expect.any(String), allowed: true });
    expect((await run(podWith('nginx'))).response.allowed).toBe(false);
  });

  it('joins the failures of several denying policies with "; " into one message', async () => {
    const labels = validatingPolicy('needs-app-label', { validations: [{ expression: "has(object.metadata.labels) && 'app' in object.metadata.labels", message: 'label app is required' }] });
    const { response } = await setup([validatingPolicy('no-latest', NO_LATEST), labels]).run(podWith('nginx:latest'));
    expect(response.status?.message).toBe('Policy needs-app-label failed: label app is required; Policy no-latest failed: An image tag other than latest is required.');
  });

  it('warns with the same line under Warn, and admits', async () => {
    const { response } = await setup([validatingPolicy('no-latest', { validationActions: ['Warn'], ...NO_LATEST })]).run(podWith('nginx:latest'));
    expect(response.allowed).toBe(true);
    expect(response.warnings).toEqual(['Policy no-latest failed: An image tag other than latest is required.']);
  });

  it('denies and warns when validationActions holds both (Kyverno accepts the pair)', async () => {
    const { response } = await setup([validatingPolicy('no-latest', { validationActions: ['Deny', 'Warn'], ...NO_LATEST })]).run(podWith('nginx:latest'));
    expect(response.allowed).toBe(false);
    expect(response.warnings).toEqual([response.status?.message]);
  });

  it('admits silently under Audit, keeping the failure in the decision as an audit violation', async () => {
    const policies = [validatingPolicy('no-latest', { validationActions: ['Audit'], ...NO_LATEST })];
    const { response } = await setup(policies).run(podWith('nginx:latest'));
    expect(response).toEqual({ uid: response.uid, allowed: true });
    const set = loadKubernetesPolicies(policies as never);
    const decision = set.evaluate(toAdmissionInput(admissionReviewFor(podWith('nginx:latest'))));
    expect(decision.violations).toMatchObject([{ policy: 'no-latest', kind: 'ValidatingPolicy', enforcementAction: 'audit', message: 'An image tag other than latest is required.' }]);
  });

  it('reports only the first validation that fails, and traces the rest as not evaluated', () => {
    const policies = [validatingPolicy('two', { validations: [{ expression: 'false', message: 'first' }, { expression: 'false', message: 'second' }] })];
    const decision = loadKubernetesPolicies(policies as never).evaluate(toAdmissionInput(admissionReviewFor(podWith('nginx:1'))), { explain: true });
    expect(decision.violations.map((v) => v.message)).toEqual(['first']);
    expect(decision.trace[0]?.rules.map((r) => r.result)).toEqual(['fail', 'skipped']);
  });
});

describe('Kyverno messages', () => {
  const message = async (validation: Record<string, unknown>) =>
    (await setup([validatingPolicy('p', { validations: [{ expression: 'false', ...validation }] })]).run(podWith('nginx:1'))).response.status?.message;

  it('uses messageExpression as it evaluates, without the API server trimming or fallback', async () => {
    expect(await message({ messageExpression: "'  pod ' + object.metadata.name + '  '", message: 'static' })).toMatch(/^Policy p failed: {3}pod pod-\d+ {2}$/);
  });

  it('reports a messageExpression error in the message instead of falling back to message', async () => {
    expect(await message({ messageExpression: 'object.spec.nope', message: 'static' })).toMatch(/^Policy p failed: failed to evaluate message expression: .*nope/);
  });

  it('uses "CEL expression validation failed at index <i>" when the message is empty or absent', async () => {
    expect(await message({ messageExpression: "''", message: 'static' })).toBe('Policy p failed: CEL expression validation failed at index 0');
    expect(await message({})).toBe('Policy p failed: CEL expression validation failed at index 0');
  });
});

describe('Kyverno errors and failurePolicy', () => {
  it('denies a validation error as "Policy <name> error: error: <reason>", with failurePolicy Ignore too (it covers matchConditions only)', async () => {
    for (const failurePolicy of ['Fail', 'Ignore']) {
      const { response } = await setup([validatingPolicy('p', { failurePolicy, validations: [{ expression: 'object.spec.nope == 1' }] })]).run(podWith('nginx:1'));
      expect(response.allowed).toBe(false);
      expect(response.status?.message).toMatch(/^Policy p error: error: .*nope/);
    }
  });

  it('denies a matchCondition error as "failed to load context" under Fail, and skips the policy under Ignore', async () => {
    const spec = { matchConditions: [{ name: 'broken', expression: 'object.spec.nope == 1' }], validations: [{ expression: 'false' }] };
    const failed = await setup([validatingPolicy('p', spec)]).run(podWith('nginx:1'));
    expect(failed.response.status?.message).toMatch(/^Policy p error: failed to load context: .*nope/);
    const ignored = await setup([validatingPolicy('p', { ...spec, failurePolicy: 'Ignore' })]).run(podWith('nginx:1'));
    expect(ignored.response).toEqual({ uid: ignored.response.uid, allowed: true });
  });

  it('skips the policy when one matchCondition is false, even if another one errors', async () => {
    const spec = { matchConditions: [{ name: 'broken', expression: 'object.spec.nope == 1' }, { name: 'never', expression: 'false' }], validations: [{ expression: 'false' }] };
    expect((await setup([validatingPolicy('p', spec)]).run(podWith('nginx:1'))).response.allowed).toBe(true);
  });
});

describe('NamespacedValidatingPolicy', () => {
  const namespaced = (namespace: string, message: string) => validatingPolicy('no-latest', { validations: [{ expression: "!object.spec.containers.exists(c, c.image.endsWith(':latest'))", message }] }, { kind: 'NamespacedValidatingPolicy', namespace });

  it('applies only to requests in its own namespace', async () => {
    const { run } = setup([namespaced('team-a', 'not in team-a')]);
    expect((await run(podWith('nginx:latest', { namespace: 'team-a' }))).response.status?.message).toBe('Policy no-latest failed: not in team-a');
    expect((await run(podWith('nginx:latest', { namespace: 'team-b' }))).response.allowed).toBe(true);
  });

  it('keeps policies of the same name in different namespaces apart', async () => {
    const { run } = setup([namespaced('team-a', 'said team-a'), namespaced('team-b', 'said team-b')]);
    expect((await run(podWith('nginx:latest', { namespace: 'team-b' }))).response.status?.message).toBe('Policy no-latest failed: said team-b');
  });

  it('never applies to cluster-scoped objects', async () => {
    const policy = validatingPolicy('no-ns', { matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['namespaces'] }] }, validations: [{ expression: 'false' }] }, { kind: 'NamespacedValidatingPolicy', namespace: 'team-a' });
    expect((await setup([policy]).run({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-b' } })).response.allowed).toBe(true);
  });
});

describe('evaluation settings', () => {
  const off = (key: 'admission' | 'background') => validatingPolicy('p', { evaluation: { [key]: { enabled: false } }, validations: [{ expression: 'false', message: 'no' }] });
  const verdictOf = (policies: unknown[], evaluation: 'admission' | 'background' | 'all') =>
    loadKubernetesPolicies(policies as never, { evaluation }).evaluate(toAdmissionInput(admissionReviewFor(podWith('nginx:1')))).allowed;

  it('leaves a policy with admission disabled out of a webhook, and evaluates it in background mode', async () => {
    expect((await setup([off('admission')]).run(podWith('nginx:1'))).response.allowed).toBe(true);
    expect(verdictOf([off('admission')], 'background')).toBe(false);
  });

  it('leaves a policy with background disabled out of background mode, and evaluates every policy in mode all', () => {
    expect(verdictOf([off('background')], 'background')).toBe(true);
    expect(verdictOf([off('background')], 'admission')).toBe(false);
    expect(verdictOf([off('admission'), off('background')].map((p, i) => ({ ...p, metadata: { name: `p${i}` } })), 'all')).toBe(false);
  });

  it('refuses an unknown evaluation mode with the allowed ones', () => {
    expect(() => loadKubernetesPolicies([], { evaluation: 'audit' as never })).toThrowError('evaluation must be "admission", "background" or "all" (got "audit")');
  });
});
