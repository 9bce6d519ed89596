/**
 * Resource permission sources: where a resource's permissions come from besides
 * its own definition. Fiat's aggregating provider unions every source's
 * restricted answer; verdict does the same for every source you configure
 * (prefixes, chaos monkey, policies).
 */
import type { PermissionsInput } from './definitions.js';
import { SpinnakerError } from './errors.js';
import { RESOURCE_TYPES, parseResourceType, type ResourceType } from './model.js';
import { EMPTY_PERMISSIONS, isRestricted, normalizePermissions, unionPermissions, withoutCreate, type Permissions } from './permissions.js';

/** A resource as sources see it: its type, name, attributes and its own (normalised) permissions. */
export interface ResourceRef {
  readonly type: ResourceType;
  readonly name: string;
  /** Front50 details for applications, `cloudProvider` for accounts, plus a definition's `attributes`. */
  readonly attributes: Readonly<Record<string, unknown>>;
  readonly permissions: Permissions;
}

/**
 * Gives permissions for resources (Fiat's `ResourcePermissionSource`). Return
 * `{}` (unrestricted) for "nothing to add". May throw: the resolution then fails
 * and clients apply `legacyFallback`.
 */
export interface ResourcePermissionSource {
  /** Shown in errors and explanations. */
  readonly name: string;
  /** Types this source answers for (parsed names); all types when absent. */
  readonly resourceTypes?: readonly ResourceType[];
  getPermissions(resource: ResourceRef): Permissions;
}

/** One entry of a prefix source: `gotham*` (a prefix) or `gothamapp` (a full name). */
export interface PrefixEntry {
  prefix: string;
  permissions: PermissionsInput;
}

/** Fiat's `auth.permissions.source.application.prefix`. */
export interface PrefixSourceConfig {
  prefixes: readonly PrefixEntry[];
  /** `AGGREGATE` (default): union of every matching entry; `MOST_SPECIFIC`: a full name wins, else the longest prefix. */
  resolutionStrategy?: 'AGGREGATE' | 'MOST_SPECIFIC';
  /** Resource type the prefixes apply to (default `application`). */
  resourceType?: string;
}

/**
 * Fiat's `ResourcePrefixPermissionSource`. Entries ending in `*` are prefixes
 * (`*` alone matches every name), others full names; both compare
 * case-insensitively (Fiat compares Front50's upper-cased names with an
 * upper-cased prefix). CREATE is kept, so a prefix can grant creation.
 */
export function prefixPermissionSource(config: PrefixSourceConfig): ResourcePermissionSource {
  if (!config || !Array.isArray(config.prefixes)) throw SpinnakerError.invalidConfig('prefixPermissionSource needs {prefixes: [{prefix, permissions}]}', '/prefixes');
  const strategy = config.resolutionStrategy ?? 'AGGREGATE';
  if (strategy !== 'AGGREGATE' && strategy !== 'MOST_SPECIFIC') throw SpinnakerError.invalidConfig(`unknown resolutionStrategy "${String(strategy)}": expected AGGREGATE or MOST_SPECIFIC`, '/resolutionStrategy');
  const entries = config.prefixes.map((entry, i) => {
    if (!entry || typeof entry.prefix !== 'string' || entry.prefix === '') throw SpinnakerError.invalidConfig(`prefix at /prefixes/${i}/prefix must either end with * or be a full application name`, `/prefixes/${i}/prefix`);
    const full = !entry.prefix.endsWith('*');
    return { full, text: entry.prefix, key: (full ? entry.prefix : entry.prefix.slice(0, -1)).toUpperCase(), permissions: normalizePermissions(entry.permissions, `/prefixes/${i}/permissions`) };
  });
  return {
    name: `prefix(${strategy})`,
    resourceTypes: [parseResourceType(config.resourceType ?? RESOURCE_TYPES.APPLICATION)],
    getPermissions(resource) {
      const name = resource.name.toUpperCase();
      const matching = entries.filter((e) => (e.full ? name === e.key : name.startsWith(e.key)));
      if (matching.length === 0) return EMPTY_PERMISSIONS;
      if (strategy === 'AGGREGATE') return unionPermissions(matching.map((e) => e.permissions));
      let best = matching[0]!;
      for (const e of matching.slice(1)) {
        if (best.full) break;
        if (e.full || e.key.length > best.key.length) best = e;
      }
      return best.permissions;
    },
  };
}

/**
 * Fiat's chaos monkey source: READ and WRITE for `roles` on applications whose
 * own permissions are restricted and whose details say `chaosMonkey.enabled: true`.
 */
export function chaosMonkeyPermissionSource(config: { roles: readonly string[] }): ResourcePermissionSource {
  const permissions = normalizePermissions({ READ: config.roles, WRITE: config.roles }, '/roles');
  return {
    name: 'chaosMonkey',
    resourceTypes: [RESOURCE_TYPES.APPLICATION],
    getPermissions(resource) {
      const chaos = resource.attributes['chaosMonkey'];
      const enabled = chaos !== null && typeof chaos === 'object' && (chaos as Record<string, unknown>)['enabled'] === true;
      return enabled && isRestricted(resource.permissions) ? permissions : EMPTY_PERMISSIONS;
    },
  };
}

/**
 * A resource's permissions from its own definition and every source that
 * answers for its type, unioned as Fiat's aggregating provider does. An
 * application's own CREATE is stripped (Fiat's `ApplicationResourcePermissionSource`).
 */
export function providerPermissions(resource: ResourceRef, sources: readonly ResourcePermissionSource[]): Permissions {
  const own = resource.type === RESOURCE_TYPES.APPLICATION ? withoutCreate(resource.permissions) : resource.permissions;
  const parts: Permissions[] = [own];
  for (const source of sources) {
    if (source.resourceTypes && !source.resourceTypes.includes(resource.type)) continue;
    let answer: Permissions;
    try {
      answer = source.getPermissions(resource);
    } catch (error) {
      if (error instanceof SpinnakerError) throw error;
      throw new SpinnakerError('SOURCE_FAILURE', `permission source "${source.name}" failed for ${resource.type} ${resource.name}: ${(error as Error).message}`, { cause: error });
    }
    parts.push(answer);
  }
  return parts.length === 1 ? own : unionPermissions(parts);
}
