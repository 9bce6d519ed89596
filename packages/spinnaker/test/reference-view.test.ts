import { describe, expect, it } from 'vitest';
import { createPermissionEvaluator, evaluateView, parseView, type FiatDefinitions } from '@verdict/spinnaker';

/** The realistic example of the reference: roles dev-team and ops, executeFallback READ, two unrestricted resources. */
export const definitions: FiatDefinitions = {
  users: { 'Alice@Example.com': [{ name: 'dev-team', source: 'GITHUB_TEAMS' }, { name: 'ops', source: 'EXTERNAL' }] },
  accounts: [
    { name: 'prod-aws', cloudProvider: 'aws', permissions: { READ: ['ops'], WRITE: ['ops'] } },
    { name: 'staging-k8s', cloudProvider: 'kubernetes' },
  ],
  applications: [
    { name: 'checkout', permissions: { READ: ['dev-team'], WRITE: ['ops'] } },
    { name: 'sandbox' },
  ],
  serviceAccounts: [{ name: 'deploy-bot@managed-service-accounts', memberOf: ['ops'] }],
  buildServices: [{ name: 'jenkins-main', permissions: { READ: ['dev-team'] } }],
};

const expected = {
  name: 'alice@example.com',
  accounts: [
    { name: 'prod-aws', authorizations: ['READ', 'WRITE'] },
    { name: 'staging-k8s', authorizations: ['READ', 'WRITE', 'EXECUTE', 'CREATE'] },
  ],
  applications: [
    { name: 'checkout', authorizations: ['READ', 'WRITE', 'EXECUTE'] },
    { name: 'sandbox', authorizations: ['READ', 'WRITE', 'EXECUTE', 'CREATE'] },
  ],
  serviceAccounts: [{ name: 'deploy-bot@managed-service-accounts', memberOf: ['ops'] }],
  roles: [{ name: 'dev-team', source: 'GITHUB_TEAMS' }, { name: 'ops', source: 'EXTERNAL' }],
  buildServices: [{ name: 'jenkins-main', authorizations: ['READ'] }],
  extensionResources: {},
  admin: false,
  accountManager: false,
  legacyFallback: false,
  allowAccessToUnknownApplications: false,
};

describe('getUserPermission', () => {
  const setup = () => createPermissionEvaluator({ definitions });

  it('returns the reference UserPermission.View for alice, field for field', () => {
    expect(setup().getUserPermission('alice@example.com')).toEqual(expected);
  });

  it('round-trips through JSON: parsing the serialised view gives the same view and the same decisions', () => {
    const fiat = setup();
    const view = fiat.getUserPermission('ALICE@example.com');
    const parsed = parseView(JSON.stringify(view));
    expect(parsed).toEqual(view);
    for (const [name, type, auth] of [['checkout', 'application', 'WRITE'], ['prod-aws', 'account', 'EXECUTE'], ['jenkins-main', 'build_service', 'WRITE']] as const) {
      expect(evaluateView(parsed, name, type, auth)).toEqual(fiat.hasPermission('alice@example.com', name, type, auth));
    }
  });
});
