/**
 * In-memory definitions: what Fiat learns from Front50, Clouddriver, Igor and
 * the role provider, normalised once (names, roles, permissions) with every
 * problem reported by JSON pointer.
 */
import { SpinnakerError } from './errors.js';
import { RESOURCE_TYPES, UNRESTRICTED_USER, parseResourceType, type ResourceType } from './model.js';
import { safeCopy, toResource, toRole, toServiceAccount, type AccountResource, type ApplicationResource, type RoleResource, type RoleSource, type ServiceAccountResource } from './resources.js';
import type { ResourceRef } from './sources.js';

/** A permissions map as written in definitions: `{READ: ["dev-team"], write: ["ops"]}`. */
export type PermissionsInput = Readonly<Record<string, readonly string[] | null | undefined>>;

/** A resource with optional permissions (none, or an empty map, means unrestricted). */
export interface ResourceDefinition {
  name: string;
  permissions?: PermissionsInput | null;
  /** Extra facts that policies can select on (`resource.attributes`), e.g. `{owner: "team-a"}`. */
  attributes?: Readonly<Record<string, unknown>>;
}

/** An account (Clouddriver). */
export interface AccountDefinition extends ResourceDefinition {
  cloudProvider?: string;
  /** Legacy: READ and WRITE for these groups unless `permissions` is restricted. */
  requiredGroupMembership?: readonly string[] | null;
}

/** An application (Front50); other fields become its `details`. */
export interface ApplicationDefinition extends ResourceDefinition {
  requiredGroupMembership?: readonly string[] | null;
  details?: Readonly<Record<string, unknown>>;
}

/** A service account (Front50): users holding its roles may run pipelines as it. */
export interface ServiceAccountDefinition {
  name: string;
  memberOf: readonly string[];
}

/** A role as the role provider gives it: a name, or `{name, source}`. */
export type RoleInput = string | { name: string; source?: RoleSource | null };

/** Everything Fiat would load: users with their roles, and the resources. */
export interface FiatDefinitions {
  /** User id → roles (the role provider: file, LDAP, GitHub teams, SAML…). Ids compare case-insensitively. */
  users?: Readonly<Record<string, readonly RoleInput[]>>;
  accounts?: readonly AccountDefinition[];
  applications?: readonly ApplicationDefinition[];
  serviceAccounts?: readonly ServiceAccountDefinition[];
  buildServices?: readonly ResourceDefinition[];
  /** Extension resources by resource type (`{my_ext: [{name, permissions}]}`). */
  extensionResources?: Readonly<Record<string, readonly ResourceDefinition[]>>;
  /** Roles of `__unrestricted_user__` (Fiat's `loadUnrestrictedRoles`, none by default); every user receives them. */
  unrestrictedRoles?: readonly RoleInput[];
}

/** Normalised definitions. */
export interface Catalog {
  readonly users: ReadonlyMap<string, readonly RoleResource[]>;
  /** Accounts, applications, build services and extension resources, with their own permissions. */
  readonly resources: readonly ResourceRef[];
  readonly accounts: ReadonlyMap<ResourceRef, AccountResource>;
  readonly serviceAccounts: readonly ServiceAccountResource[];
  readonly unrestrictedRoles: readonly RoleResource[];
}

function list<T>(value: readonly T[] | undefined | null, path: string): readonly T[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw SpinnakerError.invalidConfig(`${path} must be a list`, path);
  return value;
}

function attributesOf(def: ResourceDefinition, path: string): Record<string, unknown> {
  const attributes = def.attributes;
  if (attributes === undefined || attributes === null) return {};
  if (typeof attributes !== 'object' || Array.isArray(attributes)) throw SpinnakerError.invalidConfig(`${path}/attributes must be a map`, `${path}/attributes`);
  return safeCopy(attributes);
}

function roles(value: readonly RoleInput[] | undefined, path: string): RoleResource[] {
  const seen = new Map<string, RoleResource>();
  list(value, path).forEach((r, i) => {
    const role = toRole(r, `${path}/${i}`);
    if (!seen.has(role.name)) seen.set(role.name, role);
  });
  return [...seen.values()];
}

/** Validates and normalises definitions; throws `SpinnakerError` `INVALID_CONFIG` naming the first problem. */
export function normalizeDefinitions(definitions: FiatDefinitions): Catalog {
  if (!definitions || typeof definitions !== 'object') throw SpinnakerError.invalidConfig('definitions must be an object ({users, accounts, applications, …})');
  const users = new Map<string, RoleResource[]>();
  for (const [id, userRoles] of Object.entries(definitions.users ?? {})) {
    const key = id.toLowerCase();
    if (key === UNRESTRICTED_USER) throw SpinnakerError.invalidConfig(`/users/${id}: give the unrestricted user's roles as unrestrictedRoles`, `/users/${id}`);
    const merged = [...(users.get(key) ?? []), ...roles(userRoles, `/users/${id}`)];
    users.set(key, merged.filter((r, i) => merged.findIndex((x) => x.name === r.name) === i));
  }
  const resources: ResourceRef[] = [];
  const accounts = new Map<ResourceRef, AccountResource>();
  const add = (type: ResourceType, defs: readonly ResourceDefinition[] | undefined, path: string) => {
    const seen = new Set<string>();
    list(defs, path).forEach((def, i) => {
      const at = `${path}/${i}`;
      const resource = toResource(type, def, at);
      const provider = type === RESOURCE_TYPES.ACCOUNT ? (resource as AccountResource).cloudProvider ?? '' : '';
      const identity = `${provider}\u0000${type === RESOURCE_TYPES.APPLICATION ? resource.name.toUpperCase() : resource.name}`;
      if (seen.has(identity)) throw SpinnakerError.invalidConfig(`${at}: ${type} "${resource.name}" is defined twice`, `${at}/name`);
      seen.add(identity);
      const attributes = attributesOf(def, at);
      if (type === RESOURCE_TYPES.APPLICATION) Object.assign(attributes, safeCopy({ ...(resource as ApplicationResource).details, ...attributes }));
      if (type === RESOURCE_TYPES.ACCOUNT && (resource as AccountResource).cloudProvider !== undefined) attributes['cloudProvider'] ??= (resource as AccountResource).cloudProvider;
      const ref: ResourceRef = { type, name: resource.name, attributes, permissions: resource.permissions };
      resources.push(ref);
      if (type === RESOURCE_TYPES.ACCOUNT) accounts.set(ref, resource as AccountResource);
    });
  };
  add(RESOURCE_TYPES.ACCOUNT, definitions.accounts, '/accounts');
  add(RESOURCE_TYPES.APPLICATION, definitions.applications, '/applications');
  add(RESOURCE_TYPES.BUILD_SERVICE, definitions.buildServices, '/buildServices');
  for (const [rawType, defs] of Object.entries(definitions.extensionResources ?? {})) {
    const type = parseResourceType(rawType);
    if ([RESOURCE_TYPES.ACCOUNT, RESOURCE_TYPES.APPLICATION, RESOURCE_TYPES.BUILD_SERVICE, RESOURCE_TYPES.ROLE, RESOURCE_TYPES.SERVICE_ACCOUNT].includes(type as never)) {
      throw SpinnakerError.invalidConfig(`/extensionResources/${rawType}: "${type}" is a built-in resource type, not an extension type`, `/extensionResources/${rawType}`);
    }
    add(type, defs, `/extensionResources/${rawType}`);
  }
  const serviceAccounts = list(definitions.serviceAccounts, '/serviceAccounts').map((sa, i) => toServiceAccount(sa, `/serviceAccounts/${i}`));
  return { users, resources, accounts, serviceAccounts, unrestrictedRoles: roles(definitions.unrestrictedRoles, '/unrestrictedRoles') };
}
