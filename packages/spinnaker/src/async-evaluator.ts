/**
 * `createAsyncPermissionEvaluator`: the same evaluator over an asynchronous
 * source (Fiat's Redis layout, a remote Fiat). Only the lookup is async; the
 * decision is the synchronous `permissionContains`.
 */
import { SpinnakerError } from './errors.js';
import { ClientCore, DISABLED, type ClientConfig, type Lookup } from './client.js';
import { parseArguments, permissionContains, type PermissionDecision } from './evaluate-view.js';
import { UNRESTRICTED_USER } from './model.js';
import type { FiatQuery } from './query.js';
import type { UserPermission } from './resources.js';
import { convertUserId, creationDecision, creationPrecheck, serverView, userNotFound } from './server.js';
import { parseView, type UserPermissionView } from './view.js';

/** A repository read asynchronously: the user's stored permissions merged with the unrestricted user, `undefined` when unknown; rejects on failure. */
export interface AsyncPermissionSource {
  getUserPermission(userId: string): Promise<UserPermission | undefined>;
}

/** Fiat's client retry (`services.fiat.retry.*`): exponential backoff; a failure is retried until the summed waits reach `maxElapsedMillis`. */
export interface RetryConfig {
  /** First wait in ms (Fiat: 500). */
  initialBackoffMillis?: number;
  /** Factor between waits (Fiat: 1.5). */
  multiplier?: number;
  /** Stop retrying once the waits add up to this many ms (Fiat: 10 000); 0 = one attempt. */
  maxElapsedMillis?: number;
}

/** Fiat's client retry defaults, for callers that want them (verdict's default is one attempt). */
export const FIAT_CLIENT_RETRY: Readonly<Required<RetryConfig>> = Object.freeze({ initialBackoffMillis: 500, multiplier: 1.5, maxElapsedMillis: 10_000 });

/** Configuration of {@link createAsyncPermissionEvaluator}: exactly one of `source` and `views`. */
export interface AsyncPermissionEvaluatorConfig extends ClientConfig {
  source?: AsyncPermissionSource;
  /** Fetches the `UserPermission.View` of a user (e.g. from a real Fiat); `undefined` for an unknown user. */
  views?: (username: string) => Promise<unknown>;
  /** Retries of a failed lookup (default: none; each attempt is bounded by the source's own timeouts). */
  retry?: RetryConfig;
}

/** {@link PermissionEvaluator} with asynchronous lookups. */
export interface AsyncPermissionEvaluator {
  hasPermission(username: string | null | undefined, resourceName: string | null | undefined, resourceType: string | null | undefined, authorization: string | null | undefined): Promise<PermissionDecision>;
  check(query: FiatQuery): Promise<PermissionDecision>;
  canCreate(username: string, resourceType: string, resource: unknown): Promise<PermissionDecision>;
  isAdmin(username: string): Promise<boolean>;
  getUserPermission(userId: string): Promise<UserPermissionView>;
  getPermission(username: string): Promise<UserPermissionView | undefined>;
  invalidatePermission(username: string): void;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function withRetry<T>(retry: RetryConfig | undefined, attempt: () => Promise<T>): Promise<T> {
  const initial = retry?.initialBackoffMillis ?? FIAT_CLIENT_RETRY.initialBackoffMillis;
  const multiplier = retry?.multiplier ?? FIAT_CLIENT_RETRY.multiplier;
  const max = retry?.maxElapsedMillis ?? 0;
  let elapsed = 0;
  let interval = initial;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if ((error instanceof SpinnakerError && error.code === 'USER_NOT_FOUND') || elapsed >= max) throw error;
      const wait = Math.floor(interval);
      elapsed += wait;
      interval *= multiplier;
      await sleep(wait);
    }
  }
}

/**
 * Creates Fiat's evaluator over an asynchronous source. A source that fails or
 * times out gives the legacy fallback view when `legacyFallback` is on, else a
 * denial whose reason names the failure. Concurrent lookups of one user share a request.
 */
export function createAsyncPermissionEvaluator(config: AsyncPermissionEvaluatorConfig): AsyncPermissionEvaluator {
  // A remote source (Redis, a Fiat server): an unknown user's absence is remembered (docs/spinnaker.md, "Redis").
  const core = new ClientCore(config, { rememberAbsent: true });
  const given = [config.source && 'source', config.views && 'views'].filter(Boolean);
  if (given.length !== 1) throw SpinnakerError.invalidConfig(`give exactly one of source or views (got ${given.length === 0 ? 'none' : given.join(', ')})`);

  let fetchOnce: (username: string) => Promise<UserPermissionView>;
  if (config.views) {
    const views = config.views;
    fetchOnce = async (username) => {
      const view = await views(username);
      if (view === undefined || view === null) throw userNotFound(username);
      return parseView(view);
    };
  } else {
    const source = config.source!;
    if (typeof source.getUserPermission !== 'function') throw SpinnakerError.invalidConfig('source must have getUserPermission(userId)');
    fetchOnce = async (username) => {
      const id = convertUserId(username);
      let own;
      let unrestricted;
      try {
        own = await source.getUserPermission(id);
        if (!own && core.fiat.defaultToUnrestrictedUser) unrestricted = await source.getUserPermission(UNRESTRICTED_USER);
      } catch (error) {
        if (error instanceof SpinnakerError) throw error;
        throw new SpinnakerError('SOURCE_FAILURE', `the permission source failed: ${(error as Error)?.message ?? String(error)}`, { cause: error });
      }
      return serverView(username, own, unrestricted, core.fiat);
    };
  }
  const fetchView = (username: string) => withRetry(config.retry, () => fetchOnce(username));

  const inflight = new Map<string, Promise<Lookup>>();
  const lookup = async (username: string | null | undefined): Promise<Lookup> => {
    if (username === null || username === undefined || username === '') return { view: undefined, missing: 'no user name was given' };
    const cached = core.cached(username);
    if (cached) return { view: cached, missing: '' };
    const absent = core.knownAbsent(username);
    if (absent) return absent;
    let pending = inflight.get(username);
    if (!pending) {
      pending = fetchView(username).then((view) => core.stored(username, view), (error: unknown) => core.failed(username, error)).finally(() => inflight.delete(username));
      inflight.set(username, pending);
    }
    return pending;
  };

  const hasPermission: AsyncPermissionEvaluator['hasPermission'] = async (username, resourceName, resourceType, authorization) => {
    if (!core.enabled) return { ...DISABLED };
    const parsed = parseArguments(resourceName, resourceType, authorization);
    if (!parsed.ok) return parsed.decision;
    const { view, missing } = await lookup(username);
    return permissionContains(view, parsed, missing);
  };

  return {
    hasPermission,
    check: (query) => hasPermission(query.user, query.resourceName, query.resourceType, query.authorization),
    async canCreate(username, resourceType, resource) {
      if (!core.enabled) return { ...DISABLED };
      try {
        const early = creationPrecheck(resourceType, core.fiat);
        if (early) return early;
        return creationDecision(await fetchView(username), resource, core.sources);
      } catch (error) {
        return { allowed: false, reason: `cannot decide whether user ${username} may create ${String(resourceType)}: ${(error as Error).message}` };
      }
    },
    isAdmin: async (username) => !core.enabled || (await lookup(username)).view?.admin === true,
    getUserPermission: (userId) => fetchView(userId),
    getPermission: async (username) => (await lookup(username)).view,
    invalidatePermission: (username) => {
      core.cache?.delete(username);
      core.absent?.delete(username);
    },
  };
}
