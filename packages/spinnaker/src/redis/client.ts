/**
 * The users' own Redis clients: node-redis (`redis` v5+) or ioredis (v5+).
 * Each is driven through its typed commands (the same in every topology), with bulk
 * strings read as Buffers (Fiat's values are LZ4 bytes), and every call
 * bounded by a timeout: a down or paused Redis rejects after
 * `commandTimeoutMs`, whatever the client's own retry settings.
 */
import { SpinnakerError } from '../errors.js';

/** A connected node-redis client (`createClient`). */
export interface NodeRedisClientLike {
  withTypeMapping(mapping: object): unknown;
}

/** An ioredis `Redis` (standalone or sentinel). */
export interface IoRedisClientLike {
  getBuffer(key: string): Promise<Buffer | null>;
}

/** A Redis client verdict can use: node-redis (`redis` v5 or later) or ioredis (v5 or later). */
export type RedisClientLike = NodeRedisClientLike | IoRedisClientLike;

/** Milliseconds bounds of Redis calls. */
export interface RedisTimeouts {
  /** Milliseconds for one Redis call (a read or a user's write) to answer, default 1000. */
  commandTimeoutMs?: number;
}

/** A write, as `MULTI` … `EXEC` runs it. */
export type WriteCommand =
  | ['set', string, string | Buffer]
  | ['rename', string, string]
  | ['sadd' | 'srem', string, string]
  | ['del', string]
  | ['hset', string, Record<string, string>]
  | ['time'];

/** The few operations the Fiat layout needs, over either client. */
export interface RedisStore {
  get(key: string): Promise<Buffer | null>;
  /** The values of a hash (HVALS: no field names, so no object is built from untrusted keys). */
  hashValues(key: string): Promise<Buffer[]>;
  isMember(key: string, member: string): Promise<boolean>;
  /** Runs the writes in order as one transaction; resolves to their replies. */
  transaction(commands: readonly WriteCommand[]): Promise<unknown[]>;
}

const DEFAULT_TIMEOUT_MS = 1000;
/** RESP's type byte for bulk strings (`$`): node-redis maps replies of this type to Buffers when asked. */
const RESP_BLOB_STRING = 36;

type Call = (...args: unknown[]) => Promise<unknown>;
type Methods = Record<string, Call>;

function method(target: object, name: string): Call | undefined {
  const fn = (target as Record<string, unknown>)[name];
  return typeof fn === 'function' ? (fn as Call).bind(target) : undefined;
}

/** Where the client stands, for an error message (node-redis `isReady`, ioredis `status`). */
function state(client: object): string {
  const c = client as { isReady?: unknown; status?: unknown };
  if (typeof c.status === 'string') return c.status === 'ready' ? '' : ` (the client is ${c.status})`;
  if (c.isReady === false) return ' (the client is not connected)';
  return '';
}

/** Rejects when `promise` has not settled within `ms` (`why` is read then); the late answer is ignored. */
function bounded<T>(promise: Promise<T>, ms: number, what: string, why: () => string): Promise<T> {
  promise.catch(() => undefined);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Redis did not answer ${what} within ${ms} ms${why()}`)), ms);
    timer.unref?.();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function nodeRedisStore(client: NodeRedisClientLike): RedisStore {
  const binary = client.withTypeMapping({ [RESP_BLOB_STRING]: Buffer }) as Methods & { multi(): Methods };
  const call = (name: string, ...args: unknown[]) => binary[name]!(...args);
  return {
    get: (key) => call('get', key) as Promise<Buffer | null>,
    hashValues: (key) => call('hVals', key) as Promise<Buffer[]>,
    isMember: async (key, member) => Number(await call('sIsMember', key, member)) === 1,
    async transaction(commands) {
      let multi = binary.multi();
      const names = { set: 'set', rename: 'rename', sadd: 'sAdd', srem: 'sRem', del: 'del', hset: 'hSet', time: 'time' } as const;
      for (const [name, ...args] of commands) multi = multi[names[name]]!(...args) as unknown as Methods;
      return (await multi['exec']!()) as unknown[];
    },
  };
}

function ioRedisStore(client: IoRedisClientLike): RedisStore {
  const c = client as unknown as Methods & { multi(): Methods };
  return {
    get: (key) => c['getBuffer']!(key) as Promise<Buffer | null>,
    hashValues: (key) => c['hvalsBuffer']!(key) as Promise<Buffer[]>,
    isMember: async (key, member) => Number(await c['sismember']!(key, member)) === 1,
    async transaction(commands) {
      const multi = c.multi();
      for (const [name, ...args] of commands) multi[name]!(...args);
      const replies = (await multi['exec']!()) as Array<[Error | null, unknown]> | null;
      if (!replies) throw new Error('the Redis transaction was aborted');
      return replies.map(([error, reply]) => {
        if (error) throw error;
        return reply;
      });
    },
  };
}

/**
 * Wraps a user's client. Throws `SpinnakerError('INVALID_CONFIG')` for
 * anything that is neither a node-redis nor an ioredis client.
 */
export function redisStore(client: unknown, options: RedisTimeouts = {}, where = 'client'): RedisStore {
  const ms = options.commandTimeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!Number.isFinite(ms) || ms <= 0) throw SpinnakerError.invalidConfig(`commandTimeoutMs must be a positive number of milliseconds (got ${String(ms)})`, '/commandTimeoutMs');
  let store: RedisStore;
  if (client !== null && typeof client === 'object' && method(client, 'withTypeMapping')) store = nodeRedisStore(client as NodeRedisClientLike);
  else if (client !== null && typeof client === 'object' && method(client, 'getBuffer') && method(client, 'multi')) store = ioRedisStore(client as IoRedisClientLike);
  else {
    throw SpinnakerError.invalidConfig(
      `${where} must be a node-redis client (redis v5 or later) or an ioredis client (v5 or later), but got ${client === null ? 'null' : typeof client}`,
      `/${where}`,
    );
  }
  const target = client as object;
  const limit = <T>(promise: Promise<T>, what: string) => bounded(promise, ms, what, () => state(target));
  return {
    get: (key) => limit(store.get(key), `GET ${key}`),
    hashValues: (key) => limit(store.hashValues(key), `HVALS ${key}`),
    isMember: (key, member) => limit(store.isMember(key, member), `SISMEMBER ${key}`),
    transaction: (commands) => limit(store.transaction(commands), `a transaction of ${commands.length} commands`),
  };
}
