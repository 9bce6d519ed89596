/**
 * A permission source reading Fiat's Redis layout, as
 * `RedisPermissionsRepository.get` does: membership in `users`, every type key,
 * the admin and account-manager sets, then the merge with
 * `__unrestricted_user__` (cached per `last_modified`, 10 s after last use).
 * Data read from Redis is untrusted: sizes are bounded (LZ4), every resource is
 * checked against Fiat's shape, and a bad value fails the read with its key.
 */

import type { AsyncPermissionSource, ResourceType, UserPermission } from '@verdict/spinnaker';
import { SpinnakerError } from '../errors.js';
import { UNRESTRICTED_USER } from '../model.js';
import { mergeUserPermission } from '../resources.js';
import { redisStore, type RedisClientLike, type RedisStore, type RedisTimeouts } from './client.js';
import { loadLz4 } from './lz4.js';
import { decodeResourceMap, fiatRedisKeys, fromResourceMaps, storedTypes, type FiatRedisLayout } from './layout.js';
import { ownClient } from './url.js';

/** Options of {@link createRedisPermissionSource}: `client` (yours) or `url` (one the source creates), and the layout. */
export interface RedisPermissionSourceOptions extends RedisTimeouts {
  /** Your connected node-redis (`redis` v5+) or ioredis (v5+) client; `close()` leaves it open. */
  client?: RedisClientLike;
  /** `redis://…` or `rediss://…`: the source creates a node-redis client, connects on first use and closes it in `close()`. */
  url?: string;
  /** With `url`: milliseconds to wait for the connection before a read fails, default 1000. */
  connectTimeoutMs?: number;
  /** `fiat.redis.prefix` (default `spinnaker:fiat`). */
  prefix?: string;
  /** Key layout (default `v2`). The two are never mixed: a stale legacy key must not grant access after a migration. */
  layout?: FiatRedisLayout;
  /** Extension resource types Fiat is configured with (their keys are read too). */
  extensionTypes?: readonly string[];
  /** Clock for the unrestricted-user cache (default `Date.now`). */
  now?: () => number;
}

/** A Redis-backed `AsyncPermissionSource`. */
export interface RedisPermissionSource extends AsyncPermissionSource {
  /** One user's stored permission, not merged with the unrestricted user; `undefined` when not in `users`. */
  readUser(userId: string): Promise<UserPermission | undefined>;
  /** Closes the connection the source made from `url`; a given `client` stays open. */
  close(): Promise<void>;
}

/** The store over the given client, or over the client made from `url` once it is connected. */
function storeOf(options: RedisPermissionSourceOptions): { store: () => Promise<RedisStore>; close: () => Promise<void> } {
  if ((options.client === undefined) === (options.url === undefined)) {
    throw SpinnakerError.invalidConfig('createRedisPermissionSource needs exactly one of client (a connected node-redis or ioredis client) or url (redis://host:port)');
  }
  if (options.client !== undefined) {
    const store = redisStore(options.client, options);
    return { store: async () => store, close: async () => undefined };
  }
  const owned = ownClient({ url: options.url!, ...(options.connectTimeoutMs !== undefined ? { connectTimeoutMs: options.connectTimeoutMs } : {}) });
  let store: RedisStore | undefined;
  return {
    store: async () => {
      const client = await owned.ready();
      store ??= redisStore(client, options, 'url');
      return store;
    },
    close: () => owned.close(),
  };
}

const NO_LAST_MODIFIED = 'unknown_last_modified';
const UNRESTRICTED_TTL_MS = 10_000;

/** A legacy-layout hash value: the JSON of one resource. */
function parseJson(value: Buffer, key: string): unknown {
  try {
    return JSON.parse(value.toString('utf8'));
  } catch (error) {
    throw SpinnakerError.invalidView(`cannot read ${key}: ${(error as Error).message}`);
  }
}

/**
 * Creates a source over Fiat's Redis data, read through your client (or one
 * made from `url`). Every Redis call is bounded by `commandTimeoutMs` (and,
 * with `url`, connecting by `connectTimeoutMs`), so a down or paused Redis
 * rejects quickly and the evaluator answers with its fallback.
 */
export function createRedisPermissionSource(options: RedisPermissionSourceOptions): RedisPermissionSource {
  const layout = options.layout ?? 'v2';
  if (layout !== 'v2' && layout !== 'legacy') throw SpinnakerError.invalidConfig(`unknown Redis layout ${JSON.stringify(layout)}: expected "v2" or "legacy"`, '/layout');
  const keys = fiatRedisKeys(options.prefix, layout);
  const types = storedTypes(options.extensionTypes);
  const connection = storeOf(options);
  const now = options.now ?? Date.now;
  let unrestricted: { key: string; value: UserPermission; usedAt: number } | undefined;
  let lastGood: { key: string; value: UserPermission } | undefined;

  const readUser = async (userId: string): Promise<UserPermission | undefined> => {
    const id = userId.toLowerCase();
    const redis = await connection.store();
    if (layout === 'v2') await loadLz4();
    const isUnrestricted = id === UNRESTRICTED_USER;
    if (!isUnrestricted && !(await redis.isMember(keys.users, id))) return undefined;
    const [values, admin, accountManager] = await Promise.all([
      Promise.all(types.map((type) => (layout === 'v2' ? redis.get(keys.permissions(id, type)) : redis.hashValues(keys.permissions(id, type))))),
      isUnrestricted ? false : redis.isMember(keys.admin, id),
      isUnrestricted ? false : redis.isMember(keys.accountManagers, id),
    ]);
    const maps = new Map<ResourceType, { key: string; values: unknown[] }>();
    types.forEach((type, i) => {
      const key = keys.permissions(id, type);
      const value = values[i];
      if (Buffer.isBuffer(value) && value.length > 0) maps.set(type, { key, values: Object.values(decodeResourceMap(value, key)) });
      else if (Array.isArray(value) && value.length > 0) maps.set(type, { key, values: value.map((json) => parseJson(json, key)) });
    });
    return fromResourceMaps(id, maps, { admin, accountManager });
  };

  const unrestrictedUser = async (): Promise<UserPermission> => {
    const key = (await (await connection.store()).get(keys.lastModified(UNRESTRICTED_USER)))?.toString('utf8') || NO_LAST_MODIFIED;
    if (unrestricted && unrestricted.key === key && now() - unrestricted.usedAt < UNRESTRICTED_TTL_MS) {
      unrestricted.usedAt = now();
      return unrestricted.value;
    }
    try {
      const value = (await readUser(UNRESTRICTED_USER))!;
      unrestricted = { key, value, usedAt: now() };
      if (key !== NO_LAST_MODIFIED) lastGood = { key, value };
      return value;
    } catch (error) {
      // Fiat serves the last unrestricted user it read for a known last_modified while Redis misbehaves.
      if (lastGood) return lastGood.value;
      throw error;
    }
  };

  return {
    readUser,
    async getUserPermission(userId) {
      const own = await readUser(userId);
      if (!own || own.id === UNRESTRICTED_USER) return own;
      return mergeUserPermission(own, await unrestrictedUser());
    },
    close: () => connection.close(),
  };
}
