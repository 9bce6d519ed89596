/**
 * Fiat's stored model: a user's resources (what `PermissionsRepository.get`
 * returns and Redis holds), before they are turned into a view for the user's roles.
 */
import { isForbiddenKey } from '@verdict/core';
import { SpinnakerError } from './errors.js';
import { RESOURCE_TYPES, parseResourceType, type ResourceType } from './model.js';
import { EMPTY_PERMISSIONS, normalizePermissions, permissionsToJSON, withRequiredGroupMembership, type Permissions } from './permissions.js';

/** An account (`cloudProvider` is part of its identity, as in Fiat). */
export interface AccountResource {
  readonly name: string;
  readonly cloudProvider?: string;
  readonly permissions: Permissions;
}

/** An application; `details` holds Front50's other fields. */
export interface ApplicationResource {
  readonly name: string;
  readonly permissions: Permissions;
  readonly details: Readonly<Record<string, unknown>>;
}

/** A build service or an extension resource. */
export interface AuthorizableResource {
  readonly name: string;
  readonly permissions: Permissions;
}

/** A service account: users holding its `memberOf` roles may run as it. */
export interface ServiceAccountResource {
  readonly name: string;
  /** Trimmed and lower-cased; blank entries are kept, as in Fiat. */
  readonly memberOf: readonly string[];
}

/** Where a role came from (Fiat's `Role.Source`); `null` when unknown. */
export type RoleSource = 'EXTERNAL' | 'FILE' | 'GOOGLE_GROUPS' | 'GITHUB_TEAMS' | 'LDAP' | (string & {});

/** A role held by a user; the name is lower-cased. */
export interface RoleResource {
  readonly name: string;
  readonly source: RoleSource | null;
}

/**
 * Fiat's `UserPermission`: one user's resources, roles and flags as the
 * permissions repository stores them. `id` is lower-cased.
 */
export interface UserPermission {
  readonly id: string;
  readonly accounts: readonly AccountResource[];
  readonly applications: readonly ApplicationResource[];
  readonly serviceAccounts: readonly ServiceAccountResource[];
  readonly roles: readonly RoleResource[];
  readonly buildServices: readonly AuthorizableResource[];
  /** Extension resources by (lower-case) resource type name. */
  readonly extensionResources: Readonly<Record<string, readonly AuthorizableResource[]>>;
  readonly admin: boolean;
  readonly accountManager: boolean;
}

/** An empty `UserPermission` for `id` (lower-cased). */
export function emptyUserPermission(id: string): UserPermission {
  return { id: id.toLowerCase(), accounts: [], applications: [], serviceAccounts: [], roles: [], buildServices: [], extensionResources: {}, admin: false, accountManager: false };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}


/** A shallow copy without keys that could reach prototypes (stored JSON is not trusted). */
export function safeCopy(value: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) if (!isForbiddenKey(key)) out[key] = v;
  return out;
}

function stringField(value: Record<string, unknown>, key: string, path: string): string {
  const v = value[key];
  if (typeof v !== 'string' || v === '') throw SpinnakerError.invalidConfig(`${path}/${key} must be a non-empty string (got ${JSON.stringify(v)})`, `${path}/${key}`);
  return v;
}

function groups(value: unknown, path: string): string[] | undefined {
  if (value === null || value === undefined) return undefined;
  if (!Array.isArray(value) || value.some((g) => typeof g !== 'string')) throw SpinnakerError.invalidConfig(`${path} must be a list of role names`, path);
  return value as string[];
}

/** Role: the name lower-cased (Fiat's `Role.setName`), the source kept. */
export function toRole(input: unknown, path = ''): RoleResource {
  if (typeof input === 'string') return { name: input.toLowerCase(), source: null };
  if (!isObject(input)) throw SpinnakerError.invalidConfig(`role at ${path || '/'} must be a name or {name, source}`, path);
  const source = input['source'];
  if (source !== undefined && source !== null && typeof source !== 'string') throw SpinnakerError.invalidConfig(`${path}/source must be a string`, `${path}/source`);
  return { name: stringField(input, 'name', path).toLowerCase(), source: (source as string | undefined) ?? null };
}

/** Service account: `memberOf` trimmed and lower-cased, blank entries kept (Fiat's `ServiceAccount.setMemberOf`). */
export function toServiceAccount(input: unknown, path = ''): ServiceAccountResource {
  if (!isObject(input)) throw SpinnakerError.invalidConfig(`service account at ${path || '/'} must be an object {name, memberOf}`, path);
  const memberOf = groups(input['memberOf'], `${path}/memberOf`) ?? [];
  return { name: stringField(input, 'name', path), memberOf: memberOf.map((m) => m.trim().toLowerCase()) };
}

/** Account, application, build service or extension resource from Fiat's JSON (or a definition). */
export function toResource(type: ResourceType, input: unknown, path = ''): AccountResource | ApplicationResource | AuthorizableResource {
  if (!isObject(input)) throw SpinnakerError.invalidConfig(`${type} at ${path || '/'} must be an object with a name`, path);
  const name = stringField(input, 'name', path);
  let permissions = normalizePermissions(input['permissions'], `${path}/permissions`);
  if (type === RESOURCE_TYPES.ACCOUNT || type === RESOURCE_TYPES.APPLICATION) {
    permissions = withRequiredGroupMembership(permissions, groups(input['requiredGroupMembership'], `${path}/requiredGroupMembership`), `${path}/requiredGroupMembership`);
  }
  if (type === RESOURCE_TYPES.ACCOUNT) {
    const cloudProvider = input['cloudProvider'];
    if (cloudProvider !== undefined && cloudProvider !== null && typeof cloudProvider !== 'string') throw SpinnakerError.invalidConfig(`${path}/cloudProvider must be a string`, `${path}/cloudProvider`);
    return typeof cloudProvider === 'string' ? { name, cloudProvider, permissions } : { name, permissions };
  }
  if (type === RESOURCE_TYPES.APPLICATION) {
    const details = safeCopy(isObject(input['details']) ? input['details'] : {});
    for (const [key, value] of Object.entries(input)) {
      if (!['name', 'permissions', 'details', 'requiredGroupMembership', 'attributes'].includes(key) && !isForbiddenKey(key)) details[key] = value;
    }
    return { name, permissions, details };
  }
  return { name, permissions };
}

/** Fiat's stored JSON for one resource (Jackson field order, nulls left out). */
export function resourceToJSON(type: ResourceType, resource: AccountResource | ApplicationResource | AuthorizableResource | ServiceAccountResource | RoleResource): Record<string, unknown> {
  if (type === RESOURCE_TYPES.ROLE) {
    const role = resource as RoleResource;
    return role.source === null ? { name: role.name } : { name: role.name, source: role.source };
  }
  if (type === RESOURCE_TYPES.SERVICE_ACCOUNT) {
    const sa = resource as ServiceAccountResource;
    return { name: sa.name, memberOf: [...sa.memberOf] };
  }
  const r = resource as AccountResource & ApplicationResource;
  const out: Record<string, unknown> = { name: r.name };
  if (type === RESOURCE_TYPES.ACCOUNT && r.cloudProvider !== undefined) out['cloudProvider'] = r.cloudProvider;
  out['permissions'] = permissionsToJSON(r.permissions ?? EMPTY_PERMISSIONS);
  if (type === RESOURCE_TYPES.APPLICATION) out['details'] = { ...(r.details ?? {}) };
  return out;
}

type AnyResource = AccountResource | ApplicationResource | AuthorizableResource | ServiceAccountResource | RoleResource;

/** The resources of `permission` of one type (extension types by name). */
export function resourcesOfType(permission: UserPermission, type: ResourceType): readonly AnyResource[] {
  switch (type) {
    case RESOURCE_TYPES.ACCOUNT: return permission.accounts;
    case RESOURCE_TYPES.APPLICATION: return permission.applications;
    case RESOURCE_TYPES.SERVICE_ACCOUNT: return permission.serviceAccounts;
    case RESOURCE_TYPES.ROLE: return permission.roles;
    case RESOURCE_TYPES.BUILD_SERVICE: return permission.buildServices;
    default: return permission.extensionResources[parseResourceType(type)] ?? [];
  }
}

function identity(type: ResourceType, resource: AnyResource): string {
  const provider = type === RESOURCE_TYPES.ACCOUNT ? (resource as AccountResource).cloudProvider ?? '' : '';
  return `${provider}\u0000${resource.name}`;
}

function addAll<T extends AnyResource>(type: ResourceType, own: readonly T[], other: readonly T[]): T[] {
  const seen = new Set(own.map((r) => identity(type, r)));
  const out = [...own];
  for (const r of other) {
    const key = identity(type, r);
    if (!seen.has(key)) {
      seen.add(key);
      out.push(r);
    }
  }
  return out;
}

/**
 * Fiat's `UserPermission.merge`: adds every resource (and role) of `other` that
 * `permission` does not already hold (same type and name; accounts also same
 * cloud provider), so the user's own copy wins. Flags and id are kept.
 */
export function mergeUserPermission(permission: UserPermission, other: UserPermission): UserPermission {
  const extensionResources: Record<string, readonly AuthorizableResource[]> = { ...permission.extensionResources };
  for (const [type, list] of Object.entries(other.extensionResources)) extensionResources[type] = addAll(type, extensionResources[type] ?? [], list);
  return {
    ...permission,
    accounts: addAll(RESOURCE_TYPES.ACCOUNT, permission.accounts, other.accounts),
    applications: addAll(RESOURCE_TYPES.APPLICATION, permission.applications, other.applications),
    serviceAccounts: addAll(RESOURCE_TYPES.SERVICE_ACCOUNT, permission.serviceAccounts, other.serviceAccounts),
    roles: addAll(RESOURCE_TYPES.ROLE, permission.roles, other.roles),
    buildServices: addAll(RESOURCE_TYPES.BUILD_SERVICE, permission.buildServices, other.buildServices),
    extensionResources,
  };
}
