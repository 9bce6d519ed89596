/**
 * A throwaway `redis-server` on a free 127.0.0.1 port for one test file, and the
 * Redis clients users hand to verdict: node-redis 5 and 6, ioredis 5 and 6.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll } from 'vitest';
import { createServer } from 'node:net';
import { createClient as createNodeRedis6 } from '@redis/client';
import IoRedis5 from 'ioredis';
import IoRedis6 from 'ioredis-6';
import { createClient as createNodeRedis5 } from 'redis';
import type { RedisClientLike } from '@verdict/spinnaker/redis';

/** A connected client of one library, and how to close it. */
export interface TestClient {
  client: RedisClientLike;
  close(): Promise<void>;
}

/** One Redis client library at one major version. */
export interface ClientKind {
  name: string;
  /** A client connected to `port` (or, with `connect: false`, still trying to reach it). */
  make(port: number, options?: { connect?: boolean }): Promise<TestClient>;
}

/** What the tests need of a node-redis client, whichever major version made it. */
interface NodeRedisTestClient {
  readonly isReady: boolean;
  on(event: 'error', listener: () => void): unknown;
  connect(): Promise<unknown>;
  close(): Promise<void>;
  destroy(): void;
}

function nodeRedis(name: string, create: (url: string) => NodeRedisTestClient): ClientKind {
  return {
    name,
    async make(port, { connect = true } = {}) {
      const client = create(`redis://127.0.0.1:${port}`);
      client.on('error', () => undefined);
      const connecting = client.connect();
      if (connect) await connecting;
      else connecting.catch(() => undefined);
      return { client: client as unknown as RedisClientLike, close: async () => (client.isReady ? client.close() : client.destroy()) };
    },
  };
}

function ioRedis(name: string, create: (port: number) => IoRedis5 | IoRedis6): ClientKind {
  return {
    name,
    async make(port, { connect = true } = {}) {
      const client = create(port);
      client.on('error', () => undefined);
      const connecting = client.connect();
      if (connect) await connecting;
      else connecting.catch(() => undefined);
      return { client, close: async () => client.disconnect() };
    },
  };
}

const retry = () => 50;

export const CLIENTS: readonly ClientKind[] = [
  nodeRedis('node-redis 6', (url) => createNodeRedis6({ url, socket: { reconnectStrategy: retry } })),
  nodeRedis('node-redis 5', (url) => createNodeRedis5({ url, socket: { reconnectStrategy: retry } })),
  ioRedis('ioredis 5', (port) => new IoRedis5(port, '127.0.0.1', { lazyConnect: true, retryStrategy: retry, maxRetriesPerRequest: null })),
  ioRedis('ioredis 6', (port) => new IoRedis6(port, '127.0.0.1', { lazyConnect: true, retryStrategy: retry, maxRetriesPerRequest: null })),
];

export interface RedisServer {
  port: number;
  /** Runs raw commands in order (test fixtures and checks); bulk strings come back as Buffers. */
  command(...args: Array<string | number | Buffer>): Promise<unknown>;
  stop(): Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Fails (never skips) when the binary is missing: `.ci/run` installs it with apt-get. */
export async function startRedis(): Promise<RedisServer> {
  const probe = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    throw new Error('redis-server is not installed: the Redis tests need a real server (apt-get install -y redis-server; .ci/run does this)');
  }
  const port = await freePort();
  const child: ChildProcess = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`redis-server did not start on port ${port} within 10 s:\n${output}`)), 10_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with ${code}:\n${output}`));
    });
  });
  const admin = createNodeRedis6({ url: `redis://127.0.0.1:${port}` });
  await admin.connect();
  return {
    port,
    command: (...args) => admin.sendCommand(args.map((a) => (typeof a === 'number' ? String(a) : a)), { typeMapping: { 36: Buffer } }),
    async stop() {
      await admin.close();
      if (child.exitCode !== null) return;
      await new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      });
    },
  };
}

/** One server for the calling test file: started before its tests, stopped after them. */
export function redisForThisFile(): () => RedisServer {
  let server: RedisServer | undefined;
  beforeAll(async () => {
    server = await startRedis();
  });
  afterAll(async () => {
    await server?.stop();
  });
  return () => server!;
}

let counter = 0;
/** A fresh key prefix, so tests share a server but not data. */
export const freshPrefix = () => `t${++counter}:fiat`;
