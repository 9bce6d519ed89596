import { describe, expect, it, vi } from 'vitest';
import { SpinnakerError, createPermissionEvaluator, type FiatDefinitions, type PermissionEvaluatorConfig, type UserPermission } from '@verdict/spinnaker';
import { ViewCache } from '../src/cache.js';

const definitions: FiatDefinitions = {
  users: { alice: ['dev'], root: ['Admins'], carol: ['ops'], dave: ['dev', 'ops'] },
  accounts: [{ name: 'prod', permissions: { READ: ['dev'], WRITE: ['ops'] } }, { name: 'sandbox' }],
  applications: [{ name: 'checkout', permissions: { READ: ['dev'], WRITE: ['ops'] } }, { name: 'locked', permissions: { WRITE: ['ops'] } }],
  serviceAccounts: [{ name: 'deploy-bot', memberOf: ['dev', 'ops'] }],
  buildServices: [{ name: 'jenkins', permissions: { READ: ['dev'] } }],
  extensionResources: { my_ext: [{ name: 'thing', permissions: { READ: ['dev'] } }] },
};

function setup(overrides: Partial<PermissionEvaluatorConfig> = {}) {
  return createPermissionEvaluator({ definitions, fiat: { adminRoles: [' ADMINS '] }, ...overrides });
}

describe('hasPermission, step 1: Fiat disabled', () => {
  it('allows everything, before looking at the arguments', () => {
    const fiat = setup({ enabled: false });
    expect(fiat.hasPermission(null, null, null, null)).toEqual({ allowed: true, reason: 'Fiat is disabled (services.fiat.enabled is false): every request is allowed' });
    expect(fiat.hasPermission('nobody', 'x', 'bogus:', 'delete').allowed).toBe(true);
    expect(fiat.isAdmin('nobody')).toBe(true);
  });
});

describe('hasPermission, step 2: null arguments', () => {
  it('denies when resourceName, resourceType or authorization is null, naming which', () => {
    const fiat = setup();
    expect(fiat.hasPermission('alice', null, 'application', 'READ')).toEqual({ allowed: false, reason: 'Access denied: resourceName is required (got null)' });
    expect(fiat.hasPermission('alice', 'checkout', undefined, null).reason).toBe('Access denied: resourceType, authorization are required (got null)');
  });

  it('denies a service account check without an authorization too', () => {
    expect(setup().hasPermission('alice', 'deploy-bot', 'service_account', null).allowed).toBe(false);
  });
});

describe('hasPermission, steps 3 to 5: parsing', () => {
  it('throws for a malformed type and an unknown authorization, as Fiat throws', () => {
    expect(() => setup().hasPermission('alice', 'x', 'account:s', 'READ')).toThrow(SpinnakerError);
    expect(() => setup().hasPermission('alice', 'checkout', 'application', 'DELETE')).toThrow('unknown authorization "DELETE"');
  });

  it('never parses the authorization of a service account', () => {
    expect(setup().hasPermission('dave', 'deploy-bot', 'service_account', 'whatever').allowed).toBe(true);
  });

  it('rejects CREATE and points to canCreate', () => {
    expect(() => setup().hasPermission('alice', 'checkout', 'application', 'create')).toThrow('use canCreate');
  });

  it('accepts types and authorizations in Fiat\'s other spellings', () => {
    expect(setup().hasPermission('alice', 'checkout', 'spinnaker:fiat:applications', 'read').allowed).toBe(true);
  });
});

describe('hasPermission, step 6: the user\'s permissions', () => {
  it('denies an empty user name', () => {
    expect(setup().hasPermission('', 'checkout', 'application', 'READ').reason).toBe('Access denied to application checkout - required authorization: READ (no user name was given)');
  });

  it('denies an unknown user with Fiat\'s 403 text and why', () => {
    expect(setup().hasPermission('mallory', 'sandbox', 'account', 'READ')).toEqual({
      allowed: false,
      reason: 'Access denied to account sandbox - required authorization: READ (user mallory is not known to Fiat; services.fiat.legacyFallback is false)',
    });
  });

  it('gives the legacy fallback view when the source fails and legacyFallback is on: fallback accounts, unknown applications and build services allowed', () => {
    const source = { getUserPermission: (): UserPermission => { throw new Error('redis is down'); } };
    const fiat = createPermissionEvaluator({ source, legacyFallback: true, fallbackAccounts: ['prod'] });
    expect(fiat.hasPermission('alice', 'prod', 'account', 'WRITE').allowed).toBe(true);
    expect(fiat.hasPermission('alice', 'other', 'account', 'READ').allowed).toBe(false);
    expect(fiat.hasPermission('alice', 'anything', 'application', 'WRITE').allowed).toBe(true);
    expect(fiat.hasPermission('alice', 'jenkins', 'build_service', 'WRITE').reason).toMatch(/^legacy fallback: permissions of user alice could not be read/);
    expect(fiat.hasPermission('alice', 'deploy-bot', 'service_account', 'READ').allowed).toBe(false);
    expect(fiat.getPermission('alice')).toMatchObject({ legacyFallback: true, allowAccessToUnknownApplications: true, accounts: [{ name: 'prod' }] });
  });

  it('denies with the failure in the reason when the source fails and legacyFallback is off', () => {
    const source = { getUserPermission: (): UserPermission => { throw new Error('redis is down'); } };
    expect(createPermissionEvaluator({ source }).hasPermission('alice', 'checkout', 'application', 'READ').reason)
      .toBe('Access denied to application checkout - required authorization: READ (permissions of user alice could not be read: the permission source failed: redis is down; services.fiat.legacyFallback is false)');
  });

  it('applies legacyFallback to an unknown user, as Fiat\'s client does after a 404', () => {
    expect(setup({ legacyFallback: true }).hasPermission('mallory', 'checkout', 'application', 'WRITE').allowed).toBe(true);
  });

  it('caches views for 20 seconds after write and can invalidate them', () => {
    let now = 0;
    let calls = 0;
    const base = createPermissionEvaluator({ definitions });
    const source = { getUserPermission: (id: string) => { calls++; return { ...emptyFrom(base.getUserPermission(id)) }; } };
    const fiat = createPermissionEvaluator({ source, now: () => now });
    fiat.hasPermission('alice', 'checkout', 'application', 'READ');
    fiat.hasPermission('alice', 'checkout', 'application', 'READ');
    expect(calls).toBe(1);
    now = 20_001;
    fiat.hasPermission('alice', 'checkout', 'application', 'READ');
    expect(calls).toBe(2);
    fiat.invalidatePermission('alice');
    fiat.hasPermission('alice', 'checkout', 'application', 'READ');
    expect(calls).toBe(3);
  });

  it('keeps nothing for a user the source does not know, as Fiat\'s client keeps nothing after a 404: the next check asks again and sees the user once added', () => {
    const known = new Map<string, UserPermission>();
    let calls = 0;
    const source = { getUserPermission: (id: string) => { calls++; return known.get(id); } };
    const fiat = createPermissionEvaluator({ source, now: () => 0 });
    const set = vi.spyOn(ViewCache.prototype, 'set');
    try {
      for (let i = 0; i < 3; i++) expect(fiat.hasPermission('mallory', 'checkout', 'application', 'READ').reason).toContain('user mallory is not known to Fiat');
      expect(calls).toBe(3);
      expect(set).not.toHaveBeenCalled();
      known.set('mallory', { ...emptyFrom({ name: 'mallory' }), admin: true });
      expect(fiat.hasPermission('mallory', 'checkout', 'application', 'READ').allowed).toBe(true);
      expect(set).toHaveBeenCalledTimes(1);
    } finally {
      set.mockRestore();
    }
  });
});

function emptyFrom(view: { name: string }): UserPermission {
  return { id: view.name, accounts: [], applications: [], serviceAccounts: [], roles: [], buildServices: [], extensionResources: {}, admin: false, accountManager: false };
}

describe('hasPermission, step 7: permissionContains', () => {
  it('allows admins everything, roles and unknown types included', () => {
    const fiat = setup();
    for (const [name, type] of [['prod', 'account'], ['locked', 'application'], ['x', 'role'], ['y', 'service_account'], ['z', 'unknown_type']] as const) {
      expect(fiat.hasPermission('root', name, type, 'WRITE')).toEqual({ allowed: true, reason: 'user root is an admin: admins may do anything on any resource' });
    }
  });

  it('checks accounts against the authorizations of the named account, case-insensitively', () => {
    const fiat = setup();
    expect(fiat.hasPermission('alice', 'PROD', 'account', 'READ')).toEqual({ allowed: true, reason: 'account PROD grants READ to user alice' });
    expect(fiat.hasPermission('alice', 'prod', 'account', 'WRITE')).toEqual({ allowed: false, reason: 'Access denied to account prod - required authorization: WRITE' });
    expect(fiat.hasPermission('alice', 'sandbox', 'account', 'EXECUTE').allowed).toBe(true);
  });

  it('denies applications the user has no authorization on', () => {
    const fiat = setup();
    expect(fiat.hasPermission('alice', 'checkout', 'application', 'WRITE')).toEqual({ allowed: false, reason: 'Access denied to application checkout - required authorization: WRITE' });
    expect(fiat.hasPermission('alice', 'locked', 'application', 'READ').allowed).toBe(false);
    expect(fiat.hasPermission('carol', 'checkout', 'application', 'EXECUTE').allowed).toBe(false);
    expect(fiat.hasPermission('alice', 'checkout', 'application', 'EXECUTE').allowed).toBe(true);
  });

  it('allows unknown applications with allowAccessToUnknownApplications, but not known ones without the authorization', () => {
    const fiat = setup({ fiat: { allowAccessToUnknownApplications: true } });
    expect(fiat.hasPermission('alice', 'not-registered', 'application', 'WRITE').reason).toBe('application not-registered has no permissions for user alice and allowAccessToUnknownApplications is true');
    expect(fiat.hasPermission('alice', 'locked', 'application', 'READ').allowed).toBe(false);
    expect(fiat.getUserPermission('alice').applications).toEqual([
      { name: 'checkout', authorizations: ['READ', 'EXECUTE'] },
      { name: 'locked', authorizations: [] },
    ]);
  });

  it('checks service accounts by membership only, ignoring the authorization', () => {
    const fiat = setup();
    expect(fiat.hasPermission('dave', 'DEPLOY-BOT', 'service_account', 'READ').allowed).toBe(true);
    expect(fiat.hasPermission('alice', 'deploy-bot', 'service_account', 'READ')).toEqual({ allowed: false, reason: 'Access denied to service account deploy-bot' });
  });

  it('lets one role of a service account suffice in orMode', () => {
    expect(setup({ fiat: { roleOrMode: true } }).hasPermission('alice', 'deploy-bot', 'service_account', 'READ').allowed).toBe(true);
  });

  it('checks build services', () => {
    expect(setup().hasPermission('alice', 'jenkins', 'build_service', 'READ').allowed).toBe(true);
    expect(setup().hasPermission('alice', 'jenkins', 'build_services', 'WRITE').allowed).toBe(false);
  });

  it('checks extension types, comparing the type name case-insensitively', () => {
    expect(setup().hasPermission('alice', 'thing', 'MY_EXT', 'READ').allowed).toBe(true);
    expect(setup().hasPermission('carol', 'thing', 'my_ext', 'READ').allowed).toBe(false);
  });

  it('denies roles and unknown types to non-admins, saying why', () => {
    expect(setup().hasPermission('alice', 'dev', 'role', 'READ').reason).toBe('Access denied to role dev - required authorization: READ (only admins have permissions on roles)');
    expect(setup().hasPermission('alice', 'x', 'pipeline', 'READ').reason).toBe('Access denied to pipeline x - required authorization: READ (the permissions of user alice hold no resources of type pipeline)');
  });

  it('check() takes a fiatQuery', async () => {
    const { fiatQuery } = await import('@verdict/spinnaker');
    expect(setup().check(fiatQuery({ user: 'alice', resourceType: 'applications', resourceName: 'checkout', authorization: 'read' })).allowed).toBe(true);
  });
});
