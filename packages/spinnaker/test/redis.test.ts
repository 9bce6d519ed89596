import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UNRESTRICTED_USER, createAsyncPermissionEvaluator, createFiatResolver, createPermissionEvaluator, type FiatDefinitions } from '@verdict/spinnaker';
import { RedisClient, createRedisPermissionSource, encodeResourceMap, lz4CompressWithLength, syncToRedis, writeUserPermission } from '@verdict/spinnaker/redis';
import { startRedis, type RedisServer } from './redis-server.js';

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
});

let counter = 0;
/** A fresh key prefix per test, so tests share the server but not data. */
const prefix = () => `t${++counter}:fiat`;
const lz4json = (text: string) => Buffer.from(lz4CompressWithLength(Buffer.from(text, 'utf8')));

describe('Fiat Redis layout (permissions-v2), written by hand in Fiat\'s format', () => {
  async function setup() {
    const p = prefix();
    const c = redis.client();
    // What Fiat's RedisPermissionsRepository.put writes (Jackson JSON, LZ4 with length prefix).
    await c.pipeline([
      ['SADD', `${p}:users`, 'alice@example.com', UNRESTRICTED_USER, 'root'],
      ['SET', `${p}:permissions-v2:alice@example.com:accounts`, lz4json('{"prod-aws":{"name":"prod-aws","cloudProvider":"aws","permissions":{"READ":["ops"],"WRITE":["ops"]}}}')],
      ['SET', `${p}:permissions-v2:alice@example.com:applications`, lz4json('{"checkout":{"name":"checkout","permissions":{"READ":["dev-team"],"WRITE":["ops"],"EXECUTE":["dev-team"]},"details":{"email":"a@example.com"}}}')],
      ['SET', `${p}:permissions-v2:alice@example.com:service_accounts`, lz4json('{"deploy-bot@managed-service-accounts":{"name":"deploy-bot@managed-service-accounts","memberOf":["ops"]}}')],
      ['SET', `${p}:permissions-v2:alice@example.com:roles`, lz4json('{"dev-team":{"name":"dev-team","source":"GITHUB_TEAMS"},"ops":{"name":"ops","source":"EXTERNAL"}}')],
      ['SET', `${p}:permissions-v2:alice@example.com:build_services`, lz4json('{"jenkins-main":{"name":"jenkins-main","permissions":{"READ":["dev-team"]}}}')],
      ['SADD', `${p}:roles:dev-team`, 'alice@example.com'],
      ['SADD', `${p}:roles:ops`, 'alice@example.com'],
      ['SET', `${p}:permissions-v2:${UNRESTRICTED_USER}:accounts`, lz4json('{"staging-k8s":{"name":"staging-k8s","cloudProvider":"kubernetes","permissions":{}}}')],
      ['SET', `${p}:permissions-v2:${UNRESTRICTED_USER}:applications`, lz4json('{"sandbox":{"name":"sandbox","permissions":{},"details":{}}}')],
      ['SET', `${p}:last_modified:${UNRESTRICTED_USER}`, '1700000000'],
      ['SADD', `${p}:permissions:admin`, 'root'],
    ]);
    const source = createRedisPermissionSource({ port: redis.port, prefix: p });
    return { source, fiat: createAsyncPermissionEvaluator({ source }) };
  }

  it('reads the reference user, merged with the unrestricted user, as Fiat\'s GET /authorize returns it', async () => {
    const { fiat, source } = await setup();
    const view = await fiat.getUserPermission('Alice@Example.com');
    expect(view).toEqual({
      name: 'alice@example.com',
      accounts: [{ name: 'prod-aws', authorizations: ['READ', 'WRITE'] }, { name: 'staging-k8s', authorizations: ['READ', 'WRITE', 'EXECUTE', 'CREATE'] }],
      applications: [{ name: 'checkout', authorizations: ['READ', 'WRITE', 'EXECUTE'] }, { name: 'sandbox', authorizations: ['READ', 'WRITE', 'EXECUTE', 'CREATE'] }],
      serviceAccounts: [{ name: 'deploy-bot@managed-service-accounts', memberOf: ['ops'] }],
      roles: [{ name: 'dev-team', source: 'GITHUB_TEAMS' }, { name: 'ops', source: 'EXTERNAL' }],
      buildServices: [{ name: 'jenkins-main', authorizations: ['READ'] }],
      extensionResources: {},
      admin: false, accountManager: false, legacyFallback: false, allowAccessToUnknownApplications: false,
    });
    await source.close();
  });

  it('answers hasPermission from Redis in Fiat\'s decision order', async () => {
    const { fiat, source } = await setup();
    expect(await fiat.hasPermission('alice@example.com', 'checkout', 'application', 'WRITE')).toEqual({ allowed: true, reason: 'application checkout grants WRITE to user alice@example.com' });
    expect(await fiat.hasPermission('alice@example.com', 'prod-aws', 'account', 'EXECUTE')).toEqual({ allowed: false, reason: 'Access denied to account prod-aws - required authorization: EXECUTE' });
    expect((await fiat.hasPermission('root', 'anything', 'application', 'WRITE')).reason).toBe('user root is an admin: admins may do anything on any resource');
    expect((await fiat.hasPermission('mallory', 'sandbox', 'application', 'READ')).reason).toContain('user mallory is not known to Fiat');
    await source.close();
  });
});

describe('syncToRedis', () => {
  const definitions: FiatDefinitions = {
    users: { alice: ['dev'], root: ['admins'] },
    accounts: [{ name: 'prod', cloudProvider: 'aws', permissions: { READ: ['dev'] } }, { name: 'open' }],
    applications: [{ name: 'checkout', permissions: { READ: ['dev'], CREATE: ['dev'] } }],
    serviceAccounts: [{ name: 'bot', memberOf: ['dev'] }],
    extensionResources: { my_ext: [{ name: 'thing', permissions: { WRITE: ['dev'] } }] },
  };

  it('writes what the definitions resolve to, and reading it back gives the same views (v2 and legacy layouts)', async () => {
    const resolver = createFiatResolver({ definitions, fiat: { adminRoles: ['admins'] } });
    const inMemory = createPermissionEvaluator({ source: resolver, fiat: { adminRoles: ['admins'] } });
    for (const layout of ['v2', 'legacy'] as const) {
      const p = prefix();
      const client = redis.client();
      await syncToRedis(client, resolver, { prefix: p, layout });
      const source = createRedisPermissionSource({ port: redis.port, prefix: p, layout, extensionTypes: ['my_ext'] });
      const fiat = createAsyncPermissionEvaluator({ source });
      for (const user of ['alice', 'root', 'bot', UNRESTRICTED_USER]) expect(await fiat.getUserPermission(user)).toEqual(inMemory.getUserPermission(user));
      await source.close();
    }
  });

  it('stores a legacy layout as hashes of name to JSON', async () => {
    const p = prefix();
    const client = redis.client();
    await syncToRedis(client, createFiatResolver({ definitions }), { prefix: p, layout: 'legacy' });
    const hash = await client.command('HGETALL', `${p}:permissions:alice:accounts`);
    expect((hash as Buffer[]).map(String)).toEqual(['prod', '{"name":"prod","cloudProvider":"aws","permissions":{"READ":["dev"]}}']);
  });

  it('writes exactly Fiat\'s keys for a user with one account, one application, one role and admin', async () => {
    const p = prefix();
    const client = redis.client();
    await writeUserPermission(client, {
      id: 'testUser', admin: true, accountManager: false, serviceAccounts: [], buildServices: [], extensionResources: {},
      accounts: [{ name: 'account', permissions: {} }],
      applications: [{ name: 'app', permissions: {}, details: {} }],
      roles: [{ name: 'role1', source: null }],
    }, { prefix: p });
    const keys = ((await client.command('KEYS', `${p}:*`)) as Buffer[]).map(String).sort();
    expect(keys).toEqual([
      `${p}:permissions-v2:testuser:accounts`, `${p}:permissions-v2:testuser:applications`, `${p}:permissions-v2:testuser:roles`,
      `${p}:permissions:admin`, `${p}:roles:role1`, `${p}:users`,
    ]);
    expect(await client.command('GET', `${p}:permissions-v2:testuser:applications`)).toEqual(encodeResourceMap({ app: { name: 'app', permissions: {}, details: {} } }));
  });

  it('removes a role from the reverse index and deletes keys of types the user no longer has', async () => {
    const p = prefix();
    const client = redis.client();
    const base = { id: 'u', admin: false, accountManager: false, serviceAccounts: [], buildServices: [], extensionResources: {}, applications: [] };
    await writeUserPermission(client, { ...base, accounts: [{ name: 'a', permissions: {} }], roles: [{ name: 'old', source: null }] }, { prefix: p });
    await writeUserPermission(client, { ...base, accounts: [], roles: [{ name: 'new', source: null }] }, { prefix: p });
    expect(await client.command('SISMEMBER', `${p}:roles:old`, 'u')).toBe(0);
    expect(await client.command('SISMEMBER', `${p}:roles:new`, 'u')).toBe(1);
    expect(await client.command('EXISTS', `${p}:permissions-v2:u:accounts`)).toBe(0);
  });
});

describe('a Redis that is down or slow', () => {
  it('gives the legacy fallback view when nothing listens, without hanging', async () => {
    const server: Server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const source = createRedisPermissionSource({ port, connectTimeoutMs: 500 });
    const fallback = createAsyncPermissionEvaluator({ source, legacyFallback: true, fallbackAccounts: ['prod'] });
    expect((await fallback.hasPermission('alice', 'prod', 'account', 'WRITE')).allowed).toBe(true);
    expect((await fallback.getPermission('alice'))?.legacyFallback).toBe(true);
    const strict = createAsyncPermissionEvaluator({ source });
    const denied = await strict.hasPermission('alice', 'prod', 'account', 'READ');
    expect(denied.allowed).toBe(false);
    expect(denied.reason).toMatch(/^Access denied to account prod - required authorization: READ \(permissions of user alice could not be read: the permission source failed: cannot reach Redis at 127\.0\.0\.1:\d+/);
    await source.close();
  });

  it('times out a Redis that accepts connections but does not answer, and recovers when it answers again', async () => {
    const p = prefix();
    await writeUserPermission(redis.client(), { id: 'alice', admin: true, accountManager: false, accounts: [], applications: [], serviceAccounts: [], roles: [], buildServices: [], extensionResources: {} }, { prefix: p });
    const pauser = redis.client();
    await pauser.command('CLIENT', 'PAUSE', 1500, 'ALL');
    const source = createRedisPermissionSource({ port: redis.port, prefix: p, commandTimeoutMs: 200 });
    const fiat = createAsyncPermissionEvaluator({ source, cache: false });
    const paused = await fiat.hasPermission('alice', 'x', 'application', 'READ');
    expect(paused.reason).toContain('did not answer within 200 ms');
    await pauser.command('CLIENT', 'UNPAUSE');
    expect((await fiat.hasPermission('alice', 'x', 'application', 'READ')).allowed).toBe(true);
    await source.close();
  });

  it('retries with Fiat\'s backoff when asked to, then falls back', async () => {
    let calls = 0;
    const fiat = createAsyncPermissionEvaluator({
      source: { getUserPermission: async () => { calls++; throw new Error('flaky'); } },
      retry: { initialBackoffMillis: 10, multiplier: 2, maxElapsedMillis: 50 },
      legacyFallback: true,
    });
    expect((await fiat.hasPermission('alice', 'app', 'application', 'READ')).allowed).toBe(true);
    // waits 10, 20, 40 (sum 70 >= 50 stops): four attempts.
    expect(calls).toBe(4);
  });
});

describe('RedisClient', () => {
  it('parses Redis URLs with credentials and database', async () => {
    const c = new RedisClient({ url: `redis://127.0.0.1:${redis.port}/2` });
    await c.command('SET', 'k', 'v');
    expect(String(await c.command('GET', 'k'))).toBe('v');
    await c.close();
    expect(() => new RedisClient({ url: 'http://x' })).toThrow('expected redis:// or rediss://');
  });

  it('rejects error replies without breaking the connection', async () => {
    const c = redis.client();
    await expect(c.command('NOSUCHCOMMAND')).rejects.toThrow(/unknown command/);
    expect(await c.command('PING')).toBe('PONG');
  });
});
