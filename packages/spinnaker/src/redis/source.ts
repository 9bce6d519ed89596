/**
 * A permission source reading Fiat's Redis layout, as
 * `RedisPermissionsRepository.get` does: membership in `users`, every type key,
 * the admin and account-manager sets, then the merge with
 * `__unrestricted_user__` (cached per `last_modified`, 10 s after last use).
 */
import { UNRESTRICTED_USER, mergeUserPermission, type AsyncPermissionSource, type ResourceType, type UserPermission } from '@verdict/spinnaker';
import { decodeResourceMap, fiatRedisKeys, fromResourceMaps, storedTypes, type FiatRedisLayout } from './layout.js';
import { RedisClient, type RedisConnectionOptions, type RedisReply } from './resp.js';

/** Options of {@link createRedisPermissionSource}. */
export interface RedisPermissionSourceOptions extends RedisConnectionOptions {
  /** `fiat.redis.prefix` (default `spinnaker:fiat`). */
  prefix?: string;
  /** Key layout (default `v2`). The two are never mixed: a stale legacy key must not grant access after a migration. */
  layout?: FiatRedisLayout;
  /** Extension resource types Fiat is configured with (their keys are read too). */
  extensionTypes?: readonly string[];
  /** Reuse a client (it is not closed by `close()`). */
  client?: RedisClient;
  /** Clock for the unrestricted-user cache (default `Date.now`). */
  now?: () => number;
}

/** A Redis-backed {@link AsyncPermissionSource}. */
export interface RedisPermissionSource extends AsyncPermissionSource {
  /** One user's stored permission, not merged with the unrestricted user; `undefined` when not in `users`. */
  readUser(userId: string): Promise<UserPermission | undefined>;
  /** Closes the connection (unless the client was given). */
  close(): Promise<void>;
}

const NO_LAST_MODIFIED = 'unknown_last_modified';
const UNRESTRICTED_TTL_MS = 10_000;

function text(reply: RedisReply): string | undefined {
  return Buffer.isBuffer(reply) ? reply.toString('utf8') : typeof reply === 'string' ? reply : undefined;
}

/**
 * Creates a source over Fiat's Redis data. Every Redis round trip is bounded by
 * `commandTimeoutMs` (and connecting by `connectTimeoutMs`), so a down or slow
 * Redis rejects quickly and the evaluator applies its fallback.
 */
export function createRedisPermissionSource(options: RedisPermissionSourceOptions = {}): RedisPermissionSource {
  const layout = options.layout ?? 'v2';
  if (layout !== 'v2' && layout !== 'legacy') throw new Error(`unknown Redis layout ${JSON.stringify(layout)}: expected "v2" or "legacy"`);
  const keys = fiatRedisKeys(options.prefix, layout);
  const types = storedTypes(options.extensionTypes);
  const client = options.client ?? new RedisClient(options);
  const now = options.now ?? Date.now;
  let unrestricted: { key: string; value: UserPermission; usedAt: number } | undefined;
  let lastGood: { key: string; value: UserPermission } | undefined;

  const readUser = async (userId: string): Promise<UserPermission | undefined> => {
    const id = userId.toLowerCase();
    const isUnrestricted = id === UNRESTRICTED_USER;
    if (!isUnrestricted && (await client.command('SISMEMBER', keys.users, id)) !== 1) return undefined;
    const commands = types.map((type) => (layout === 'v2' ? ['GET', keys.permissions(id, type)] : ['HGETALL', keys.permissions(id, type)]));
    if (!isUnrestricted) commands.push(['SISMEMBER', keys.admin, id], ['SISMEMBER', keys.accountManagers, id]);
    const replies = await client.pipeline(commands);
    const maps = new Map<ResourceType, { key: string; values: unknown[] }>();
    types.forEach((type, i) => {
      const key = keys.permissions(id, type);
      const reply = replies[i] ?? null;
      if (layout === 'v2') {
        if (Buffer.isBuffer(reply) && reply.length > 0) maps.set(type, { key, values: Object.values(decodeResourceMap(reply, key)) });
      } else if (Array.isArray(reply) && reply.length > 0) {
        const values: unknown[] = [];
        for (let j = 1; j < reply.length; j += 2) {
          try {
            values.push(JSON.parse(text(reply[j] ?? null) ?? ''));
          } catch (error) {
            throw new Error(`cannot read ${key}: ${(error as Error).message}`);
          }
        }
        maps.set(type, { key, values });
      }
    });
    const flags = isUnrestricted ? { admin: false, accountManager: false } : { admin: replies[types.length] === 1, accountManager: replies[types.length + 1] === 1 };
    return fromResourceMaps(id, maps, flags);
  };

  const unrestrictedUser = async (): Promise<UserPermission> => {
    const key = text(await client.command('GET', keys.lastModified(UNRESTRICTED_USER))) || NO_LAST_MODIFIED;
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
    close: () => (options.client ? Promise.resolve() : client.close()),
  };
}
