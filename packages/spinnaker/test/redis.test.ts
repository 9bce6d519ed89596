import { beforeAll, describe, expect, it } from 'vitest';
import { UNRESTRICTED_USER, createAsyncPermissionEvaluator, createFiatResolver, createPermissionEvaluator, type FiatDefinitions } from '@verdict/spinnaker';
import { createRedisPermissionSource, syncToRedis, writeUserPermission } from '@verdict/spinnaker/redis';
import { encodeResourceMap } from '../src/redis/layout.js';
import { loadLz4, lz4CompressWithLength } from '../src/redis/lz4.js';
import { CLIENTS, freePort, freshPrefix, redisForThisFile, type TestClient } from './redis-server.js';

// lz4-napi is an optional peer, loaded on first use; these tests call the codec directly.
beforeAll(() => loadLz4());

const server = redisForThisFile();

const prefix = freshPrefix;
const lz4json = (text: string) => lz4CompressWithLength(Buffer.from(text, 'utf8'));
const strings = (reply: unknown) => (reply as Buffer[]).map(String).sort();

const definitions: FiatDefinitions = {
  users: { alice: ['dev'], root: ['admins'] },
  accounts: [{ name: 'prod', cloudProvider: 'aws', permissions: { READ: ['dev'] } }, { name: 'open' }],
  applications: [{ name: 'checkout', permissions: { READ: ['dev'], CREATE: ['dev'] } }],
  serviceAccounts: [{ name: 'bot', memberOf: ['dev'] }],
  extensionResources: { my_ext: [{ name: 'thing', permissions: { WRITE: ['dev'] } }] },
};

/** What Fiat's RedisPermissionsRepository.put writes for the reference user (Jackson JSON, LZ4 with length). */
async function writeReferenceUser(p: string): Promise<void> {
  const set = (type: string, json: string) => server().command('SET', `${p}:permissions-v2:${type}`, lz4json(json));
  await server().command('SADD', `${p}:users`, 'alice@example.com', UNRESTRICTED_USER, 'root');
  await set('alice@example.com:accounts', '{"prod-aws":{"name":"prod-aws","cloudProvider":"aws","permissions":{"READ":["ops"],"WRITE":["ops"]}}}');
  await set('alice@example.com:applications', '{"checkout":{"name":"checkout","permissions":{"READ":["dev-team"],"WRITE":["ops"],"EXECUTE":["dev-team"]},"details":{"email":"a@example.com"}}}');
  await set('alice@example.com:service_accounts', '{"deploy-bot@managed-service-accounts":{"name":"deploy-bot@managed-service-accounts","memberOf":["ops"]}}');
  await set('alice@example.com:roles', '{"dev-team":{"name":"dev-team","source":"GITHUB_TEAMS"},"ops":{"name":"ops","source":"EXTERNAL"}}');
  await set('alice@example.com:build_services', '{"jenkins-main":{"name":"jenkins-main","permissions":{"READ":["dev-team"]}}}');
  await set(`${UNRESTRICTED_USER}:accounts`, '{"staging-k8s":{"name":"staging-k8s","cloudProvider":"kubernetes","permissions":{}}}');
  await set(`${UNRESTRICTED_USER}:applications`, '{"sandbox":{"name":"sandbox","permissions":{},"details":{}}}');
  await server().command('SET', `${p}:last_modified:${UNRESTRICTED_USER}`, '1700000000');
  await server().command('SADD', `${p}:permissions:admin`, 'root');
}

for (const kind of CLIENTS) {
  describe(`Fiat's Redis layout through a ${kind.name} client`, () => {
    async function setup(): Promise<TestClient & { p: string }> {
      return { ...(await kind.make(server().port)), p: prefix() };
    }

    it('reads the reference user, merged with the unrestricted user, as Fiat\'s GET /authorize returns it', async () => {
      const { client, close, p } = await setup();
      try {
        await writeReferenceUser(p);
        const fiat = createAsyncPermissionEvaluator({ source: createRedisPermissionSource({ client, prefix: p }) });
        expect(await fiat.getUserPermission('Alice@Example.com')).toEqual({
          name: 'alice@example.com',
          accounts: [{ name: 'prod-aws', authorizations: ['READ', 'WRITE'] }, { name: 'staging-k8s', authorizations: ['READ', 'WRITE', 'EXECUTE', 'CREATE'] }],
          applications: [{ name: 'checkout', authorizations: ['READ', 'WRITE', 'EXECUTE'] }, { name: 'sandbox', authorizations: ['READ', 'WRITE', 'EXECUTE', 'CREATE'] }],
          serviceAccounts: [{ name: 'deploy-bot@managed-service-accounts', memberOf: ['ops'] }],
          roles: [{ name: 'dev-team', source: 'GITHUB_TEAMS' }, { name: 'ops', source: 'EXTERNAL' }],
          buildServices: [{ name: 'jenkins-main', authorizations: ['READ'] }],
          extensionResources: {},
          admin: false, accountManager: false, legacyFallback: false, allowAccessToUnknownApplications: false,
        });
        expect(await fiat.hasPermission('alice@example.com', 'checkout', 'application', 'WRITE')).toEqual({ allowed: true, reason: 'application checkout grants WRITE to user alice@example.com' });
        expect(await fiat.hasPermission('alice@example.com', 'prod-aws', 'account', 'EXECUTE')).toEqual({ allowed: false, reason: 'Access denied to account prod-aws - required authorization: EXECUTE' });
        expect((await fiat.hasPermission('root', 'anything', 'application', 'WRITE')).reason).toBe('user root is an admin: admins may do anything on any resource');
        expect((await fiat.hasPermission('mallory', 'sandbox', 'application', 'READ')).reason).toContain('user mallory is not known to Fiat');
      } finally {
        await close();
      }
    });

    it('writes what the definitions resolve to, and reading it back gives the same views (v2 and legacy layouts)', async () => {
      const { client, close } = await setup();
      try {
        const resolver = createFiatResolver({ definitions, fiat: { adminRoles: ['admins'] } });
        const inMemory = createPermissionEvaluator({ source: resolver, fiat: { adminRoles: ['admins'] } });
        for (const layout of ['v2', 'legacy'] as const) {
          const p = prefix();
          expect(await syncToRedis(client, resolver, { prefix: p, layout })).toEqual(resolver.userIds());
          const fiat = createAsyncPermissionEvaluator({ source: createRedisPermissionSource({ client, prefix: p, layout, extensionTypes: ['my_ext'] }) });
          for (const user of ['alice', 'root', 'bot', UNRESTRICTED_USER]) expect(await fiat.getUserPermission(user)).toEqual(inMemory.getUserPermission(user));
        }
      } finally {
        await close();
      }
    });

    it('writes exactly Fiat\'s keys, keeps the role index and deletes keys of types a user no longer has', async () => {
      const { client, close, p } = await setup();
      try {
        const base = { id: 'testUser', accountManager: false, serviceAccounts: [], buildServices: [], extensionResources: {} };
        await writeUserPermission(client, {
          ...base, admin: true, accounts: [{ name: 'account', permissions: {} }], applications: [{ name: 'app', permissions: {}, details: {} }], roles: [{ name: 'role1', source: null }],
        }, { prefix: p });
        expect(strings(await server().command('KEYS', `${p}:*`))).toEqual([
          `${p}:permissions-v2:testuser:accounts`, `${p}:permissions-v2:testuser:applications`, `${p}:permissions-v2:testuser:roles`,
          `${p}:permissions:admin`, `${p}:roles:role1`, `${p}:users`,
        ]);
        expect(await server().command('GET', `${p}:permissions-v2:testuser:applications`)).toEqual(encodeResourceMap({ app: { name: 'app', permissions: {}, details: {} } }));
        await writeUserPermission(client, { ...base, admin: false, accounts: [], applications: [], roles: [{ name: 'role2', source: null }] }, { prefix: p });
        expect(await server().command('SISMEMBER', `${p}:roles:role1`, 'testuser')).toBe(0);
        expect(await server().command('SISMEMBER', `${p}:roles:role2`, 'testuser')).toBe(1);
        expect(await server().command('EXISTS', `${p}:permissions-v2:testuser:accounts`)).toBe(0);
        expect(await server().command('SISMEMBER', `${p}:permissions:admin`, 'testuser')).toBe(0);
      } finally {
        await close();
      }
    });

    it('stores the legacy layout as hashes of name to JSON', async () => {
      const { client, close, p } = await setup();
      try {
        await syncToRedis(client, createFiatResolver({ definitions }), { prefix: p, layout: 'legacy' });
        expect(strings(await server().command('HKEYS', `${p}:permissions:alice:accounts`))).toEqual(['prod']);
        expect(String(await server().command('HGET', `${p}:permissions:alice:accounts`, 'prod'))).toBe('{"name":"prod","cloudProvider":"aws","permissions":{"READ":["dev"]}}');
      } finally {
        await close();
      }
    });

    it('times out a paused Redis, answering with the fallback, and reads again once it answers', async () => {
      const { client, close, p } = await setup();
      try {
        await writeUserPermission(client, { id: 'alice', admin: true, accountManager: false, accounts: [], applications: [], serviceAccounts: [], roles: [], buildServices: [], extensionResources: {} }, { prefix: p });
        const fiat = createAsyncPermissionEvaluator({ source: createRedisPermissionSource({ client, prefix: p, commandTimeoutMs: 200 }), cache: false });
        await server().command('CLIENT', 'PAUSE', 1000, 'ALL');
        const paused = await fiat.hasPermission('alice', 'x', 'application', 'READ');
        expect(paused.allowed).toBe(false);
        expect(paused.reason).toMatch(/the permission source failed: Redis did not answer SISMEMBER t\d+:fiat:users within 200 ms/);
        await server().command('CLIENT', 'UNPAUSE');
        expect((await fiat.hasPermission('alice', 'x', 'application', 'READ')).allowed).toBe(true);
      } finally {
        await close();
      }
    });

    it('fails closed within the timeout when the client cannot reach Redis', async () => {
      const { client, close } = await kind.make(await freePort(), { connect: false });
      try {
        const strict = createAsyncPermissionEvaluator({ source: createRedisPermissionSource({ client, commandTimeoutMs: 300 }) });
        const denied = await strict.hasPermission('alice', 'prod', 'account', 'READ');
        expect(denied.allowed).toBe(false);
        expect(denied.reason).toMatch(/^Access denied to account prod - required authorization: READ \(permissions of user alice could not be read: .*Redis did not answer SISMEMBER spinnaker:fiat:users within 300 ms \(the client is (not connected|connecting|reconnecting)\);/);
        const fallback = createAsyncPermissionEvaluator({ source: createRedisPermissionSource({ client, commandTimeoutMs: 300 }), legacyFallback: true, fallbackAccounts: ['prod'] });
        expect((await fallback.hasPermission('alice', 'prod', 'account', 'WRITE')).allowed).toBe(true);
      } finally {
        await close();
      }
    });
  });
}
