/**
 * Fiat's Redis key layout (`RedisPermissionsRepository`) and the JSON of the
 * resources it stores, in both the current `permissions-v2` layout (LZ4 strings)
 * and the legacy hash layout (before Sept 2021).
 */
import type { AccountResource, ApplicationResource, AuthorizableResource, ResourceType, UserPermission } from '@verdict/spinnaker';
import { SpinnakerError } from '../errors.js';
import { RESOURCE_TYPES, keySuffix, parseResourceType } from '../model.js';
import { emptyUserPermission, resourceToJSON, toResource, toRole, toServiceAccount } from '../resources.js';
import { lz4CompressWithLength, lz4DecompressWithLength } from './lz4.js';

/** `v2`: `permissions-v2:<user>:<type>s` strings holding LZ4 JSON (Fiat since Sept 2021); `legacy`: `permissions:<user>:<type>s` hashes. */
export type FiatRedisLayout = 'v2' | 'legacy';

/** The key names Fiat uses under `prefix` (`fiat.redis.prefix`, default `spinnaker:fiat`). */
export function fiatRedisKeys(prefix = 'spinnaker:fiat', layout: FiatRedisLayout = 'v2') {
  return {
    users: `${prefix}:users`,
    admin: `${prefix}:permissions:admin`,
    accountManagers: `${prefix}:accountmanagers`,
    role: (role: string) => `${prefix}:roles:${role}`,
    permissions: (userId: string, type: ResourceType) => `${prefix}:${layout === 'v2' ? 'permissions-v2' : 'permissions'}:${userId}:${keySuffix(type)}`,
    lastModified: (userId: string) => `${prefix}:last_modified:${userId}`,
  };
}

/** The types Fiat stores for every user, then the configured extension types. */
export function storedTypes(extensionTypes: readonly string[] = []): ResourceType[] {
  const builtIn = [RESOURCE_TYPES.ACCOUNT, RESOURCE_TYPES.APPLICATION, RESOURCE_TYPES.SERVICE_ACCOUNT, RESOURCE_TYPES.ROLE, RESOURCE_TYPES.BUILD_SERVICE] as ResourceType[];
  return [...new Set([...builtIn, ...extensionTypes.map((t) => parseResourceType(t))])];
}

/** The value of a `permissions-v2` key: LZ4 (with length) of the JSON map `name → resource`. */
export function encodeResourceMap(map: Readonly<Record<string, unknown>>): Buffer {
  return lz4CompressWithLength(Buffer.from(JSON.stringify(map), 'utf8'));
}

/** Reads a `permissions-v2` value back into the JSON map. Throws `INVALID_VIEW` naming the key. */
export function decodeResourceMap(value: Buffer, key: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(lz4DecompressWithLength(value).toString('utf8'));
  } catch (error) {
    throw SpinnakerError.invalidView(`cannot read ${key}: ${(error as Error).message}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw SpinnakerError.invalidView(`cannot read ${key}: expected a JSON object of name to resource`);
  return parsed as Record<string, unknown>;
}

/** The resources of `permission` by stored type, as Fiat's JSON maps (types without resources are left out). */
export function resourceMaps(permission: UserPermission): Map<ResourceType, Record<string, unknown>> {
  const maps = new Map<ResourceType, Record<string, unknown>>();
  const put = (type: ResourceType, list: readonly { name: string }[]) => {
    if (list.length === 0) return;
    // fromEntries defines own properties: a resource named "__proto__" stays a resource.
    maps.set(type, Object.fromEntries(list.map((r) => [r.name, resourceToJSON(type, r as AccountResource)])));
  };
  put(RESOURCE_TYPES.ACCOUNT, permission.accounts);
  put(RESOURCE_TYPES.APPLICATION, permission.applications);
  put(RESOURCE_TYPES.SERVICE_ACCOUNT, permission.serviceAccounts);
  put(RESOURCE_TYPES.ROLE, permission.roles);
  put(RESOURCE_TYPES.BUILD_SERVICE, permission.buildServices);
  for (const [type, list] of Object.entries(permission.extensionResources)) put(type, list);
  return maps;
}

/** Builds a user's permission (not merged) from the stored JSON maps by type. Throws `INVALID_VIEW` naming the key of a bad resource. */
export function fromResourceMaps(userId: string, maps: ReadonlyMap<ResourceType, { key: string; values: readonly unknown[] }>, flags: { admin: boolean; accountManager: boolean }): UserPermission {
  const base = emptyUserPermission(userId);
  const out = {
    ...base, accounts: [] as AccountResource[], applications: [] as ApplicationResource[], serviceAccounts: [] as UserPermission['serviceAccounts'][number][],
    roles: [] as UserPermission['roles'][number][], buildServices: [] as AuthorizableResource[], extensionResources: {} as Record<string, AuthorizableResource[]>, ...flags,
  };
  for (const [type, { key, values }] of maps) {
    values.forEach((value, i) => {
      try {
        if (type === RESOURCE_TYPES.ROLE) out.roles.push(toRole(value));
        else if (type === RESOURCE_TYPES.SERVICE_ACCOUNT) out.serviceAccounts.push(toServiceAccount(value));
        else {
          const resource = toResource(type, value);
          if (type === RESOURCE_TYPES.ACCOUNT) out.accounts.push(resource as AccountResource);
          else if (type === RESOURCE_TYPES.APPLICATION) out.applications.push(resource as ApplicationResource);
          else if (type === RESOURCE_TYPES.BUILD_SERVICE) out.buildServices.push(resource);
          else (out.extensionResources[type] ??= []).push(resource);
        }
      } catch (error) {
        throw SpinnakerError.invalidView(`bad resource #${i} in ${key}: ${(error as Error).message}`);
      }
    });
  }
  return out;
}
