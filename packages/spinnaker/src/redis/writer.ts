/**
 * Writes permissions exactly as Fiat's `RedisPermissionsRepository.put` does
 * (temp key + RENAME per type, role index, admin and account-manager sets,
 * `users`, and `last_modified` for the unrestricted user). Useful to seed Redis
 * from definitions, and for fixtures.
 */
import { UNRESTRICTED_USER, toRole, type FiatResolver, type UserPermission } from '@verdict/spinnaker';
import { randomUUID } from 'node:crypto';
import { decodeResourceMap, encodeResourceMap, fiatRedisKeys, resourceMaps, storedTypes, type FiatRedisLayout } from './layout.js';
import type { RedisClient, RedisReply } from './resp.js';

/** Where and how to write. */
export interface RedisWriteOptions {
  prefix?: string;
  layout?: FiatRedisLayout;
  /** Extension types configured in Fiat (their keys are deleted when a user has none). */
  extensionTypes?: readonly string[];
}

async function existingRoles(client: RedisClient, key: string, layout: FiatRedisLayout): Promise<string[]> {
  const reply: RedisReply = await client.command(layout === 'v2' ? 'GET' : 'HGETALL', key);
  if (layout === 'v2') return Buffer.isBuffer(reply) && reply.length > 0 ? Object.values(decodeResourceMap(reply, key)).map((r) => toRole(r).name) : [];
  if (!Array.isArray(reply)) return [];
  return reply.filter((_, i) => i % 2 === 0).map((k) => String(k));
}

/** Fiat's `put(permission)` for one user. */
export async function writeUserPermission(client: RedisClient, permission: UserPermission, options: RedisWriteOptions = {}): Promise<void> {
  const layout = options.layout ?? 'v2';
  const keys = fiatRedisKeys(options.prefix, layout);
  const id = permission.id.toLowerCase();
  const maps = resourceMaps(permission);
  const types = storedTypes([...(options.extensionTypes ?? []), ...Object.keys(permission.extensionResources)]);
  const before = await existingRoles(client, keys.permissions(id, 'role'), layout);
  const roles = new Set(permission.roles.map((r) => r.name));
  const commands: (string | Buffer)[][] = [
    [permission.admin ? 'SADD' : 'SREM', keys.admin, id],
    [permission.accountManager ? 'SADD' : 'SREM', keys.accountManagers, id],
    ...[...roles].map((role) => ['SADD', keys.role(role), id]),
    ...before.filter((role) => !roles.has(role)).map((role) => ['SREM', keys.role(role), id]),
  ];
  for (const type of types) {
    const key = keys.permissions(id, type);
    const map = maps.get(type);
    if (!map) {
      commands.push(['DEL', key]);
      continue;
    }
    const temp = randomUUID();
    if (layout === 'v2') commands.push(['SET', temp, encodeResourceMap(map)]);
    else commands.push(['HSET', temp, ...Object.entries(map).flatMap(([name, value]) => [name, JSON.stringify(value)])]);
    commands.push(['RENAME', temp, key]);
  }
  commands.push(['TIME'], ['SADD', keys.users, id]);
  const replies = await client.pipeline(commands);
  if (id === UNRESTRICTED_USER) {
    const time = replies[replies.length - 2];
    const seconds = Array.isArray(time) && Buffer.isBuffer(time[0]) ? time[0].toString('utf8') : String(Math.floor(Date.now() / 1000));
    await client.command('SET', keys.lastModified(UNRESTRICTED_USER), seconds);
  }
}

/** Fiat's sync for in-memory definitions: writes every user (service accounts included) and the unrestricted user. Returns the ids written. */
export async function syncToRedis(client: RedisClient, resolver: FiatResolver, options: RedisWriteOptions = {}): Promise<string[]> {
  const ids = resolver.userIds();
  for (const id of ids) {
    const permission = id === UNRESTRICTED_USER ? resolver.resolveUnrestrictedUser() : resolver.resolve(id);
    if (permission) await writeUserPermission(client, permission, options);
  }
  return ids;
}
