import { describe, expect, it } from 'vitest';
import { SpinnakerError, createAsyncPermissionEvaluator, createPermissionEvaluator, evaluateView, fiatQuery, parseView, type UserPermissionView } from '@verdict/spinnaker';
import { fallbackView } from '../src/server.js';

function view(overrides: Partial<UserPermissionView> = {}): UserPermissionView {
  return {
    name: 'alice', accounts: [{ name: 'prod', authorizations: ['READ'] }], applications: [{ name: 'known', authorizations: [] }, { name: 'checkout', authorizations: ['READ', 'EXECUTE'] }],
    serviceAccounts: [{ name: 'bot', memberOf: ['dev'] }], roles: [{ name: 'dev', source: 'LDAP' }], buildServices: [{ name: 'jenkins', authorizations: ['READ'] }],
    extensionResources: { My_Ext: [{ name: 'thing', authorizations: ['WRITE'] }] },
    admin: false, accountManager: false, legacyFallback: false, allowAccessToUnknownApplications: false, ...overrides,
  };
}

describe('evaluateView', () => {
  it('applies Fiat\'s evaluator to a view', () => {
    expect(evaluateView(view(), 'checkout', 'application', 'EXECUTE')).toEqual({ allowed: true, reason: 'application checkout grants EXECUTE to user alice' });
    expect(evaluateView(view(), 'CHECKOUT', 'application', 'WRITE')).toEqual({ allowed: false, reason: 'Access denied to application checkout - required authorization: WRITE'.replace('checkout', 'CHECKOUT') });
    expect(evaluateView(view(), 'thing', 'my_ext', 'WRITE').allowed).toBe(true);
  });

  it('takes allowAccessToUnknownApplications from the view: unknown applications pass, known ones without the authorization do not', () => {
    const open = view({ allowAccessToUnknownApplications: true });
    expect(evaluateView(open, 'elsewhere', 'application', 'WRITE').allowed).toBe(true);
    expect(evaluateView(open, 'known', 'application', 'READ').allowed).toBe(false);
    expect(evaluateView(view(), 'elsewhere', 'application', 'READ').allowed).toBe(false);
  });

  it('takes legacyFallback from the view: applications, build services and extensions pass; accounts and service accounts do not', () => {
    const fallback = view({ legacyFallback: true });
    expect(evaluateView(fallback, 'known', 'application', 'WRITE').allowed).toBe(true);
    expect(evaluateView(fallback, 'jenkins', 'build_service', 'WRITE').allowed).toBe(true);
    expect(evaluateView(fallback, 'other', 'my_ext', 'WRITE').allowed).toBe(true);
    expect(evaluateView(fallback, 'prod', 'account', 'WRITE').allowed).toBe(false);
    expect(evaluateView(fallback, 'other', 'service_account', 'READ').allowed).toBe(false);
  });

  it('denies without a view and for null arguments; throws for CREATE and unknown authorizations', () => {
    expect(evaluateView(null, 'checkout', 'application', 'READ').reason).toBe('Access denied to application checkout - required authorization: READ (no UserPermission.View was given)');
    expect(evaluateView(view(), 'checkout', 'application', null).allowed).toBe(false);
    expect(() => evaluateView(view(), 'checkout', 'application', 'CREATE')).toThrow(SpinnakerError);
    expect(() => evaluateView(view(), 'checkout', 'application', 'OWN')).toThrow('unknown authorization "OWN"');
  });

  it('allows everything to an admin view', () => {
    expect(evaluateView(view({ admin: true }), 'r', 'role', 'READ').allowed).toBe(true);
  });

  it('matches Fiat\'s client fallback view', () => {
    expect(fallbackView('Alice', ['prod', ''])).toEqual(view({
      name: 'alice', accounts: [{ name: 'prod', authorizations: ['READ', 'WRITE', 'EXECUTE', 'CREATE'] }], applications: [], serviceAccounts: [], roles: [],
      buildServices: [], extensionResources: {}, legacyFallback: true, allowAccessToUnknownApplications: true,
    }));
  });
});

describe('parseView', () => {
  it('reads Fiat\'s JSON text, filling missing sets and flags and ignoring unknown fields', () => {
    const parsed = parseView('{"name":"bob","applications":[{"name":"a","authorizations":["WRITE","READ"]}],"roles":[{"name":"dev"}],"extra":1}');
    expect(parsed).toEqual({
      name: 'bob', accounts: [], applications: [{ name: 'a', authorizations: ['READ', 'WRITE'] }], serviceAccounts: [], roles: [{ name: 'dev', source: null }],
      buildServices: [], extensionResources: {}, admin: false, accountManager: false, legacyFallback: false, allowAccessToUnknownApplications: false,
    });
  });

  it('rejects malformed views with a JSON pointer', () => {
    expect(() => parseView('{"name":"bob","accounts":[{"name":"a","authorizations":["read"]}]}')).toThrow('unknown authorization "read": expected one of READ, WRITE, EXECUTE, CREATE (at /accounts/0/authorizations/0)');
    expect(() => parseView('[]')).toThrow('a UserPermission.View must be an object (got a list)');
    expect(() => parseView('{"name":"bob","admin":"yes"}')).toThrow('expected "admin" to be a boolean');
    expect(() => parseView('{')).toThrow(/not JSON/);
  });
});

describe('evaluators over views from a real Fiat', () => {
  it('use the views as they are, by user id', () => {
    const fiat = createPermissionEvaluator({ views: { Alice: JSON.stringify(view()) } });
    expect(fiat.hasPermission('alice', 'checkout', 'application', 'READ').allowed).toBe(true);
    expect(fiat.getUserPermission('ALICE').name).toBe('alice');
    expect(fiat.hasPermission('bob', 'checkout', 'application', 'READ').reason).toContain('user bob is not known to Fiat');
  });

  it('fetch views asynchronously and treat a failing fetch as a source failure', async () => {
    const fiat = createAsyncPermissionEvaluator({ views: async (user) => (user === 'alice' ? view() : undefined) });
    expect((await fiat.check(fiatQuery({ user: 'alice', resourceType: 'accounts', resourceName: 'prod', authorization: 'read' }))).allowed).toBe(true);
    expect(await fiat.isAdmin('alice')).toBe(false);
    const broken = createAsyncPermissionEvaluator({ views: async () => { throw new Error('fiat returned 503'); }, legacyFallback: true });
    expect((await broken.getPermission('alice'))?.legacyFallback).toBe(true);
  });

  it('share one lookup between concurrent checks of a user', async () => {
    let calls = 0;
    const fiat = createAsyncPermissionEvaluator({ views: async () => { calls++; await new Promise((r) => setTimeout(r, 10)); return view(); } });
    await Promise.all([1, 2, 3].map(() => fiat.hasPermission('alice', 'prod', 'account', 'READ')));
    expect(calls).toBe(1);
  });
});

describe('fiatQuery', () => {
  it('normalises the type and authorization', () => {
    expect(fiatQuery({ user: 'alice', resourceType: 'spinnaker:fiat:applications', resourceName: 'checkout', authorization: 'write' }))
      .toEqual({ user: 'alice', resourceType: 'application', resourceName: 'checkout', authorization: 'WRITE' });
    expect(fiatQuery({ user: 'a', resourceType: 'service_account', resourceName: 'bot', authorization: 'anything' }).authorization).toBe('anything');
  });

  it('rejects missing fields, CREATE and unknown authorizations', () => {
    expect(() => fiatQuery({ user: '', resourceType: 'application', resourceName: 'x', authorization: 'READ' })).toThrow('query.user must be a non-empty string');
    expect(() => fiatQuery({ user: 'a', resourceType: 'application', resourceName: 'x', authorization: 'CREATE' })).toThrow('use canCreate');
    expect(() => fiatQuery({ user: 'a', resourceType: 'application', resourceName: 'x', authorization: 'X' })).toThrow(SpinnakerError);
  });
});
