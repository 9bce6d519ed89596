import { beforeAll, describe, expect, it } from 'vitest';
import * as spinnaker from '@verdict/spinnaker';
import * as internal from '@verdict/spinnaker/internal';
import * as redis from '@verdict/spinnaker/redis';
import { AUTHORIZATIONS, FIAT_CLIENT_RETRY, PERMISSIONS_KIND, RESOURCE_TYPES, UNRESTRICTED_USER } from '@verdict/spinnaker';
import { ALL_AUTHORIZATIONS, isAuthorization } from '../src/model.js';
import { resolveFiatConfig } from '../src/resolver.js';
import { emptyUserPermission, mergeUserPermission, resourceToJSON, toRole, toServiceAccount } from '../src/resources.js';
import { convertUserId } from '../src/server.js';
import { toView } from '../src/view.js';
import { fiatRedisKeys } from '@verdict/spinnaker/redis';
import { decodeResourceMap, encodeResourceMap } from '../src/redis/layout.js';
import { loadLz4 } from '../src/redis/lz4.js';

// lz4-napi is an optional peer, loaded on first use; these tests call the codec directly.
beforeAll(() => loadLz4());

describe('the public surface of @verdict/spinnaker', () => {
  it('exports exactly these runtime values from each entry point', () => {
    expect(Object.keys(spinnaker).sort()).toEqual([
      'AUTHORIZATIONS', 'FIAT_CLIENT_RETRY', 'PERMISSIONS_KIND', 'PERMISSIONS_TEMPLATE', 'RESOURCE_TYPES', 'SpinnakerError', 'UNRESTRICTED_USER', 'chaosMonkeyPermissionSource',
      'createAsyncPermissionEvaluator', 'createFiatResolver', 'createPermissionEvaluator', 'evaluateView', 'fiatQuery', 'parseView', 'policyPermissionSource',
      'prefixPermissionSource', 'spinnakerMatchDialect',
    ]);
    expect(Object.keys(redis).sort()).toEqual(['createRedisPermissionSource', 'fiatRedisKeys', 'syncToRedis', 'writeUserPermission']);
    expect(Object.keys(internal).sort()).toEqual(['resourceInput']);
  });
});

describe('public constants and helpers', () => {
  it('name Fiat\'s vocabulary', () => {
    expect(AUTHORIZATIONS).toEqual(['READ', 'WRITE', 'EXECUTE', 'CREATE']);
    expect(ALL_AUTHORIZATIONS).toEqual(AUTHORIZATIONS);
    expect(RESOURCE_TYPES.SERVICE_ACCOUNT).toBe('service_account');
    expect(UNRESTRICTED_USER).toBe('__unrestricted_user__');
    expect(PERMISSIONS_KIND).toBe('SpinnakerPermissions');
    expect(isAuthorization('READ')).toBe(true);
    expect(isAuthorization('read')).toBe(false);
    expect(FIAT_CLIENT_RETRY).toEqual({ initialBackoffMillis: 500, multiplier: 1.5, maxElapsedMillis: 10_000 });
  });

  it('convert user ids as Fiat\'s controller does', () => {
    expect(convertUserId('ANONYMOUS')).toBe(UNRESTRICTED_USER);
    expect(convertUserId('Alice@Example.com')).toBe('alice@example.com');
  });

  it('apply Fiat\'s defaults to the server settings', () => {
    const config = resolveFiatConfig({ adminRoles: [' Admins '] });
    expect([...config.adminRoles]).toEqual(['admins']);
    expect(config.executeFallback).toBe('READ');
    expect(config.allowAccessToUnknownApplications).toBe(false);
  });

  it('build, merge and view stored permissions', () => {
    const own = { ...emptyUserPermission('Bob'), roles: [toRole({ name: 'Dev', source: 'LDAP' })], accounts: [{ name: 'a', cloudProvider: 'aws', permissions: { READ: ['dev'] } }] };
    const unrestricted = { ...emptyUserPermission(UNRESTRICTED_USER), accounts: [{ name: 'a', cloudProvider: 'gce', permissions: {} }, { name: 'a', cloudProvider: 'aws', permissions: {} }] };
    const merged = mergeUserPermission(own, unrestricted);
    expect(merged.accounts.map((a) => a.cloudProvider)).toEqual(['aws', 'gce']);
    expect(toView(merged, { allowAccessToUnknownApplications: true })).toMatchObject({
      name: 'bob', roles: [{ name: 'dev', source: 'LDAP' }], accounts: [{ name: 'a', authorizations: ['READ'] }, { name: 'a', authorizations: ['READ', 'WRITE', 'EXECUTE', 'CREATE'] }],
      allowAccessToUnknownApplications: true,
    });
  });

  it('write stored resources as Fiat\'s Jackson JSON', () => {
    expect(resourceToJSON('account', { name: 'a', permissions: { WRITE: ['x'] } })).toEqual({ name: 'a', permissions: { WRITE: ['x'] } });
    expect(resourceToJSON('role', toRole('Ops'))).toEqual({ name: 'ops' });
    expect(resourceToJSON('service_account', toServiceAccount({ name: 'bot', memberOf: [' OPS '] }))).toEqual({ name: 'bot', memberOf: ['ops'] });
  });

  it('name Fiat\'s Redis keys and round-trip stored maps', () => {
    const keys = fiatRedisKeys('spinnaker:fiat');
    expect(keys.permissions('alice', 'build_service')).toBe('spinnaker:fiat:permissions-v2:alice:build_services');
    expect(fiatRedisKeys(undefined, 'legacy').permissions('alice', 'application')).toBe('spinnaker:fiat:permissions:alice:applications');
    expect(keys.admin).toBe('spinnaker:fiat:permissions:admin');
    const map = { app: { name: 'app', permissions: {}, details: {} } };
    expect(decodeResourceMap(encodeResourceMap(map), 'k')).toEqual(map);
    expect(() => decodeResourceMap(Buffer.from([1, 2]), 'spinnaker:fiat:x')).toThrow('cannot read spinnaker:fiat:x');
  });
});
