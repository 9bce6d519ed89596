import { describe, expect, it } from 'vitest';
import { UNRESTRICTED_USER, createFiatResolver, createPermissionEvaluator, prefixPermissionSource, chaosMonkeyPermissionSource, type FiatDefinitions, type PermissionEvaluatorConfig } from '@verdict/spinnaker';
import { getUserPermission } from '../src/evaluator.js';

function setup(definitions: FiatDefinitions, config: Omit<PermissionEvaluatorConfig, 'definitions'> = {}) {
  return createPermissionEvaluator({ definitions, ...config });
}

describe('resolution: roles and admins', () => {
  it('lower-cases role names and keeps their source', () => {
    const view = setup({ users: { Bob: ['Dev-Team', { name: 'OPS', source: 'LDAP' }] } }).getUserPermission('BOB');
    expect(view.name).toBe('bob');
    expect(view.roles).toEqual([{ name: 'dev-team', source: null }, { name: 'ops', source: 'LDAP' }]);
  });

  it('normalises fiat.admin.roles (lower-cased, trimmed)', () => {
    expect(setup({ users: { bob: ['sre'] } }, { fiat: { adminRoles: ['  SRE '] } }).getUserPermission('bob').admin).toBe(true);
  });

  it('does not normalise account-manager roles, so an upper-case role never matches (as in Fiat)', () => {
    const users = { bob: ['sre'] };
    expect(setup({ users }, { fiat: { accountManagerRoles: ['SRE'] } }).getUserPermission('bob').accountManager).toBe(false);
    expect(setup({ users }, { fiat: { accountManagerRoles: ['sre'] } }).getUserPermission('bob').accountManager).toBe(true);
  });

  it('gives admins every restricted resource with all authorizations, and every service account that has roles', () => {
    const view = setup({
      users: { root: ['admins'] },
      applications: [{ name: 'secret', permissions: { READ: ['x'] } }],
      serviceAccounts: [{ name: 'bot', memberOf: ['x'] }, { name: 'orphan', memberOf: [] }],
    }, { fiat: { adminRoles: ['admins'] } }).getUserPermission('root');
    expect(view.applications).toEqual([{ name: 'secret', authorizations: ['READ', 'WRITE', 'EXECUTE', 'CREATE'] }]);
    expect(view.serviceAccounts.map((s) => s.name)).toEqual(['bot']);
  });
});

describe('resolution: applications', () => {
  const apps: FiatDefinitions = {
    users: { dev: ['dev'], ops: ['ops'] },
    applications: [
      { name: 'both', permissions: { READ: ['dev'], WRITE: ['ops'] } },
      { name: 'own-execute', permissions: { READ: ['dev'], EXECUTE: ['ops'] } },
      { name: 'with-create', permissions: { READ: ['dev'], CREATE: ['dev'] } },
      { name: 'legacy', requiredGroupMembership: ['Ops'] },
    ],
  };

  it('copies READ to EXECUTE by default (executeFallback READ)', () => {
    const fiat = setup(apps);
    expect(fiat.hasPermission('dev', 'both', 'application', 'EXECUTE').allowed).toBe(true);
    expect(fiat.hasPermission('ops', 'both', 'application', 'EXECUTE').allowed).toBe(false);
  });

  it('copies WRITE to EXECUTE with executeFallback WRITE', () => {
    const fiat = setup(apps, { fiat: { executeFallback: 'write' } });
    expect(fiat.hasPermission('dev', 'both', 'application', 'EXECUTE').allowed).toBe(false);
    expect(fiat.hasPermission('ops', 'both', 'application', 'EXECUTE').allowed).toBe(true);
  });

  it('leaves an explicit EXECUTE alone', () => {
    expect(setup(apps).hasPermission('dev', 'own-execute', 'application', 'EXECUTE').allowed).toBe(false);
  });

  it('rejects an executeFallback other than READ or WRITE', () => {
    expect(() => setup(apps, { fiat: { executeFallback: 'EXECUTE' as 'READ' } })).toThrow('executeFallback must be READ or WRITE');
  });

  it('strips CREATE from an application\'s own permissions', () => {
    expect(setup(apps).getUserPermission('dev').applications.find((a) => a.name === 'with-create')?.authorizations).toEqual(['READ', 'EXECUTE']);
  });

  it('turns legacy requiredGroupMembership into READ and WRITE', () => {
    expect(setup(apps).getUserPermission('ops').applications.find((a) => a.name === 'legacy')?.authorizations).toEqual(['READ', 'WRITE', 'EXECUTE']);
  });
});

describe('resolution: prefix sources', () => {
  const definitions: FiatDefinitions = {
    users: { dev: ['gotham-devs'], boss: ['gotham-leads'], lead: ['app-leads'], admin: ['spinnaker-admins'], other: ['other'] },
    applications: [{ name: 'gothamweb' }, { name: 'GOTHAMAPI' }, { name: 'metropolis' }],
  };
  const prefixes = [
    { prefix: 'gotham*', permissions: { READ: ['gotham-devs'], WRITE: ['gotham-devs'] } },
    { prefix: 'gothamweb', permissions: { WRITE: ['gotham-leads'] } },
    { prefix: '*', permissions: { CREATE: ['spinnaker-admins'] } },
  ];

  it('AGGREGATE unions every matching entry, compares names case-insensitively, and keeps CREATE', () => {
    const fiat = setup(definitions, { permissionSources: [prefixPermissionSource({ prefixes })] });
    expect(fiat.hasPermission('dev', 'gothamapi', 'application', 'WRITE').allowed).toBe(true);
    expect(fiat.hasPermission('boss', 'gothamweb', 'application', 'WRITE').allowed).toBe(true);
    expect(fiat.hasPermission('dev', 'gothamweb', 'application', 'WRITE').allowed).toBe(true);
    expect(fiat.getUserPermission('admin').applications.map((a) => [a.name, a.authorizations])).toEqual([
      ['GOTHAMAPI', ['CREATE']], ['gothamweb', ['CREATE']], ['metropolis', ['CREATE']],
    ]);
    // `*` with CREATE restricts every application: users without a matching role lose access.
    expect(fiat.hasPermission('other', 'metropolis', 'application', 'READ').allowed).toBe(false);
  });

  it('MOST_SPECIFIC takes the full name over any prefix, else the longest prefix', () => {
    const source = prefixPermissionSource({ prefixes: [...prefixes, { prefix: 'gothamw*', permissions: { READ: ['app-leads'] } }], resolutionStrategy: 'MOST_SPECIFIC' });
    const fiat = setup(definitions, { permissionSources: [source] });
    expect(fiat.hasPermission('dev', 'gothamweb', 'application', 'READ').allowed).toBe(false);
    expect(fiat.hasPermission('boss', 'gothamweb', 'application', 'WRITE').allowed).toBe(true);
    expect(fiat.hasPermission('dev', 'gothamapi', 'application', 'READ').allowed).toBe(true);
    expect(source.getPermissions({ type: 'application', name: 'gothamwiki', attributes: {}, permissions: {} })).toEqual({ READ: ['app-leads'] });
  });

  it('rejects a prefix entry without a prefix', () => {
    expect(() => prefixPermissionSource({ prefixes: [{ prefix: '', permissions: {} }] })).toThrow('must either end with * or be a full application name');
  });

  it('adds chaos monkey roles to restricted applications that enable it', () => {
    const fiat = setup({
      users: { chaos: ['chaos-team'] },
      applications: [
        { name: 'opted-in', permissions: { READ: ['dev'] }, details: { chaosMonkey: { enabled: true } } },
        { name: 'opted-out', permissions: { READ: ['dev'] }, details: { chaosMonkey: { enabled: false } } },
      ],
    }, { permissionSources: [chaosMonkeyPermissionSource({ roles: ['chaos-team'] })] });
    expect(fiat.hasPermission('chaos', 'opted-in', 'application', 'WRITE').allowed).toBe(true);
    expect(fiat.hasPermission('chaos', 'opted-out', 'application', 'READ').allowed).toBe(false);
  });
});

describe('resolution: application creation', () => {
  const definitions: FiatDefinitions = { users: { admin: ['spinnaker-admins'], dev: ['dev'], root: ['root'] } };
  const sources = [prefixPermissionSource({ prefixes: [{ prefix: '*', permissions: { CREATE: ['spinnaker-admins'] } }] })];

  it('lets anyone create applications unless restrictApplicationCreation is set', () => {
    expect(setup(definitions).canCreate('dev', 'application', { name: 'new' }).allowed).toBe(true);
  });

  it('with restrictApplicationCreation, allows CREATE from the prefix source and admins only', () => {
    const fiat = setup(definitions, { permissionSources: sources, fiat: { restrictApplicationCreation: true, adminRoles: ['root'] } });
    expect(fiat.canCreate('admin', 'application', { name: 'new' })).toEqual({ allowed: true, reason: 'application new grants CREATE to user admin' });
    expect(fiat.canCreate('dev', 'application', { name: 'new', permissions: { CREATE: ['dev'] } })).toEqual({ allowed: false, reason: 'Access denied to application new - required authorization: CREATE' });
    expect(fiat.canCreate('root', 'application', { name: 'new' }).allowed).toBe(true);
    expect(fiat.canCreate('nobody', 'application', { name: 'new' }).reason).toBe('cannot decide whether user nobody may create application: user not found: nobody');
  });

  it('allows creating an application whose resulting permissions are unrestricted', () => {
    expect(setup(definitions, { fiat: { restrictApplicationCreation: true } }).canCreate('dev', 'application', { name: 'new' }).allowed).toBe(true);
  });

  it('refuses creation checks for other types', () => {
    expect(setup(definitions).canCreate('dev', 'account', { name: 'x' }).allowed).toBe(false);
  });
});

describe('resolution: the unrestricted user', () => {
  const definitions: FiatDefinitions = {
    users: { alice: ['dev'] },
    accounts: [{ name: 'open' }, { name: 'closed', permissions: { READ: ['ops'] } }],
    applications: [{ name: 'open-app' }],
    unrestrictedRoles: ['everyone'],
  };

  it('holds every unrestricted resource and is merged into every user', () => {
    const resolver = createFiatResolver({ definitions });
    expect(resolver.resolveUnrestrictedUser().accounts.map((a) => a.name)).toEqual(['open']);
    expect(resolver.resolve('alice')?.accounts).toEqual([]);
    expect(resolver.getUserPermission('alice')?.accounts.map((a) => a.name)).toEqual(['open']);
    expect(resolver.userIds()).toEqual(['alice', UNRESTRICTED_USER]);
  });

  it('passes its roles on to every user', () => {
    expect(setup(definitions).getUserPermission('alice').roles.map((r) => r.name)).toEqual(['dev', 'everyone']);
  });

  it('keeps the user\'s own copy of a resource the unrestricted user also has', () => {
    const resolver = createFiatResolver({ definitions: { users: { alice: ['dev'] }, accounts: [{ name: 'shared', permissions: { READ: ['dev'] } }] } });
    const own = resolver.getUserPermission('alice')!;
    expect(own.accounts).toHaveLength(1);
    expect(own.accounts[0]!.permissions).toEqual({ READ: ['dev'] });
  });

  it('answers for anonymous with the unrestricted user', () => {
    expect(setup(definitions).getUserPermission('Anonymous').name).toBe(UNRESTRICTED_USER);
  });

  it('404s unknown users unless defaultToUnrestrictedUser, which copies the unrestricted user under their id', () => {
    expect(() => setup(definitions).getUserPermission('mallory')).toThrow('user not found: mallory');
    const view = getUserPermission({ definitions, fiat: { defaultToUnrestrictedUser: true } }, 'Mallory');
    expect(view.name).toBe('mallory');
    expect(view.accounts.map((a) => a.name)).toEqual(['open']);
  });
});

describe('resolution: service accounts', () => {
  const definitions: FiatDefinitions = {
    users: { dev: ['dev'], both: ['dev', 'ops'] },
    serviceAccounts: [{ name: 'Deploy-Bot@managed', memberOf: [' Dev ', 'OPS'] }, { name: 'blank', memberOf: ['dev', ' '] }],
  };

  it('trims and lower-cases memberOf, keeping blank entries', () => {
    const view = setup(definitions, { fiat: { adminRoles: ['ops'] } }).getUserPermission('both');
    expect(view.serviceAccounts).toEqual([{ name: 'Deploy-Bot@managed', memberOf: ['dev', 'ops'] }, { name: 'blank', memberOf: ['dev', ''] }]);
  });

  it('needs every role (default) or any role (orMode); a blank entry can never be held', () => {
    expect(setup(definitions).getUserPermission('dev').serviceAccounts).toEqual([]);
    expect(setup(definitions).getUserPermission('both').serviceAccounts.map((s) => s.name)).toEqual(['Deploy-Bot@managed']);
    expect(setup(definitions, { fiat: { roleOrMode: true } }).getUserPermission('dev').serviceAccounts.map((s) => s.name)).toEqual(['Deploy-Bot@managed', 'blank']);
  });

  it('is a user of its own whose roles are its non-blank memberOf, with source EXTERNAL', () => {
    const view = setup(definitions).getUserPermission('deploy-bot@managed');
    expect(view.roles).toEqual([{ name: 'dev', source: 'EXTERNAL' }, { name: 'ops', source: 'EXTERNAL' }]);
    expect(view.serviceAccounts.map((s) => s.name)).toEqual(['Deploy-Bot@managed']);
  });
});

describe('definitions', () => {
  it('report the first problem with its JSON pointer', () => {
    expect(() => setup({ applications: [{ name: 'a', permissions: { READ: 'dev' as unknown as string[] } }] })).toThrow('permissions at /applications/0/permissions/READ must be a list of role names');
    expect(() => setup({ applications: [{ name: 'a' }, { name: 'A' }] })).toThrow('/applications/1: application "A" is defined twice');
    expect(() => setup({ extensionResources: { accounts: [] } })).toThrow('"account" is a built-in resource type');
  });

  it('need exactly one source of permissions', () => {
    expect(() => createPermissionEvaluator({})).toThrow('give exactly one of definitions, source or views (got none)');
  });
});

describe('stored resources', () => {
  it('ignore keys that could reach prototypes', async () => {
    const { toResource } = await import('../src/resources.js');
    const app = toResource('application', JSON.parse('{"name":"a","__proto__":{"polluted":true},"details":{"constructor":1,"email":"x"}}')) as { details: Record<string, unknown> };
    expect(Object.getPrototypeOf(app.details)).toBe(Object.prototype);
    expect(app.details).toEqual({ email: 'x' });
    expect((app.details as { polluted?: unknown }).polluted).toBeUndefined();
  });
});
