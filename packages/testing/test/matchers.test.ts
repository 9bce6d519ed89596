import '@verdict/testing/vitest';
import { describe, expect, it } from 'vitest';
import { evaluateInput, toOutcome } from '@verdict/testing';
import { admissionReviewFor, createAdmissionWebhook, toAdmissionInput } from '@verdict/kubernetes';
import { failure, MEMORY_POLICIES, memoryPolicies, pod } from './helpers.js';

function setup() {
  const policies = memoryPolicies();
  const evaluate = (memory: string, team = 'web', labels: Record<string, string> | null = { team: 'x', owner: 'y' }) =>
    policies.evaluate({ object: pod(memory, labels ?? undefined), namespaceLabels: { team } });
  return { policies, evaluate };
}

describe('toBeAllowed', () => {
  it('passes for an allowed decision and fails for a denied one, naming the denial and the policy trace', () => {
    const { evaluate } = setup();
    expect(evaluate('8Gi')).toBeAllowed();
    const message = failure(() => expect(evaluate('20Gi')).toBeAllowed());
    expect(message).toContain('expected the decision to be allowed, but it was denied:');
    expect(message).toContain('[memory-limit-enforcement] container app memory limit 20Gi must be at most 16Gi');
    expect(message).toContain('K8sMemoryLimits/memory-limit-enforcement [deny]: matched');
    expect(message).toContain('parameterSelection (MatchFirst): entry 1 "everyone-else" won');
    expect(message).toContain('✗ container-memory-limit (1 of 1 elements failed)');
    // Only the policy behind the denial, not every policy, and no JSON.
    expect(message).not.toContain('Policy/team-label');
    expect(message).not.toContain('{"');
  });

  it('fails when negated on an allowed decision', () => {
    const { evaluate } = setup();
    expect(failure(() => expect(evaluate('8Gi')).not.toBeAllowed())).toContain('expected the decision not to be allowed, but it was allowed');
  });
});

describe('toBeDenied', () => {
  it('passes with a substring or a RegExp of a denial message', () => {
    const { evaluate } = setup();
    expect(evaluate('20Gi')).toBeDenied();
    expect(evaluate('20Gi')).toBeDenied('at most 16Gi');
    expect(evaluate('20Gi')).toBeDenied(/memory limit \d+Gi/);
    expect(evaluate('8Gi')).not.toBeDenied();
  });

  it('fails for an allowed decision and shows why no policy denied (the selector that did not match)', () => {
    const { evaluate } = setup();
    const message = failure(() => expect(evaluate('200Gi', 'system')).toBeDenied());
    expect(message).toContain('expected the decision to be denied, but it was allowed');
    expect(message).toMatch(/K8sMemoryLimits\/memory-limit-enforcement \[deny\]: not matched: requires namespaceLabels: team/);
  });

  it('fails when no denial message matches, listing the messages', () => {
    const { evaluate } = setup();
    const message = failure(() => expect(evaluate('20Gi')).toBeDenied('32Gi'));
    expect(message).toContain('expected a denial message matching "32Gi", but the denial messages were:');
    expect(message).toContain('  - [memory-limit-enforcement] container app memory limit 20Gi must be at most 16Gi');
  });

  it('fails when negated on a denied decision', () => {
    const { evaluate } = setup();
    expect(failure(() => expect(evaluate('20Gi')).not.toBeDenied())).toContain('expected the decision not to be denied, but it was denied:');
  });
});

describe('toWarn', () => {
  it('passes when a warn-enforced policy reports, with or without a message', () => {
    const { evaluate } = setup();
    const decision = evaluate('8Gi', 'web', null);
    expect(decision).toWarn();
    expect(decision).toWarn('has no team label');
    expect(decision).toWarn(/^\[team-label\]/);
    expect(evaluate('8Gi')).not.toWarn();
  });

  it('fails with the warnings listed when none matches', () => {
    const { evaluate } = setup();
    const message = failure(() => expect(evaluate('8Gi', 'web', null)).toWarn('quota'));
    expect(message).toContain('expected a warning matching "quota", but the warnings were:');
    expect(message).toContain('[team-label] pod web has no team label');
    expect(failure(() => expect(evaluate('8Gi')).toWarn())).toContain('expected at least one warning, but there were none');
  });
});

describe('toPatch', () => {
  it('passes for an operation at a path, with or without its value (asymmetric matchers too)', () => {
    const { evaluate } = setup();
    const decision = evaluate('8Gi', 'web', null);
    expect(decision).toPatch('/object/metadata/labels/owner');
    expect(decision).toPatch('/object/metadata/labels/owner', 'platform');
    expect(decision).toPatch('/object/metadata/labels/owner', expect.stringMatching(/^plat/));
    expect(decision).not.toPatch('/object/metadata/labels/owner', 'web');
    expect(evaluate('8Gi')).not.toPatch('/object/metadata/labels/owner');
  });

  it('fails listing the operations the patch has', () => {
    const { evaluate } = setup();
    const message = failure(() => expect(evaluate('8Gi', 'web', null)).toPatch('/object/metadata/labels/owner', 'web'));
    expect(message).toContain('expected the patch to contain an operation at /object/metadata/labels/owner setting web, but it was:');
    expect(message).toContain('  - add /object/metadata/labels/owner = platform');
  });
});

describe('toPatchResource', () => {
  const policy = {
    apiVersion: 'policies.kyverno.io/v1', kind: 'MutatingPolicy', metadata: { name: 'team-label' },
    spec: {
      matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }] },
      mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{metadata: Object.metadata{labels: {"team": "platform"}}}' } }],
    },
  };
  const object = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'default' }, spec: { containers: [{ name: 'web', image: 'nginx' }] } };
  const patched = { ...object, metadata: { ...object.metadata, labels: { team: 'platform' } } };

  it('passes when an admission answer\'s patch turns the object into the expected resource, and a decision\'s own result', async () => {
    const webhook = createAdmissionWebhook({ policies: [policy], mutating: true });
    const review = await webhook.review(admissionReviewFor(object));
    expect(review).toPatchResource(patched, object);
    expect(review).toPatchResource({ ...patched, metadata: expect.objectContaining({ labels: { team: 'platform' } }) }, object);
    expect(review).not.toPatchResource(object, object);
    const decision = webhook.policies.evaluate(toAdmissionInput(admissionReviewFor(object)));
    expect(decision).toPatchResource(patched);
  });

  it('fails with a diff of the resources, and says what it needs when the answer carries only a patch', async () => {
    const webhook = createAdmissionWebhook({ policies: [policy], mutating: true });
    const review = await webhook.review(admissionReviewFor(object));
    const expected = { ...patched, metadata: { ...patched.metadata, labels: { team: 'web' } } };
    let thrown: { message: string; expected?: unknown; actual?: unknown } | undefined;
    try {
      expect(review).toPatchResource(expected, object);
    } catch (error) {
      thrown = error as typeof thrown;
    }
    expect(thrown?.message).toContain('expected the patch to make the expected resource, but it made another');
    // vitest prints the diff of these two.
    expect(thrown).toMatchObject({ expected, actual: patched });
    expect(failure(() => expect(review).toPatchResource(patched))).toContain('carries only the patch: pass the object it was for as the second argument');
  });
});

describe('toSelectParameters', () => {
  it('passes with the merged parameters of a policy, by name or Kind/name, and null for a policy that did not run', () => {
    const { evaluate } = setup();
    expect(evaluate('8Gi', 'big')).toSelectParameters({ 'memory-limit-enforcement': { limit: '32Gi' } });
    expect(evaluate('8Gi', 'web')).toSelectParameters('K8sMemoryLimits/memory-limit-enforcement', { limit: '16Gi' });
    expect(evaluate('8Gi', 'system')).toSelectParameters({ 'memory-limit-enforcement': null });
  });

  it('fails showing the parameters used, a diff, and the parameterSelection trace', () => {
    const { evaluate } = setup();
    const message = failure(() => expect(evaluate('8Gi', 'web')).toSelectParameters({ 'memory-limit-enforcement': { limit: '32Gi' } }));
    expect(message).toContain('policy "memory-limit-enforcement" used {limit: 16Gi}, expected {limit: 32Gi}');
    expect(message).toContain('parameterSelection (MatchFirst): entry 1 "everyone-else" won');
    const error = (() => {
      try {
        expect(evaluate('8Gi', 'web')).toSelectParameters({ 'memory-limit-enforcement': { limit: '32Gi' } });
      } catch (e) {
        return e as { expected: unknown; actual: unknown };
      }
      return undefined;
    })();
    // vitest prints its diff from these.
    expect(error?.expected).toEqual({ 'memory-limit-enforcement': { limit: '32Gi' } });
    expect(error?.actual).toEqual({ 'memory-limit-enforcement': { limit: '16Gi' } });
  });

  it('fails for a policy that is not in the trace, naming the policies that are', () => {
    const { evaluate } = setup();
    expect(failure(() => expect(evaluate('8Gi')).toSelectParameters({ 'memory-limits': { limit: '16Gi' } })))
      .toContain('policy "memory-limits" is not in the trace (evaluated: default-owner, memory-limit-enforcement, team-label)');
  });
});

describe('matchers on adapter answers', () => {
  it('reads an AdmissionReview response: allowed, status message lines, warnings and the base64 patch', async () => {
    const policies = MEMORY_POLICIES.replaceAll('/object/metadata', '/metadata');
    const denied = await evaluateInput(policies, pod('20Gi'), { namespaceLabels: { team: 'web' } });
    expect(denied.answer).toMatchObject({ kind: 'AdmissionReview', response: { allowed: false, status: { code: 403 } } });
    expect(denied.answer).toBeDenied('at most 16Gi');
    const allowed = await evaluateInput(policies, pod('8Gi'), { namespaceLabels: { team: 'web' }, kubernetes: { mutating: true } });
    expect(allowed.answer).toBeAllowed();
    expect(allowed.answer).toWarn('has no team label');
    expect(allowed.answer).toPatch('/metadata/labels/owner', 'platform');
    expect(failure(() => expect(allowed.answer).toSelectParameters({ 'memory-limit-enforcement': { limit: '16Gi' } })))
      .toContain('cannot check selected parameters: the admission response carries no trace');
    expect(allowed).toSelectParameters({ 'memory-limit-enforcement': { limit: '16Gi' } });
  });

  it('reads a CI job response and a permission answer', () => {
    expect({ id: 1, admission: 'accepted', reason: '' }).toBeAllowed();
    expect([{ id: 2, admission: 'rejected', reason: 'you have no power here' }]).toBeDenied('no power');
    expect({ allowed: false, reason: 'application checkout grants READ only to ops' }).toBeDenied(/READ only/);
    expect(failure(() => expect({ id: 3, admission: 'rejected', reason: 'project not allowed' }).toBeAllowed()))
      .toContain('expected the job to be allowed, but it was denied:\n  - project not allowed');
  });

  it('throws a clear error for a value that is no answer', () => {
    expect(() => expect({ hello: 'world' }).toBeAllowed()).toThrowError(
      'expected a verdict Decision, an AdmissionReview, a CI job response or a permission answer, but got {hello: world}',
    );
    expect(toOutcome({ allowed: true }).kind).toBe('permission');
  });
});
