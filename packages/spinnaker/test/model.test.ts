import { describe, expect, it } from 'vitest';
import { SpinnakerError } from '@verdict/spinnaker';
import { accessDeniedMessage, keySuffix, parseAuthorization, parseResourceType } from '../src/model.js';
import { authorizationsFor, isRestricted, normalizePermissions, permissionsToJSON, unionPermissions, withExecuteFallback, withoutCreate } from '../src/permissions.js';

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return error instanceof SpinnakerError ? error.code : 'not a SpinnakerError';
  }
  return undefined;
}

describe('parseAuthorization', () => {
  it('upper-cases names as Authorization.parse does', () => {
    expect(parseAuthorization('read')).toBe('READ');
    expect(parseAuthorization('Execute')).toBe('EXECUTE');
    expect(parseAuthorization('CREATE')).toBe('CREATE');
  });

  it('returns null for null and undefined', () => {
    expect(parseAuthorization(null)).toBeNull();
    expect(parseAuthorization(undefined)).toBeNull();
  });

  it('throws INVALID_AUTHORIZATION for unknown names, with the expected values in the message', () => {
    expect(codeOf(() => parseAuthorization('delete'))).toBe('INVALID_AUTHORIZATION');
    expect(() => parseAuthorization('admin')).toThrow('unknown authorization "admin": expected one of READ, WRITE, EXECUTE, CREATE (any case)');
  });
});

describe('parseResourceType', () => {
  it.each([':accounts', 'abc:accounts', 'abc:def:accounts', 'account', 'accounts', 'aCCoUnTs'])('parses %s as account (Fiat spec cases)', (key) => {
    expect(parseResourceType(key)).toBe('account');
  });

  it('parses the plural keys of every built-in type', () => {
    expect(parseResourceType(':applications')).toBe('application');
    expect(parseResourceType('service_accounts')).toBe('service_account');
    expect(parseResourceType('BUILD_SERVICE')).toBe('build_service');
    expect(parseResourceType('roles')).toBe('role');
  });

  it('strips only a lowercase trailing s, so ACCOUNTS is the extension type accounts', () => {
    expect(parseResourceType('ACCOUNTS')).toBe('accounts');
  });

  it.each(['', 'account:', 'account:s'])('throws INVALID_RESOURCE_TYPE for the malformed key %j', (key) => {
    expect(codeOf(() => parseResourceType(key))).toBe('INVALID_RESOURCE_TYPE');
  });

  it('throws INVALID_RESOURCE_TYPE for null (Fiat: NullPointerException)', () => {
    expect(codeOf(() => parseResourceType(null))).toBe('INVALID_RESOURCE_TYPE');
  });

  it('gives the Redis key suffix and Fiat\'s 403 wording', () => {
    expect(keySuffix('build_service')).toBe('build_services');
    expect(accessDeniedMessage('application', 'checkout', 'WRITE')).toBe('Access denied to application checkout - required authorization: WRITE');
    expect(accessDeniedMessage('service_account', 'bot', null)).toBe('Access denied to service account bot');
  });
});

describe('permissions', () => {
  it('trims and lower-cases roles, drops empty names and empty lists, and parses keys in any case', () => {
    const p = normalizePermissions({ read: [' Dev-Team ', '', '  '], WRITE: [], Execute: ['OPS'] });
    expect(permissionsToJSON(p)).toEqual({ READ: ['dev-team'], EXECUTE: ['ops'] });
  });

  it('treats an empty map as unrestricted, which grants all four authorizations', () => {
    const p = normalizePermissions({ READ: [' '] });
    expect(isRestricted(p)).toBe(false);
    expect(authorizationsFor(p, [])).toEqual(['READ', 'WRITE', 'EXECUTE', 'CREATE']);
  });

  it('grants a restricted map only the authorizations whose roles the user holds', () => {
    const p = normalizePermissions({ READ: ['dev'], WRITE: ['ops'], CREATE: ['admins'] });
    expect(authorizationsFor(p, ['dev'])).toEqual(['READ']);
    expect(authorizationsFor(p, ['ops', 'admins'])).toEqual(['WRITE', 'CREATE']);
    expect(authorizationsFor(p, ['nobody'])).toEqual([]);
  });

  it('rejects an unknown authorization key with its JSON pointer', () => {
    expect(() => normalizePermissions({ DELETE: ['x'] }, '/applications/0/permissions')).toThrow('at /applications/0/permissions/DELETE');
  });

  it('unions restricted maps as an ordered union and ignores unrestricted ones', () => {
    const merged = unionPermissions([normalizePermissions({ READ: ['a'] }), normalizePermissions({}), normalizePermissions({ READ: ['b', 'a'], WRITE: ['c'] })]);
    expect(permissionsToJSON(merged)).toEqual({ READ: ['a', 'b'], WRITE: ['c'] });
  });

  it('copies READ (or WRITE) to an empty EXECUTE only when the map is restricted', () => {
    const restricted = normalizePermissions({ READ: ['dev'], WRITE: ['ops'] });
    expect(withExecuteFallback(restricted, 'READ').EXECUTE).toEqual(['dev']);
    expect(withExecuteFallback(restricted, 'WRITE').EXECUTE).toEqual(['ops']);
    expect(withExecuteFallback(normalizePermissions({ READ: ['dev'], EXECUTE: ['ci'] }), 'READ').EXECUTE).toEqual(['ci']);
    expect(withExecuteFallback(normalizePermissions({}), 'READ')).toEqual({});
    expect(withExecuteFallback(normalizePermissions({ WRITE: ['ops'] }), 'READ').EXECUTE).toBeUndefined();
  });

  it('strips CREATE', () => {
    expect(permissionsToJSON(withoutCreate(normalizePermissions({ READ: ['a'], CREATE: ['b'] })))).toEqual({ READ: ['a'] });
    expect(withoutCreate(normalizePermissions({ CREATE: ['b'] }))).toEqual({});
  });
});
