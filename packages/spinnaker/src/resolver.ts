/**
 * Fiat's server-side resolution from definitions: roles, admin and
 * account-manager flags, each provider's restricted and unrestricted
 * resources, execute fallback, the unrestricted user, and the merge a
 * repository read performs.
 */
import { SpinnakerError } from './errors.js';
import { normalizeDefinitions, type Catalog, type FiatDefinitions } from './definitions.js';
import { RESOURCE_TYPES, UNRESTRICTED_USER, parseAuthorization, type ResourceType } from './model.js';
import { authorizationsFor, isRestricted, withExecuteFallback, type Permissions } from './permissions.js';
import {
  emptyUserPermission, mergeUserPermission, type AccountResource, type ApplicationResource, type AuthorizableResource, type RoleResource,
  type ServiceAccountResource, type UserPermission,
} from './resources.js';
import { providerPermissions, type ResourcePermissionSource, type ResourceRef } from './sources.js';

/** Fiat's server settings (`fiat.*`). Every flag defaults to Fiat's default. */
export interface FiatConfig {
  /** `fiat.admin.roles`: holders of any of these roles are admins (trimmed and lower-cased). Default none. */
  adminRoles?: readonly string[];
  /** `fiat.account.manager.roles`: compared as configured (Fiat does not lower-case them, so `SRE` never matches). */
  accountManagerRoles?: readonly string[];
  /** `fiat.executeFallback`: READ (default) or WRITE, copied to EXECUTE of restricted applications without EXECUTE. */
  executeFallback?: 'READ' | 'WRITE' | 'read' | 'write';
  /** `fiat.allowAccessToUnknownApplications` (default false). */
  allowAccessToUnknownApplications?: boolean;
  /** `fiat.restrictApplicationCreation` (default false: anyone may create applications). */
  restrictApplicationCreation?: boolean;
  /** `fiat.defaultToUnrestrictedUser` (default false): unknown users get the unrestricted user's permissions. */
  defaultToUnrestrictedUser?: boolean;
  /** `fiat.role.orMode` (default false: a service account needs all of its roles; true: any one). */
  roleOrMode?: boolean;
}

/** Fiat's settings with defaults applied. */
export interface ResolvedFiatConfig {
  adminRoles: ReadonlySet<string>;
  accountManagerRoles: ReadonlySet<string>;
  executeFallback: 'READ' | 'WRITE';
  allowAccessToUnknownApplications: boolean;
  restrictApplicationCreation: boolean;
  defaultToUnrestrictedUser: boolean;
  roleOrMode: boolean;
}

/** Applies Fiat's defaults and normalisation to {@link FiatConfig}. */
export function resolveFiatConfig(config: FiatConfig = {}): ResolvedFiatConfig {
  let fallback: 'READ' | 'WRITE' = 'READ';
  if (config.executeFallback !== undefined) {
    const parsed = parseAuthorization(config.executeFallback);
    if (parsed !== 'READ' && parsed !== 'WRITE') throw SpinnakerError.invalidConfig(`executeFallback must be READ or WRITE (got ${JSON.stringify(config.executeFallback)})`, '/executeFallback');
    fallback = parsed;
  }
  return {
    adminRoles: new Set((config.adminRoles ?? []).map((r) => r.toLowerCase().trim())),
    accountManagerRoles: new Set(config.accountManagerRoles ?? []),
    executeFallback: fallback,
    allowAccessToUnknownApplications: config.allowAccessToUnknownApplications === true,
    restrictApplicationCreation: config.restrictApplicationCreation === true,
    defaultToUnrestrictedUser: config.defaultToUnrestrictedUser === true,
    roleOrMode: config.roleOrMode === true,
  };
}

/**
 * Where a client's "Fiat" finds a user's permissions: Fiat's
 * `PermissionsRepository.get`. Returns the user's stored permissions already
 * merged with `__unrestricted_user__`, `undefined` for an unknown user; throws
 * when the source fails.
 */
export interface PermissionSource {
  getUserPermission(userId: string): UserPermission | undefined;
}

/** Resolution from definitions; also a {@link PermissionSource}. */
export interface FiatResolver extends PermissionSource {
  /** Fiat's `resolve(userId)`: the user's own permissions, not merged; `undefined` for unknown users. */
  resolve(userId: string): UserPermission | undefined;
  /** Fiat's `resolveUnrestrictedUser()`: unrestricted resources (and restricted ones its roles reach). */
  resolveUnrestrictedUser(): UserPermission;
  /** Every user id Fiat would store: users, service accounts (as users) and `__unrestricted_user__`. */
  userIds(): string[];
  /** The settings in force. */
  readonly config: ResolvedFiatConfig;
}

interface Resolved {
  accounts: AccountResource[];
  applications: ApplicationResource[];
  buildServices: AuthorizableResource[];
  extensions: Map<ResourceType, AuthorizableResource[]>;
}

/** Options of {@link createFiatResolver}. */
export interface ResolverOptions {
  definitions: FiatDefinitions;
  fiat?: FiatConfig;
  /** Extra permission sources, unioned with each resource's own permissions (Fiat's aggregate provider). */
  permissionSources?: readonly ResourcePermissionSource[];
}

/**
 * Builds Fiat's resolution over in-memory definitions. Definitions are checked
 * now (throws `INVALID_CONFIG`); permission sources run on first use, and a
 * failing source makes every lookup throw `SOURCE_FAILURE` until it succeeds.
 */
export function createFiatResolver(options: ResolverOptions): FiatResolver {
  const catalog: Catalog = normalizeDefinitions(options.definitions);
  const config = resolveFiatConfig(options.fiat);
  const sources = options.permissionSources ?? [];
  let resolved: Resolved | undefined;
  let unrestricted: UserPermission | undefined;

  const effective = (ref: ResourceRef): Permissions => {
    const permissions = providerPermissions(ref, sources);
    return ref.type === RESOURCE_TYPES.APPLICATION ? withExecuteFallback(permissions, config.executeFallback) : permissions;
  };
  const load = (): Resolved => {
    if (resolved) return resolved;
    const out: Resolved = { accounts: [], applications: [], buildServices: [], extensions: new Map() };
    for (const ref of catalog.resources) {
      const permissions = effective(ref);
      if (ref.type === RESOURCE_TYPES.ACCOUNT) out.accounts.push({ ...catalog.accounts.get(ref)!, permissions });
      else if (ref.type === RESOURCE_TYPES.APPLICATION) out.applications.push({ name: ref.name, permissions, details: ref.attributes });
      else if (ref.type === RESOURCE_TYPES.BUILD_SERVICE) out.buildServices.push({ name: ref.name, permissions });
      else out.extensions.set(ref.type, [...(out.extensions.get(ref.type) ?? []), { name: ref.name, permissions }]);
    }
    // With allowAccessToUnknownApplications Fiat keeps only restricted applications.
    if (config.allowAccessToUnknownApplications) out.applications = out.applications.filter((a) => isRestricted(a.permissions));
    resolved = out;
    return out;
  };

  const canUse = (sa: ServiceAccountResource, roleNames: ReadonlySet<string>, admin: boolean): boolean => {
    if (sa.memberOf.length === 0) return false;
    if (admin) return true;
    return config.roleOrMode ? sa.memberOf.some((m) => roleNames.has(m)) : sa.memberOf.every((m) => roleNames.has(m));
  };

  const build = (id: string, roles: readonly RoleResource[]): UserPermission => {
    const all = load();
    const roleNames = new Set(roles.map((r) => r.name));
    const admin = roles.some((r) => config.adminRoles.has(r.name));
    const accountManager = roles.some((r) => config.accountManagerRoles.has(r.name));
    const isUnrestrictedUser = id === UNRESTRICTED_USER;
    const pick = <T extends { permissions: Permissions }>(list: readonly T[], allRestricted = false): T[] =>
      list.filter((r) => (isRestricted(r.permissions)
        ? allRestricted || admin || authorizationsFor(r.permissions, roleNames).length > 0
        : isUnrestrictedUser));
    const extensionResources: Record<string, AuthorizableResource[]> = {};
    for (const [type, list] of all.extensions) {
      const picked = pick(list);
      if (picked.length > 0) extensionResources[type] = picked;
    }
    return {
      ...emptyUserPermission(id),
      accounts: pick(all.accounts),
      // allowAccessToUnknownApplications: every restricted application, whatever the roles (Fiat's getAll()).
      applications: pick(all.applications, config.allowAccessToUnknownApplications),
      serviceAccounts: catalog.serviceAccounts.filter((sa) => canUse(sa, roleNames, admin)),
      roles: [...roles],
      buildServices: pick(all.buildServices),
      extensionResources,
      admin,
      accountManager,
    };
  };

  const resolve = (userId: string): UserPermission | undefined => {
    const id = userId.toLowerCase();
    if (id === UNRESTRICTED_USER) return resolveUnrestrictedUser();
    const account = catalog.serviceAccounts.find((sa) => sa.name.toLowerCase() === id);
    if (account) {
      const roles = account.memberOf.filter((m) => m.trim() !== '').map((name) => ({ name, source: 'EXTERNAL' }));
      return build(id, roles.filter((r, i) => roles.findIndex((x) => x.name === r.name) === i));
    }
    const roles = catalog.users.get(id);
    return roles === undefined ? undefined : build(id, roles);
  };
  const resolveUnrestrictedUser = (): UserPermission => (unrestricted ??= build(UNRESTRICTED_USER, catalog.unrestrictedRoles));

  return {
    config,
    resolve,
    resolveUnrestrictedUser,
    userIds: () => [...new Set([...catalog.users.keys(), ...catalog.serviceAccounts.map((sa) => sa.name.toLowerCase()), UNRESTRICTED_USER])],
    getUserPermission(userId) {
      const own = resolve(userId);
      if (!own || own.id === UNRESTRICTED_USER) return own;
      return mergeUserPermission(own, resolveUnrestrictedUser());
    },
  };
}
