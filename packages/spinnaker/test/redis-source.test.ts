import { beforeAll, describe, expect, it } from 'vitest';
import { createAsyncPermissionEvaluator, type SpinnakerError, type UserPermission } from '@verdict/spinnaker';
import { createRedisPermissionSource, writeUserPermission } from '@verdict/spinnaker/redis';
import { loadLz4, lz4CompressWithLength } from '../src/redis/lz4.js';
import { CLIENTS, freePort, freshPrefix, redisForThisFile } from './redis-server.js';

// lz4-napi is an optional peer, loaded on first use; these tests call the codec directly.
beforeAll(() => loadLz4());

const server = redisForThisFile();

const prefix = freshPrefix;
const admin = (id: string): UserPermission => ({ id, admin: true, accountManager: false, accounts: [], applications: [], serviceAccounts: [], roles: [], buildServices: [], extensionResources: {} });

describe('a source made from a URL', () => {
  it('connects on first use, reads, and closes the client it made', async () => {
    const p = prefix();
    const { client, close } = await CLIENTS[0]!.make(server().port);
    await writeUserPermission(client, admin('alice'), { prefix: p });
    await close();
    const source = createRedisPermissionSource({ url: `redis://127.0.0.1:${server().port}`, prefix: p });
    expect((await source.readUser('alice'))?.admin).toBe(true);
    const before = Number(String(await server().command('INFO', 'clients')).match(/connected_clients:(\d+)/)![1]);
    await source.close();
    await expect.poll(async () => Number(String(await server().command('INFO', 'clients')).match(/connected_clients:(\d+)/)![1])).toBe(before - 1);
    await expect(source.readUser('alice')).rejects.toThrow(/the Redis connection to 127\.0\.0\.1:\d+ is closed/);
  });

  it('fails closed, naming the address, when nothing listens there', async () => {
    const port = await freePort();
    const source = createRedisPermissionSource({ url: `redis://127.0.0.1:${port}`, connectTimeoutMs: 300 });
    try {
      const denied = await createAsyncPermissionEvaluator({ source }).hasPermission('alice', 'prod', 'account', 'READ');
      expect(denied.allowed).toBe(false);
      expect(denied.reason).toMatch(new RegExp(`could not be read: cannot reach Redis at 127\\.0\\.0\\.1:${port}: .*ECONNREFUSED.* \\(no connection within 300 ms\\)`));
      const fallback = createAsyncPermissionEvaluator({ source, legacyFallback: true, fallbackAccounts: ['prod'] });
      expect((await fallback.hasPermission('alice', 'prod', 'account', 'WRITE')).allowed).toBe(true);
    } finally {
      await source.close();
    }
  });

  it("caches an unknown user's absence like a view: 100 checks make one read, and the user's first write is seen after expiry or invalidation", async () => {
    const p = prefix();
    const source = createRedisPermissionSource({ url: `redis://127.0.0.1:${server().port}`, prefix: p });
    let now = 0;
    const fiat = createAsyncPermissionEvaluator({ source, now: () => now });
    const sismember = async () => Number(/cmdstat_sismember:calls=(\d+)/.exec(String(await server().command('INFO', 'commandstats')))?.[1] ?? 0);
    try {
      const before = await sismember();
      for (let i = 0; i < 100; i++) {
        const denied = await fiat.hasPermission('mallory', 'prod', 'account', 'READ');
        expect(denied).toEqual({ allowed: false, reason: expect.stringContaining('user mallory is not known to Fiat') as unknown });
      }
      expect(await sismember() - before).toBe(1);
      // The user is written: seen once the absence expires (20 s, the views' expiry), or at once after invalidatePermission.
      const { client, close } = await CLIENTS[0]!.make(server().port);
      await writeUserPermission(client, admin('mallory'), { prefix: p });
      await close();
      expect((await fiat.hasPermission('mallory', 'prod', 'account', 'READ')).allowed).toBe(false);
      now += 20_001;
      expect((await fiat.hasPermission('mallory', 'prod', 'account', 'READ')).allowed).toBe(true);
      const other = createAsyncPermissionEvaluator({ source });
      expect((await other.hasPermission('eve', 'prod', 'account', 'READ')).allowed).toBe(false);
      const second = await CLIENTS[0]!.make(server().port);
      await writeUserPermission(second.client, admin('eve'), { prefix: p });
      await second.close();
      other.invalidatePermission('eve');
      expect((await other.hasPermission('eve', 'prod', 'account', 'READ')).allowed).toBe(true);
    } finally {
      await source.close();
    }
  });

  it('leaves a given client open on close', async () => {
    const { client, close } = await CLIENTS[2]!.make(server().port);
    try {
      await createRedisPermissionSource({ client }).close();
      expect(await (client as unknown as { ping(): Promise<string> }).ping()).toBe('PONG');
    } finally {
      await close();
    }
  });
});

describe('options', () => {
  it('refuses anything but one node-redis or ioredis client or one URL, with the option\'s path', () => {
    const error = (fn: () => unknown) => {
      try {
        fn();
      } catch (e) {
        return e as SpinnakerError;
      }
      throw new Error('no error');
    };
    expect(error(() => createRedisPermissionSource({}))).toMatchObject({ code: 'INVALID_CONFIG', message: expect.stringContaining('needs exactly one of client') });
    expect(error(() => createRedisPermissionSource({ url: 'redis://x', client: {} as never })).code).toBe('INVALID_CONFIG');
    expect(error(() => createRedisPermissionSource({ client: { pipeline() {} } as never }))).toMatchObject({
      code: 'INVALID_CONFIG', path: '/client', message: 'client must be a node-redis client (redis v5 or later) or an ioredis client (v5 or later), but got object',
    });
    expect(error(() => createRedisPermissionSource({ url: 'http://x' }))).toMatchObject({ path: '/url', message: 'url must use redis:// or rediss:// (got http://)' });
    expect(error(() => createRedisPermissionSource({ url: 'redis://x', layout: 'v3' as never })).path).toBe('/layout');
    expect(error(() => createRedisPermissionSource({ url: 'redis://x', connectTimeoutMs: 0 })).path).toBe('/connectTimeoutMs');
    expect(() => writeUserPermission('redis://x' as never, admin('a'))).rejects.toThrow('client must be a node-redis client');
  });
});

describe('data read from Redis is untrusted', () => {
  async function setup(kind = CLIENTS[0]!) {
    const p = prefix();
    const { client, close } = await kind.make(server().port);
    await server().command('SADD', `${p}:users`, 'alice');
    const fiat = createAsyncPermissionEvaluator({ source: createRedisPermissionSource({ client, prefix: p }), cache: false });
    const legacy = createAsyncPermissionEvaluator({ source: createRedisPermissionSource({ client, prefix: p, layout: 'legacy' }), cache: false });
    return { p, fiat, legacy, close };
  }

  it('fails closed on a corrupt LZ4 value, naming the key', async () => {
    const { p, fiat, close } = await setup();
    try {
      await server().command('SET', `${p}:permissions-v2:alice:applications`, Buffer.from([0xff, 0xff, 0xff, 0x00, 0x00]));
      const answer = await fiat.hasPermission('alice', 'app', 'application', 'READ');
      expect(answer.allowed).toBe(false);
      expect(answer.reason).toContain(`cannot read ${p}:permissions-v2:alice:applications: invalid LZ4 data: declared length 16777215 is more than a 1-byte block can hold`);
    } finally {
      await close();
    }
  });

  it('fails closed on a resource that does not have Fiat\'s shape', async () => {
    const { p, fiat, close } = await setup(CLIENTS[2]);
    try {
      await server().command('SET', `${p}:permissions-v2:alice:applications`, lz4CompressWithLength(Buffer.from('{"app":{"name":7}}')));
      const answer = await fiat.hasPermission('alice', 'app', 'application', 'READ');
      expect(answer.allowed).toBe(false);
      expect(answer.reason).toContain(`bad resource #0 in ${p}:permissions-v2:alice:applications`);
    } finally {
      await close();
    }
  });

  it('never lets stored names reach an object prototype', async () => {
    const { p, fiat, legacy, close } = await setup(CLIENTS[3]);
    try {
      const json = '{"__proto__":{"name":"__proto__","permissions":{"READ":["dev"]}},"constructor":{"name":"constructor","permissions":{}}}';
      await server().command('SET', `${p}:permissions-v2:alice:applications`, lz4CompressWithLength(Buffer.from(json)));
      await server().command('HSET', `${p}:permissions:alice:accounts`, '__proto__', '{"name":"__proto__","permissions":{"READ":["dev"]}}');
      expect((await fiat.getUserPermission('alice'))?.applications.map((a) => a.name).sort()).toEqual(['__proto__', 'constructor']);
      expect((await legacy.getUserPermission('alice'))?.accounts.map((a) => a.name)).toEqual(['__proto__']);
      expect(({} as Record<string, unknown>)['permissions']).toBeUndefined();
      expect(Object.getPrototypeOf({})).toBe(Object.prototype);
    } finally {
      await close();
    }
  });
});
