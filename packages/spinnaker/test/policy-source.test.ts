import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PolicyLoadError, compilePolicies, parsePolicyDocuments } from '@verdict/core';
import { SpinnakerError, createPermissionEvaluator, policyPermissionSource, type FiatDefinitions } from '@verdict/spinnaker';
import { PERMISSIONS_TEMPLATE, resourceInput, spinnakerMatchDialect } from '../src/policy/source.js';

const yaml = readFileSync(fileURLToPath(new URL('../../../examples/spinnaker/policies/permissions.yaml', import.meta.url)), 'utf8');

const definitions: FiatDefinitions = {
  users: { ann: ['everyone', 'team-a'], bob: ['everyone', 'team-b'], eve: ['everyone'], rita: ['release-managers'], sam: ['sre'] },
  accounts: [{ name: 'prod-k8s', cloudProvider: 'kubernetes' }, { name: 'prod-aws', cloudProvider: 'aws' }],
  applications: [
    { name: 'team-a-web' },
    { name: 'team-a-payments' },
    { name: 'billing', attributes: { owner: 'team-b' } },
    { name: 'team-a-sandbox', permissions: { WRITE: ['interns'] } },
  ],
};

function setup() {
  const source = policyPermissionSource(yaml, { source: 'permissions.yaml' });
  return { source, fiat: createPermissionEvaluator({ definitions, permissionSources: [source] }) };
}

describe('policyPermissionSource', () => {
  it('gives every application READ for everyone and WRITE for its owning team (by name glob or attribute)', () => {
    const { fiat } = setup();
    expect(fiat.hasPermission('eve', 'team-a-web', 'application', 'READ').allowed).toBe(true);
    expect(fiat.hasPermission('eve', 'team-a-web', 'application', 'WRITE').allowed).toBe(false);
    expect(fiat.hasPermission('ann', 'TEAM-A-WEB', 'application', 'WRITE').allowed).toBe(true);
    expect(fiat.hasPermission('bob', 'billing', 'application', 'WRITE').allowed).toBe(true);
    expect(fiat.hasPermission('ann', 'billing', 'application', 'WRITE').allowed).toBe(false);
  });

  it('applies an override that replaces READ for one application', () => {
    const { fiat, source } = setup();
    expect(fiat.hasPermission('eve', 'team-a-payments', 'application', 'READ').allowed).toBe(false);
    expect(fiat.hasPermission('ann', 'team-a-payments', 'application', 'READ').allowed).toBe(true);
    const explanation = source.explain({ type: 'application', name: 'team-a-payments' });
    expect(explanation.permissions).toEqual({ READ: ['team-a', 'payments-auditors'], WRITE: ['team-a'], EXECUTE: ['release-managers'] });
    expect(explanation.contributions).toEqual([{
      policy: 'application-defaults', kind: 'SpinnakerPermissions',
      entries: [{ index: 0, name: 'team-a-owns-team-a-apps' }, { index: 2, name: 'payments-is-private' }, { index: 3, name: 'release-managers-deploy-everything' }],
      permissions: explanation.permissions,
    }]);
  });

  it('unions policy permissions with the resource\'s own (Fiat\'s aggregate provider), then applies executeFallback', () => {
    const { fiat } = setup();
    const sandbox = fiat.getUserPermission('ann').applications.find((a) => a.name === 'team-a-sandbox');
    expect(sandbox?.authorizations).toEqual(['READ', 'WRITE', 'EXECUTE']);
    expect(fiat.hasPermission('rita', 'team-a-sandbox', 'application', 'EXECUTE').allowed).toBe(false);
    expect(fiat.hasPermission('rita', 'team-a-web', 'application', 'EXECUTE').allowed).toBe(true);
  });

  it('selects accounts by type, name and attribute', () => {
    const { fiat } = setup();
    expect(fiat.hasPermission('sam', 'prod-k8s', 'account', 'WRITE').allowed).toBe(true);
    expect(fiat.hasPermission('eve', 'prod-k8s', 'account', 'WRITE').allowed).toBe(false);
    // prod-aws matches no policy: still unrestricted.
    expect(fiat.hasPermission('eve', 'prod-aws', 'account', 'WRITE').allowed).toBe(true);
  });

  it('builds one input document per resource', () => {
    expect(resourceInput({ type: 'applications', name: 'x', attributes: { owner: 'a' }, permissions: { READ: ['r'] } }))
      .toEqual({ resource: { type: 'application', name: 'x', attributes: { owner: 'a' }, permissions: { READ: ['r'] } } });
  });

  it('rejects a policy with an unknown authorization at load time, with its path', () => {
    const bad = 'kind: SpinnakerPermissions\nmetadata: {name: bad}\nspec:\n  parameters:\n    permissions: {DELETE: [x]}\n';
    try {
      policyPermissionSource(bad);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(PolicyLoadError);
      expect((error as PolicyLoadError).problems[0]).toMatchObject({ path: '/spec/parameters/permissions' });
    }
  });

  it('rejects unknown resource types in the dialect', () => {
    expect(() => policyPermissionSource('kind: SpinnakerPermissions\nmetadata: {name: bad}\nspec:\n  match: {resourceTypes: ["account:s"]}\n')).toThrow('malformed resource key');
  });

  it('accepts a PolicySet compiled by the caller with the dialect and template', () => {
    const set = compilePolicies([...parsePolicyDocuments(yaml), PERMISSIONS_TEMPLATE], { dialects: [spinnakerMatchDialect] });
    expect(policyPermissionSource(set).explain({ type: 'account', name: 'prod-k8s', attributes: { cloudProvider: 'kubernetes' } }).permissions).toEqual({ READ: ['everyone'], WRITE: ['sre'] });
  });

  it('fails the lookup when a policy errors, so clients apply legacyFallback', () => {
    // A dialect whose selector throws stands for any matching error at evaluation time.
    const exploding = { name: 'exploding', keys: ['explode'], compile: () => ({ test: (): boolean => { throw new Error('inventory lookup failed'); } }) };
    const erroring = compilePolicies([
      ...parsePolicyDocuments('kind: SpinnakerPermissions\nmetadata: {name: broken}\nspec:\n  match: {explode: true}\n'), PERMISSIONS_TEMPLATE,
    ], { dialects: [spinnakerMatchDialect, exploding] });
    const source = policyPermissionSource(erroring);
    expect(() => source.explain({ type: 'application', name: 'x' })).toThrow(SpinnakerError);
    const fiat = createPermissionEvaluator({ definitions, permissionSources: [source], legacyFallback: true });
    expect(fiat.hasPermission('eve', 'team-a-web', 'application', 'WRITE').allowed).toBe(true);
    expect(fiat.getPermission('eve')?.legacyFallback).toBe(true);
    const strict = createPermissionEvaluator({ definitions, permissionSources: [source] });
    expect(strict.hasPermission('eve', 'team-a-web', 'application', 'READ').reason).toMatch(/could not be read: policy source "policies" failed for account prod-k8s: \[broken\] unable to match: inventory lookup failed/);
  });
});
