/**
 * Writes permissions exactly as Fiat's `RedisPermissionsRepository.put` does
 * (temp key + RENAME per type, role index, admin and account-manager sets,
 * `users`, and `last_modified` for the unrestricted user), through your
 * node-redis or ioredis client. Each user is written in one MULTI/EXEC
 * transaction, so a reader never sees half a user. Useful to seed Redis from
 * definitions, and for fixtures.
 */
import type { FiatResolver, UserPermission } from '@verdict/spinnaker';
import { randomUUID } from 'node:crypto';
import { UNRESTRICTED_USER } from '../model.js';
import { toRole } from '../resources.js';
import { redisStore, type RedisClientLike, type RedisStore, type RedisTimeouts, type WriteCommand } from './client.js';
import { loadLz4 } from './lz4.js';
import { decodeResourceMap, encodeResourceMap, fiatRedisKeys, resourceMaps, storedTypes, type FiatRedisLayout } from './layout.js';

/** Where and how to write. */
export interface RedisWriteOptions extends RedisTimeouts {
  /** `fiat.redis.prefix` (default `spinnaker:fiat`). */
  prefix?: string;
  /** Key layout (default `v2`). */
  layout?: FiatRedisLayout;
  /** Extension types configured in Fiat (their keys are deleted when a user has none). */
  extensionTypes?: readonly string[];
}

async function existingRoles(redis: RedisStore, key: string, layout: FiatRedisLayout): Promise<string[]> {
  if (layout === 'v2') {
    const value = await redis.get(key);
    return value && value.length > 0 ? Object.values(decodeResourceMap(value, key)).map((r) => toRole(r).name) : [];
  }
  // Legacy hashes map role name → JSON; the names are the fields, the JSON holds them too.
  return (await redis.hashValues(key)).map((json) => toRole(JSON.parse(json.toString('utf8'))).name);
}

async function put(redis: RedisStore, permission: UserPermission, options: RedisWriteOptions): Promise<void> {
  const layout = options.layout ?? 'v2';
  if (layout === 'v2') await loadLz4();
  const keys = fiatRedisKeys(options.prefix, layout);
  const id = permission.id.toLowerCase();
  const maps = resourceMaps(permission);
  const types = storedTypes([...(options.extensionTypes ?? []), ...Object.keys(permission.extensionResources)]);
  const before = await existingRoles(redis, keys.permissions(id, 'role'), layout);
  const roles = new Set(permission.roles.map((r) => r.name));
  const commands: WriteCommand[] = [
    [permission.admin ? 'sadd' : 'srem', keys.admin, id],
    [permission.accountManager ? 'sadd' : 'srem', keys.accountManagers, id],
    ...[...roles].map((role): WriteCommand => ['sadd', keys.role(role), id]),
    ...before.filter((role) => !roles.has(role)).map((role): WriteCommand => ['srem', keys.role(role), id]),
  ];
  for (const type of types) {
    const key = keys.permissions(id, type);
    const map = maps.get(type);
    if (!map) {
      commands.push(['del', key]);
      continue;
    }
    const temp = randomUUID();
    if (layout === 'v2') commands.push(['set', temp, encodeResourceMap(map)]);
    else commands.push(['hset', temp, Object.fromEntries(Object.entries(map).map(([name, value]) => [name, JSON.stringify(value)]))]);
    commands.push(['rename', temp, key]);
  }
  commands.push(['time'], ['sadd', keys.users, id]);
  const replies = await redis.transaction(commands);
  if (id === UNRESTRICTED_USER) {
    const time = replies[replies.length - 2];
    const seconds = Array.isArray(time) && time[0] !== undefined ? String(time[0]) : String(Math.floor(Date.now() / 1000));
    await redis.transaction([['set', keys.lastModified(UNRESTRICTED_USER), seconds]]);
  }
}

/**
 * Fiat's `put(permission)` for one user, through your connected node-redis
 * (`redis` v5+) or ioredis (v5+) client. Each Redis call is bounded by
 * `commandTimeoutMs` (default 1000).
 */
export async function writeUserPermission(client: RedisClientLike, permission: UserPermission, options: RedisWriteOptions = {}): Promise<void> {
  await put(redisStore(client, options), permission, options);
}

/**
 * Fiat's sync for in-memory definitions: writes every user (service accounts
 * included) and the unrestricted user through your client. Returns the ids written.
 */
export async function syncToRedis(client: RedisClientLike, resolver: FiatResolver, options: RedisWriteOptions = {}): Promise<string[]> {
  const redis = redisStore(client, options);
  const ids = resolver.userIds();
  for (const id of ids) {
    const permission = id === UNRESTRICTED_USER ? resolver.resolveUnrestrictedUser() : resolver.resolve(id);
    if (permission) await put(redis, permission, options);
  }
  return ids;
}
