/**
 * `createPermissionEvaluator`: Fiat's `FiatPermissionEvaluator` in-process and
 * synchronous, over definitions, a synchronous {@link PermissionSource} or
 * views fetched from a real Fiat.
 */
import { SpinnakerError } from './errors.js';
import { ClientCore, DISABLED, type ClientConfig, type Lookup } from './client.js';
import type { FiatDefinitions } from './definitions.js';
import { parseArguments, permissionContains, type PermissionDecision } from './evaluate-view.js';
import { UNRESTRICTED_USER } from './model.js';
import type { FiatQuery } from './query.js';
import { createFiatResolver, type PermissionSource } from './resolver.js';
import { convertUserId, creationDecision, creationPrecheck, serverView, userNotFound } from './server.js';
import { parseView, type UserPermissionView } from './view.js';

/** A view per user id, or a function giving one (`undefined` for an unknown user). Views may be Fiat's JSON text or objects. */
export type ViewLookup = Readonly<Record<string, unknown>> | ((username: string) => unknown);

/** Configuration of {@link createPermissionEvaluator}: client and server settings plus exactly one of `definitions`, `source`, `views`. */
export interface PermissionEvaluatorConfig extends ClientConfig {
  /** Users, roles and resources; resolved as Fiat's server does. */
  definitions?: FiatDefinitions;
  /** A repository of stored permissions (already merged with the unrestricted user). */
  source?: PermissionSource;
  /** Views as Fiat's `GET /authorize/{userId}` returned them; used as they are. */
  views?: ViewLookup;
}

/** Fiat's permission evaluator, synchronous. */
export interface PermissionEvaluator {
  /** Fiat's `hasPermission(username, resourceName, resourceType, authorization)`, in Fiat's decision order. Throws for an unknown authorization, a malformed type or CREATE. */
  hasPermission(username: string | null | undefined, resourceName: string | null | undefined, resourceType: string | null | undefined, authorization: string | null | undefined): PermissionDecision;
  /** `hasPermission` for a {@link FiatQuery}. */
  check(query: FiatQuery): PermissionDecision;
  /** Fiat's `canCreate`: only applications; open unless `fiat.restrictApplicationCreation`; then admins or CREATE from the permission sources. */
  canCreate(username: string, resourceType: string, resource: unknown): PermissionDecision;
  /** Fiat's `isAdmin(user)`: true when disabled, else the view's `admin`. */
  isAdmin(username: string): boolean;
  /** The `UserPermission.View` JSON of `GET /authorize/{userId}`. Throws `USER_NOT_FOUND` (404) or `SOURCE_FAILURE`. */
  getUserPermission(userId: string): UserPermissionView;
  /** The view `hasPermission` uses for `username` (from the cache, the source, or the legacy fallback); `undefined` when there is none. */
  getPermission(username: string): UserPermissionView | undefined;
  /** Drops the cached view of `username`. */
  invalidatePermission(username: string): void;
}

function viewsLookup(views: ViewLookup): (username: string) => UserPermissionView | undefined {
  const parsed = new Map<string, UserPermissionView>();
  if (typeof views !== 'function') {
    for (const [user, view] of Object.entries(views)) parsed.set(user.toLowerCase(), parseView(view));
    return (username) => parsed.get(convertUserId(username)) ?? parsed.get(username.toLowerCase());
  }
  return (username) => {
    const view = views(username);
    return view === undefined || view === null ? undefined : parseView(view);
  };
}

function asSourceFailure(error: unknown): SpinnakerError {
  if (error instanceof SpinnakerError) return error;
  return new SpinnakerError('SOURCE_FAILURE', `the permission source failed: ${(error as Error)?.message ?? String(error)}`, { cause: error });
}

/**
 * Creates Fiat's evaluator over one permission source. Throws
 * `INVALID_CONFIG` when the configuration (or the definitions) is invalid.
 *
 * @example
 * const fiat = createPermissionEvaluator({ definitions: { users: { alice: ['ops'] }, applications: [{ name: 'checkout', permissions: { READ: ['ops'] } }] } });
 * fiat.hasPermission('alice', 'checkout', 'APPLICATION', 'READ'); // {allowed: true, reason: 'application checkout grants READ to user alice'}
 */
export function createPermissionEvaluator(config: PermissionEvaluatorConfig): PermissionEvaluator {
  const core = new ClientCore(config);
  const given = [config.definitions && 'definitions', config.source && 'source', config.views && 'views'].filter(Boolean);
  if (given.length !== 1) throw SpinnakerError.invalidConfig(`give exactly one of definitions, source or views (got ${given.length === 0 ? 'none' : given.join(', ')})`);

  let fetchView: (username: string) => UserPermissionView;
  if (config.views) {
    const lookup = viewsLookup(config.views);
    fetchView = (username) => {
      const view = lookup(username);
      if (!view) throw userNotFound(username);
      return view;
    };
  } else {
    const source: PermissionSource = config.source ?? createFiatResolver({ definitions: config.definitions!, fiat: config.fiat ?? {}, permissionSources: core.sources });
    if (typeof source.getUserPermission !== 'function') throw SpinnakerError.invalidConfig('source must have getUserPermission(userId)');
    fetchView = (username) => {
      const id = convertUserId(username);
      let own;
      let unrestricted;
      try {
        own = source.getUserPermission(id);
        if (!own && core.fiat.defaultToUnrestrictedUser) unrestricted = source.getUserPermission(UNRESTRICTED_USER);
      } catch (error) {
        throw asSourceFailure(error);
      }
      return serverView(username, own, unrestricted, core.fiat);
    };
  }

  const lookup = (username: string | null | undefined): Lookup => {
    if (username === null || username === undefined || username === '') return { view: undefined, missing: 'no user name was given' };
    const cached = core.cached(username);
    if (cached) return { view: cached, missing: '' };
    try {
      return core.stored(username, fetchView(username));
    } catch (error) {
      return core.failed(username, error);
    }
  };

  const hasPermission: PermissionEvaluator['hasPermission'] = (username, resourceName, resourceType, authorization) => {
    if (!core.enabled) return { ...DISABLED };
    const parsed = parseArguments(resourceName, resourceType, authorization);
    if (!parsed.ok) return parsed.decision;
    const { view, missing } = lookup(username);
    return permissionContains(view, parsed, missing);
  };

  return {
    hasPermission,
    check: (query) => hasPermission(query.user, query.resourceName, query.resourceType, query.authorization),
    canCreate(username, resourceType, resource) {
      if (!core.enabled) return { ...DISABLED };
      try {
        const early = creationPrecheck(resourceType, core.fiat);
        if (early) return early;
        return creationDecision(fetchView(username), resource, core.sources);
      } catch (error) {
        return { allowed: false, reason: `cannot decide whether user ${username} may create ${String(resourceType)}: ${(error as Error).message}` };
      }
    },
    isAdmin: (username) => !core.enabled || lookup(username).view?.admin === true,
    getUserPermission: (userId) => fetchView(userId),
    getPermission: (username) => lookup(username).view,
    invalidatePermission: (username) => core.cache?.delete(username),
  };
}

/** `createPermissionEvaluator(config).getUserPermission(userId)`: the `GET /authorize/{userId}` JSON for one user. */
export function getUserPermission(config: PermissionEvaluatorConfig, userId: string): UserPermissionView {
  return createPermissionEvaluator({ ...config, cache: false }).getUserPermission(userId);
}
