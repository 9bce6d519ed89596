/** What the sync and async evaluators share: Fiat's client settings, the view cache and the fallback view. */
import { SpinnakerError, messageOf } from './errors.js';
import { ViewCache } from './cache.js';
import { resolveFiatConfig, type FiatConfig, type ResolvedFiatConfig } from './resolver.js';
import { fallbackView } from './server.js';
import type { ResourcePermissionSource } from './sources.js';
import type { UserPermissionView } from './view.js';

/** Fiat's client settings (`services.fiat.*`), shared by both evaluators. */
export interface ClientConfig {
  /** `services.fiat.enabled`: when false every check is allowed. Default true (Fiat's default is false, but an evaluator exists to enforce). */
  enabled?: boolean;
  /** `services.fiat.legacyFallback` (default false): when permissions cannot be read, use the fallback view. */
  legacyFallback?: boolean;
  /** Accounts of the fallback view (Fiat reads `X-SPINNAKER-ACCOUNTS`); default none. */
  fallbackAccounts?: readonly string[] | ((username: string) => readonly string[]);
  /** Fiat's client cache (`services.fiat.cache.*`): defaults 1000 entries, 20 s after write; `false` disables it. */
  cache?: false | { maxEntries?: number; expiresAfterWriteSeconds?: number };
  /** Fiat's server settings (`fiat.*`). */
  fiat?: FiatConfig;
  /** Extra resource permission sources (prefixes, policies, chaos monkey) for definitions and `canCreate`. */
  permissionSources?: readonly ResourcePermissionSource[];
  /** Clock for the cache, in milliseconds (default `Date.now`). */
  now?: () => number;
}

/** The view a check uses, or why there is none. */
export interface Lookup {
  view: UserPermissionView | undefined;
  /** Why `view` is undefined (for the reason of a denial). */
  missing: string;
}

export class ClientCore {
  readonly enabled: boolean;
  readonly legacyFallback: boolean;
  readonly fiat: ResolvedFiatConfig;
  readonly sources: readonly ResourcePermissionSource[];
  readonly cache: ViewCache<UserPermissionView> | undefined;
  /**
   * Users the source did not know, with the views' bound and expiry (`rememberAbsent`, the async evaluator's
   * remote sources only): without it every check of an unknown user (anyone can send one) is a round trip to
   * the source. Fiat's clients do not cache a 404, and neither does the synchronous evaluator: its sources
   * are in memory, where a miss costs no more than a cache read, and a user added to them counts at once.
   */
  readonly absent: ViewCache<true> | undefined;
  private readonly accounts: (username: string) => readonly string[];

  constructor(config: ClientConfig, options: { rememberAbsent?: boolean } = {}) {
    if (!config || typeof config !== 'object') throw SpinnakerError.invalidConfig('an evaluator needs a configuration object');
    this.enabled = config.enabled !== false;
    this.legacyFallback = config.legacyFallback === true;
    this.fiat = resolveFiatConfig(config.fiat);
    this.sources = config.permissionSources ?? [];
    const accounts = config.fallbackAccounts;
    this.accounts = typeof accounts === 'function' ? accounts : () => accounts ?? [];
    const cache = config.cache;
    if (cache !== false) {
      const [maxEntries, expiresAfterMs, now] = [cache?.maxEntries ?? 1000, (cache?.expiresAfterWriteSeconds ?? 20) * 1000, config.now ?? Date.now];
      this.cache = new ViewCache(maxEntries, expiresAfterMs, now);
      if (options.rememberAbsent === true) this.absent = new ViewCache(maxEntries, expiresAfterMs, now);
    }
  }

  /** A cached view; a cached legacy fallback without accounts is rebuilt, as Fiat does. */
  cached(username: string): UserPermissionView | undefined {
    const view = this.cache?.get(username);
    if (view && view.legacyFallback && view.accounts.length === 0) return this.fallback(username);
    return view;
  }

  fallback(username: string): UserPermissionView {
    return fallbackView(username, this.accounts(username));
  }

  /** After a failed lookup: the fallback view (cached like any view) when legacyFallback is on, else no view. */
  failed(username: string, error: unknown): Lookup {
    if (this.legacyFallback) {
      const view = this.fallback(username);
      this.cache?.set(username, view);
      return { view, missing: '' };
    }
    if (error instanceof SpinnakerError && error.code === 'USER_NOT_FOUND') {
      this.absent?.set(username, true);
      return notKnown(username);
    }
    return { view: undefined, missing: `permissions of user ${username} could not be read: ${messageOf(error)}; services.fiat.legacyFallback is false` };
  }

  /** The answer for a user the source did not know when last asked (within the cache's expiry), or undefined. */
  knownAbsent(username: string): Lookup | undefined {
    return this.absent?.get(username) ? notKnown(username) : undefined;
  }

  stored(username: string, view: UserPermissionView): Lookup {
    this.absent?.delete(username);
    this.cache?.set(username, view);
    return { view, missing: '' };
  }
}

/** The answer for a user the source does not know, without legacyFallback. */
function notKnown(username: string): Lookup {
  return { view: undefined, missing: `user ${username} is not known to Fiat; services.fiat.legacyFallback is false` };
}

/** Decision for a disabled Fiat. */
export const DISABLED = Object.freeze({ allowed: true, reason: 'Fiat is disabled (services.fiat.enabled is false): every request is allowed' });
