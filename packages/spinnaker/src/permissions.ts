/**
 * Fiat's `Permissions`: a map of authorization to role names. Role names are
 * trimmed and lower-cased, empty names and empty lists dropped; a map with no
 * role at all is unrestricted, and an unrestricted resource grants all four
 * authorizations (CREATE included) to everyone.
 */
import { SpinnakerError } from './errors.js';
import { AUTHORIZATIONS, parseAuthorization, type Authorization } from './model.js';

/** A normalised permissions map (`{READ: ["dev-team"], WRITE: ["ops"]}`); `{}` is unrestricted. */
export type Permissions = Readonly<Partial<Record<Authorization, readonly string[]>>>;

/** Fiat's `Permissions.EMPTY` (unrestricted). */
export const EMPTY_PERMISSIONS: Permissions = Object.freeze({});

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Normalises a permissions map as Fiat's `Permissions.Builder` does. Keys are
 * parsed like `Authorization.parse` (`read` → READ); `null` or a missing map is
 * unrestricted. Throws `SpinnakerError` (`INVALID_AUTHORIZATION`, `INVALID_CONFIG`)
 * naming the JSON pointer `path` of the bad entry.
 */
export function normalizePermissions(input: unknown, path = ''): Permissions {
  if (input === null || input === undefined) return EMPTY_PERMISSIONS;
  if (!isObject(input)) throw SpinnakerError.invalidConfig(`permissions at ${path || '/'} must be a map of authorization to role names (got ${JSON.stringify(input)})`, path);
  const sets = new Map<Authorization, Set<string>>();
  for (const [key, roles] of Object.entries(input)) {
    let auth: Authorization | null;
    try {
      auth = parseAuthorization(key);
    } catch {
      throw SpinnakerError.invalidAuthorization(key, `${path}/${key}`);
    }
    if (auth === null || roles === null || roles === undefined) continue;
    if (!Array.isArray(roles)) throw SpinnakerError.invalidConfig(`permissions at ${path}/${key} must be a list of role names (got ${JSON.stringify(roles)})`, `${path}/${key}`);
    const set = sets.get(auth) ?? new Set<string>();
    roles.forEach((role, i) => {
      if (typeof role !== 'string') throw SpinnakerError.invalidConfig(`role at ${path}/${key}/${i} must be a string (got ${JSON.stringify(role)})`, `${path}/${key}/${i}`);
      const name = role.trim().toLowerCase();
      if (name !== '') set.add(name);
    });
    sets.set(auth, set);
  }
  return build(sets);
}

function build(sets: ReadonlyMap<Authorization, ReadonlySet<string>>): Permissions {
  const out: Partial<Record<Authorization, readonly string[]>> = {};
  for (const auth of AUTHORIZATIONS) {
    const set = sets.get(auth);
    if (set && set.size > 0) out[auth] = Object.freeze([...set]);
  }
  return Object.keys(out).length === 0 ? EMPTY_PERMISSIONS : Object.freeze(out);
}

/** The roles granted `authorization` (`[]` when none). */
export function rolesFor(permissions: Permissions, authorization: Authorization): readonly string[] {
  return permissions[authorization] ?? [];
}

/** Fiat's `isRestricted()`: some authorization names at least one role. */
export function isRestricted(permissions: Permissions): boolean {
  return AUTHORIZATIONS.some((a) => (permissions[a]?.length ?? 0) > 0);
}

/**
 * Fiat's `getAuthorizations(roles)`: all four when unrestricted, otherwise the
 * authorizations whose roles intersect `roleNames` (compared exactly; Fiat role names are lower-case).
 */
export function authorizationsFor(permissions: Permissions, roleNames: Iterable<string>): Authorization[] {
  if (!isRestricted(permissions)) return [...AUTHORIZATIONS];
  const roles = roleNames instanceof Set ? (roleNames as Set<string>) : new Set(roleNames);
  return AUTHORIZATIONS.filter((a) => (permissions[a] ?? []).some((r) => roles.has(r)));
}

/**
 * Fiat's aggregating provider: the union of every restricted map, role lists
 * merged as an ordered union. Unrestricted maps contribute nothing.
 */
export function unionPermissions(list: readonly Permissions[]): Permissions {
  const sets = new Map<Authorization, Set<string>>();
  for (const permissions of list) {
    if (!isRestricted(permissions)) continue;
    for (const auth of AUTHORIZATIONS) {
      for (const role of permissions[auth] ?? []) {
        const set = sets.get(auth) ?? new Set<string>();
        set.add(role);
        sets.set(auth, set);
      }
    }
  }
  return build(sets);
}

/** A copy without CREATE (Fiat strips CREATE from an application's own permissions). */
export function withoutCreate(permissions: Permissions): Permissions {
  if (!permissions.CREATE) return permissions;
  const { CREATE: _dropped, ...rest } = permissions;
  return Object.keys(rest).length === 0 ? EMPTY_PERMISSIONS : Object.freeze(rest);
}

/**
 * Fiat's `DefaultFallbackPermissionsResolver(EXECUTE, fallback)`: when the map is
 * restricted and EXECUTE is empty, EXECUTE gets the roles of `fallback` (READ or WRITE).
 */
export function withExecuteFallback(permissions: Permissions, fallback: 'READ' | 'WRITE'): Permissions {
  if (!isRestricted(permissions) || (permissions.EXECUTE?.length ?? 0) > 0) return permissions;
  const roles = permissions[fallback];
  if (!roles || roles.length === 0) return permissions;
  const out: Partial<Record<Authorization, readonly string[]>> = {};
  for (const auth of AUTHORIZATIONS) {
    const list = auth === 'EXECUTE' ? roles : permissions[auth];
    if (list && list.length > 0) out[auth] = list;
  }
  return Object.freeze(out);
}

/**
 * Fiat's legacy `requiredGroupMembership`: a non-empty list sets READ and WRITE to
 * those groups, unless the permissions are already restricted (then it is ignored).
 */
export function withRequiredGroupMembership(permissions: Permissions, groups: readonly string[] | null | undefined, path = ''): Permissions {
  if (!groups || groups.length === 0 || isRestricted(permissions)) return permissions;
  return normalizePermissions({ READ: groups, WRITE: groups }, path);
}

/** The JSON Fiat writes: enum names as keys, in enum order, only non-empty lists. */
export function permissionsToJSON(permissions: Permissions): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const auth of AUTHORIZATIONS) {
    const roles = permissions[auth];
    if (roles && roles.length > 0) out[auth] = [...roles];
  }
  return out;
}
