/**
 * `UserPermission.View`: the JSON Fiat's `GET /authorize/{userId}` returns.
 * {@link toView} builds it from a stored {@link UserPermission} for the user's
 * roles; {@link parseView} reads one fetched from a real Fiat.
 */
import { SpinnakerError } from './errors.js';
import { ALL_AUTHORIZATIONS, isAuthorization, type Authorization } from './model.js';
import { authorizationsFor } from './permissions.js';
import type { RoleSource, UserPermission } from './resources.js';

/** An account, application, build service or extension resource in a view. */
export interface AuthorizableView {
  name: string;
  /** The user's authorizations on it (a set; verdict writes them in enum order). */
  authorizations: Authorization[];
}

/** A service account the user may run as. */
export interface ServiceAccountView {
  name: string;
  memberOf: string[];
}

/** A role the user holds. */
export interface RoleView {
  name: string;
  source: RoleSource | null;
}

/** Fiat's `UserPermission.View`, field for field. Sets are arrays (order is not significant). */
export interface UserPermissionView {
  /** The user id, lower-cased. */
  name: string;
  accounts: AuthorizableView[];
  applications: AuthorizableView[];
  serviceAccounts: ServiceAccountView[];
  roles: RoleView[];
  buildServices: AuthorizableView[];
  /** Extension resources by resource type name. */
  extensionResources: Record<string, AuthorizableView[]>;
  admin: boolean;
  accountManager: boolean;
  /** True only for the fallback view a client builds when Fiat cannot be reached. */
  legacyFallback: boolean;
  /** Set by the server from `fiat.allowAccessToUnknownApplications`. */
  allowAccessToUnknownApplications: boolean;
}

const byName = <T extends { name: string }>(a: T, b: T) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * Fiat's `new UserPermission.View(permission)`: every account, application,
 * build service and extension resource with the authorizations the user's roles
 * give (all four for admins), plus service accounts, roles and flags. Lists are
 * sorted by name so equal permissions give equal JSON.
 */
export function toView(permission: UserPermission, options: { allowAccessToUnknownApplications?: boolean; legacyFallback?: boolean } = {}): UserPermissionView {
  const roleNames = new Set(permission.roles.map((r) => r.name));
  const authorizable = (list: readonly { name: string; permissions: Parameters<typeof authorizationsFor>[0] }[]): AuthorizableView[] =>
    list.map((r) => ({ name: r.name, authorizations: permission.admin ? [...ALL_AUTHORIZATIONS] : authorizationsFor(r.permissions, roleNames) })).sort(byName);
  const extensionResources: Record<string, AuthorizableView[]> = {};
  for (const type of Object.keys(permission.extensionResources).sort()) extensionResources[type] = authorizable(permission.extensionResources[type] ?? []);
  return {
    name: permission.id,
    accounts: authorizable(permission.accounts),
    applications: authorizable(permission.applications),
    serviceAccounts: permission.serviceAccounts.map((s) => ({ name: s.name, memberOf: [...s.memberOf] })).sort(byName),
    roles: permission.roles.map((r) => ({ name: r.name, source: r.source })).sort(byName),
    buildServices: authorizable(permission.buildServices),
    extensionResources,
    admin: permission.admin,
    accountManager: permission.accountManager,
    legacyFallback: options.legacyFallback ?? false,
    allowAccessToUnknownApplications: options.allowAccessToUnknownApplications ?? false,
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function list(value: unknown, path: string): unknown[] {
  if (value === null || value === undefined) return [];
  if (!Array.isArray(value)) throw SpinnakerError.invalidView(`expected a list (got ${JSON.stringify(value)})`, path);
  return value;
}

function name(value: Record<string, unknown>, path: string): string {
  if (typeof value['name'] !== 'string') throw SpinnakerError.invalidView(`expected "name" to be a string (got ${JSON.stringify(value['name'])})`, `${path}/name`);
  return value['name'];
}

function authorizables(value: unknown, path: string): AuthorizableView[] {
  return list(value, path).map((item, i) => {
    const at = `${path}/${i}`;
    if (!isObject(item)) throw SpinnakerError.invalidView('expected an object {name, authorizations}', at);
    const auths = list(item['authorizations'], `${at}/authorizations`).map((a, j) => {
      if (!isAuthorization(a)) throw SpinnakerError.invalidView(`unknown authorization ${JSON.stringify(a)}: expected one of READ, WRITE, EXECUTE, CREATE`, `${at}/authorizations/${j}`);
      return a;
    });
    return { name: name(item, at), authorizations: ALL_AUTHORIZATIONS.filter((a) => auths.includes(a)) };
  });
}

function flag(value: Record<string, unknown>, key: string): boolean {
  const v = value[key];
  if (v === undefined || v === null) return false;
  if (typeof v !== 'boolean') throw SpinnakerError.invalidView(`expected "${key}" to be a boolean (got ${JSON.stringify(v)})`, `/${key}`);
  return v;
}

/**
 * Reads a `UserPermission.View` as Fiat serialises it (e.g. the body of
 * `GET /authorize/{userId}` from a real Fiat, as text or parsed JSON). Missing
 * sets are empty and missing flags false; unknown fields are ignored (as
 * Fiat's clients do). Throws `SpinnakerError` `INVALID_VIEW` with a JSON pointer
 * for anything else, e.g. an unknown authorization.
 */
export function parseView(input: unknown): UserPermissionView {
  let value = input;
  if (typeof input === 'string') {
    try {
      value = JSON.parse(input);
    } catch (error) {
      throw SpinnakerError.invalidView(`not JSON: ${(error as Error).message}`);
    }
  }
  if (!isObject(value)) throw SpinnakerError.invalidView(`a UserPermission.View must be an object (got ${value === null ? 'null' : Array.isArray(value) ? 'a list' : typeof value})`);
  const extensions = value['extensionResources'];
  if (extensions !== undefined && extensions !== null && !isObject(extensions)) throw SpinnakerError.invalidView('expected a map of resource type to resources', '/extensionResources');
  const extensionResources: Record<string, AuthorizableView[]> = {};
  for (const [type, items] of Object.entries(extensions ?? {})) extensionResources[type] = authorizables(items, `/extensionResources/${type}`);
  return {
    name: name(value, ''),
    accounts: authorizables(value['accounts'], '/accounts'),
    applications: authorizables(value['applications'], '/applications'),
    serviceAccounts: list(value['serviceAccounts'], '/serviceAccounts').map((item, i) => {
      if (!isObject(item)) throw SpinnakerError.invalidView('expected an object {name, memberOf}', `/serviceAccounts/${i}`);
      const memberOf = list(item['memberOf'], `/serviceAccounts/${i}/memberOf`).map((m) => String(m));
      return { name: name(item, `/serviceAccounts/${i}`), memberOf };
    }),
    roles: list(value['roles'], '/roles').map((item, i) => {
      if (!isObject(item)) throw SpinnakerError.invalidView('expected an object {name, source}', `/roles/${i}`);
      const source = item['source'];
      return { name: name(item, `/roles/${i}`), source: typeof source === 'string' ? source : null };
    }),
    buildServices: authorizables(value['buildServices'], '/buildServices'),
    extensionResources,
    admin: flag(value, 'admin'),
    accountManager: flag(value, 'accountManager'),
    legacyFallback: flag(value, 'legacyFallback'),
    allowAccessToUnknownApplications: flag(value, 'allowAccessToUnknownApplications'),
  };
}
