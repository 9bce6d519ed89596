/**
 * The first rule users copy compared a missing or
 * unparsable quantity and passed (`null <= n` is true in JavaScript). A
 * comparison without an answer now fails a validate rule, negated or not, and
 * is an error (failing closed) where it decides something else.
 */
import { describe, expect, it } from 'vitest';
import { load } from './helpers.js';

describe('comparisons without an answer in policies', () => {
  const setup = (rule: unknown, extra: Record<string, unknown> = {}) =>
    load(JSON.stringify({
      apiVersion: 'verdict.dev/v1', kind: 'Policy', metadata: { name: 'memory' },
      spec: {
        parametersSchema: { type: 'object', properties: { limit: { type: 'string' } } },
        parameters: { limit: '16Gi' },
        validate: [{ name: 'limit', forEach: { var: 'object.spec.containers' }, rule, message: 'container {{element.name}} may use at most {{parameters.limit}}' }],
        ...extra,
      },
    }));
  const pod = (...memories: Array<string | undefined>) => ({
    object: { spec: { containers: memories.map((memory, i) => ({ name: `c${i}`, resources: memory === undefined ? {} : { limits: { memory } } })) } },
  });
  const compare = { '<=': [{ quantity: { var: 'element.resources.limits.memory' } }, { quantity: { var: 'parameters.limit' } }] };

  it('denies a container with no memory limit and one with an unparsable limit, with the rule message and the reason in the trace', () => {
    const decision = setup(compare).evaluate(pod('8Gi', undefined, '500GB'));
    expect(decision.allowed).toBe(false);
    expect(decision.errors).toEqual([]);
    expect(decision.violations.map((v) => [v.message, v.path])).toEqual([
      ['container c1 may use at most 16Gi', '/object/spec/containers/1'],
      ['container c2 may use at most 16Gi', '/object/spec/containers/2'],
    ]);
    expect(decision.trace[0]!.rules[0]).toMatchObject({ result: 'fail', elements: 3, violations: 2 });
    expect(decision.trace[0]!.rules[0]!.message).toMatch(/^element 1 \("c1"\): "<=" has no answer: quantity of element\.resources\.limits\.memory is null \(missing, or not a Kubernetes quantity\)/);
  });

  it('denies through a negated comparison too', () => {
    const negated = { '!': { '>': [{ quantity: { var: 'element.resources.limits.memory' } }, { quantity: { var: 'parameters.limit' } }] } };
    const set = setup(negated);
    expect(set.evaluate(pod('8Gi')).allowed).toBe(true);
    expect(set.evaluate(pod('32Gi')).allowed).toBe(false);
    expect(set.evaluate(pod(undefined)).violations.map((v) => v.message)).toEqual(['container c0 may use at most 16Gi']);
    expect(set.evaluate(pod('lots')).allowed).toBe(false);
  });

  it('denies when the comparison sits in an if condition that would otherwise choose the passing branch', () => {
    const set = setup({ if: [compare, true, false] });
    expect(set.evaluate(pod('1Gi')).allowed).toBe(true);
    expect(set.evaluate(pod(undefined)).allowed).toBe(false);
  });

  it('lets a guarded rule decide for itself, so an optional limit can be allowed explicitly', () => {
    const optional = { or: [{ '!': { exists: 'element.resources.limits.memory' } }, compare] };
    const set = setup(optional);
    expect(set.evaluate(pod(undefined)).allowed).toBe(true);
    expect(set.evaluate(pod('32Gi')).allowed).toBe(false);
  });

  it('fails closed with a match error when a when selector compares a missing value', () => {
    const set = setup(true, { match: { when: { '>': [{ var: 'object.spec.replicas' }, 3] } } });
    const decision = set.evaluate(pod('1Gi'));
    expect(decision.allowed).toBe(false);
    expect(decision.errors).toEqual([expect.objectContaining({ code: 'MATCH_ERROR', message: expect.stringContaining('">" has no answer: object.spec.replicas is null (missing)') })]);
  });

  it('fails closed with a rule error when a mutate condition compares a missing value', () => {
    const set = load(JSON.stringify({
      apiVersion: 'verdict.dev/v1', kind: 'Policy', metadata: { name: 'm' },
      spec: { mutate: [{ name: 'label', when: { '<': [{ var: 'object.spec.replicas' }, 2] }, patch: [{ op: 'add', path: '/metadata/labels/small', value: 'yes' }] }] },
    }));
    const decision = set.evaluate({ object: { metadata: {}, spec: {} } });
    expect(decision.allowed).toBe(false);
    expect(decision.patch).toEqual([]);
    expect(decision.errors[0]).toMatchObject({ code: 'RULE_ERROR', rule: 'label' });
    expect(decision.errors[0]!.message).toContain('object.spec.replicas is null (missing)');
  });
});
