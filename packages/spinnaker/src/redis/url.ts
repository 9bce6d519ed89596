/**
 * `{url}`: a node-redis client that the source creates, connects on first
 * use, keeps reconnecting in the background, and closes. It comes from
 * `@redis/client` (node-redis's client, without the modules the `redis`
 * package bundles), loaded only here: a source over a user's own client never
 * loads it.
 */
import type * as RedisClient from '@redis/client';
import { SpinnakerError } from '../errors.js';
import type { NodeRedisClientLike } from './client.js';

/** Options of a connection made from a URL. */
export interface RedisUrlOptions {
  /** `redis://[user:password@]host:port[/db]`, or `rediss://…` for TLS. */
  url: string;
  /** Milliseconds to wait for the connection (first use, or after Redis went away) before a call fails, default 1000. */
  connectTimeoutMs?: number;
}

/** A node-redis client owned by a source. */
export interface OwnedClient {
  /** Resolves to the connected client; rejects with `cannot reach Redis at …` after `connectTimeoutMs`. */
  ready(): Promise<NodeRedisClientLike>;
  close(): Promise<void>;
}

interface NodeRedisClient extends NodeRedisClientLike {
  readonly isReady: boolean;
  readonly isOpen: boolean;
  connect(): Promise<unknown>;
  destroy(): void;
  close?(): Promise<void>;
  quit?(): Promise<unknown>;
  on(event: 'error' | 'ready', listener: (value?: unknown) => void): unknown;
  off(event: 'error' | 'ready', listener: (value?: unknown) => void): unknown;
}

/** `host:port` of a Redis URL, for messages (never the credentials). */
function address(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw SpinnakerError.invalidConfig(`url is not a URL: expected redis://host:port or rediss://host:port`, '/url');
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
    throw SpinnakerError.invalidConfig(`url must use redis:// or rediss:// (got ${parsed.protocol}//)`, '/url');
  }
  return `${parsed.hostname || '127.0.0.1'}:${parsed.port || '6379'}`;
}

/** Waits until the client is ready, at most `ms`. */
function whenReady(client: NodeRedisClient, ms: number): Promise<boolean> {
  if (client.isReady) return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      clearTimeout(timer);
      client.off('ready', onReady);
      resolve(ok);
    };
    const onReady = () => done(true);
    const timer = setTimeout(() => done(false), ms);
    timer.unref?.();
    client.on('ready', onReady);
  });
}

/** Creates the client lazily: nothing connects until the first call. */
export function ownClient(options: RedisUrlOptions): OwnedClient {
  const where = address(options.url);
  const ms = options.connectTimeoutMs ?? 1000;
  if (!Number.isFinite(ms) || ms <= 0) throw SpinnakerError.invalidConfig(`connectTimeoutMs must be a positive number of milliseconds (got ${String(ms)})`, '/connectTimeoutMs');
  let made: Promise<NodeRedisClient> | undefined;
  let lastError = '';
  let closed = false;

  const make = async (): Promise<NodeRedisClient> => {
    let createClient: typeof RedisClient.createClient;
    try {
      ({ createClient } = await import('@redis/client'));
    } catch (error) {
      throw new SpinnakerError('INVALID_CONFIG', `createRedisPermissionSource({url}) makes its client with @redis/client, which is not installed: npm install @redis/client@6.3.1 (or pass your own node-redis or ioredis client as client)`, { cause: error });
    }
    const client = createClient({
      url: options.url,
      // Keep trying in the background (a Redis that comes back is used again); calls meanwhile fail after `ms`.
      socket: { connectTimeout: ms, reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 2000) },
    }) as unknown as NodeRedisClient;
    client.on('error', (error) => {
      lastError = error instanceof Error ? error.message : String(error);
    });
    client.connect().catch(() => undefined); // Failures arrive as 'error' events; calls wait for 'ready'.
    return client;
  };

  return {
    async ready() {
      if (closed) throw new SpinnakerError('SOURCE_FAILURE', `the Redis connection to ${where} is closed`);
      made ??= make();
      const client = await made;
      if (await whenReady(client, ms)) return client;
      throw new SpinnakerError('SOURCE_FAILURE', `cannot reach Redis at ${where}${lastError ? `: ${lastError}` : ''} (no connection within ${ms} ms)`);
    },
    async close() {
      closed = true;
      // A client that was never made (no @redis/client) has nothing to close.
      const client = await made?.catch(() => undefined);
      if (!client) return;
      if (client.isReady) await (client.close ? client.close() : client.quit?.());
      else if (client.isOpen) client.destroy();
    },
  };
}
