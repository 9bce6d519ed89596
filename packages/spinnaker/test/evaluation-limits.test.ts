import { describe, expect, it } from 'vitest';
import { compilePolicies, VerdictError } from '@verdict/core';
import { createPermissionEvaluator, policyPermissionSource, SpinnakerError } from '@verdict/spinnaker';
import { PERMISSIONS_TEMPLATE, spinnakerMatchDialect } from '../src/policy/source.js';

const byTags = {
  apiVersion: 'verdict.dev/v1', kind: 'SpinnakerPermissions', metadata: { name: 'tagged' },
  spec: { match: { resourceTypes: ['application'], when: { some: [{ var: 'resource.attributes.tags' }, { '==': [{ var: '' }, 'public'] }] } }, parameters: { permissions: { READ: ['everyone'] } } },
};

function setup(costBudget?: number) {
  const source = policyPermissionSource([byTags], costBudget === undefined ? {} : { limits: { costBudget } });
  const application = (tags: number) => ({ name: 'app', attributes: { tags: [...Array.from({ length: tags }, (_, i) => `t${i}`), 'public'] } });
  return { source, application, fiat: createPermissionEvaluator({ definitions: { users: { eve: ['everyone'] }, applications: [application(1000)] }, permissionSources: [source] }) };
}

describe('a policy permission source and the cost budget', () => {
  it('fails the source when a resource exceeds the budget, and Fiat then grants nothing (fail closed)', () => {
    const { source, application, fiat } = setup(100);
    expect(() => source.explain({ type: 'application', ...application(1000) })).toThrow(SpinnakerError);
    expect(() => source.explain({ type: 'application', ...application(1000) })).toThrow(/exceeded the cost budget of 100 units/);
    expect(source.explain({ type: 'application', ...application(5) }).permissions.READ).toEqual(['everyone']);
    expect(fiat.hasPermission('eve', 'app', 'application', 'READ').allowed).toBe(false);
  });

  it('grants under the default budget, and refuses limits for a set that is already compiled', () => {
    expect(setup().fiat.hasPermission('eve', 'app', 'application', 'READ').allowed).toBe(true);
    const set = compilePolicies([byTags, PERMISSIONS_TEMPLATE], { dialects: [spinnakerMatchDialect] });
    expect(() => policyPermissionSource(set, { limits: { costBudget: 10 } })).toThrow(VerdictError);
  });
});
