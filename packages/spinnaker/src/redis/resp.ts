/**
 * A minimal Redis client (RESP2 over `node:net` / `node:tls`) with bounded
 * connect and command timeouts. A timeout or a broken connection fails every
 * pending command; the next command reconnects.
 */
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';

/** Where and how to reach Redis. */
export interface RedisConnectionOptions {
  /** `redis://[user:password@]host:port[/db]` or `rediss://…` (TLS). Overrides host, port, username, password, db, tls. */
  url?: string;
  /** Default `127.0.0.1`. */
  host?: string;
  /** Default 6379. */
  port?: number;
  username?: string;
  password?: string;
  /** Database index (SELECT), default 0. */
  db?: number;
  /** TLS: `true` or Node's TLS options. */
  tls?: boolean | ConnectionOptions;
  /** Milliseconds to establish the connection (and AUTH/SELECT), default 1000. */
  connectTimeoutMs?: number;
  /** Milliseconds for one command or pipeline to answer, default 1000. */
  commandTimeoutMs?: number;
}

/** A reply: integers are numbers, bulk strings Buffers (`null` when nil), simple strings strings, arrays arrays. */
export type RedisReply = null | number | string | Buffer | RedisReply[];

/** An error reply from Redis (`-ERR …`). */
export class RedisReplyError extends Error {
  override readonly name = 'RedisReplyError';
}

type Arg = string | Buffer | number;
interface Pending {
  resolve: (reply: RedisReply | RedisReplyError) => void;
  reject: (error: Error) => void;
}

function encode(args: readonly Arg[]): Buffer {
  const parts: Buffer[] = [Buffer.from(`*${args.length}\r\n`)];
  for (const arg of args) {
    const b = Buffer.isBuffer(arg) ? arg : Buffer.from(String(arg));
    parts.push(Buffer.from(`$${b.length}\r\n`), b, Buffer.from('\r\n'));
  }
  return Buffer.concat(parts);
}

/** Parses one reply at `at`; `undefined` when the buffer does not hold all of it yet. */
function parse(buf: Buffer, at: number): [RedisReply | RedisReplyError, number] | undefined {
  const eol = buf.indexOf('\r\n', at);
  if (eol < 0) return undefined;
  const line = buf.toString('utf8', at + 1, eol);
  switch (buf[at]) {
    case 0x2b: return [line, eol + 2]; // +
    case 0x2d: return [new RedisReplyError(line), eol + 2]; // -
    case 0x3a: return [Number(line), eol + 2]; // :
    case 0x24: { // $
      const n = Number(line);
      if (n < 0) return [null, eol + 2];
      if (buf.length < eol + 2 + n + 2) return undefined;
      return [buf.subarray(eol + 2, eol + 2 + n), eol + 2 + n + 2];
    }
    case 0x2a: { // *
      const n = Number(line);
      if (n < 0) return [null, eol + 2];
      const items: RedisReply[] = [];
      let pos = eol + 2;
      for (let i = 0; i < n; i++) {
        const item = parse(buf, pos);
        if (!item) return undefined;
        if (item[0] instanceof RedisReplyError) throw item[0];
        items.push(item[0]);
        pos = item[1];
      }
      return [items, pos];
    }
    default:
      throw new Error(`unexpected byte ${buf[at]} in a Redis reply`);
  }
}

/** One lazily connected Redis connection. */
export class RedisClient {
  private socket: Socket | undefined;
  private ready: Promise<Socket> | undefined;
  private pending: Pending[] = [];
  private buffer: Buffer = Buffer.alloc(0);
  private readonly options: Required<Pick<RedisConnectionOptions, 'host' | 'port' | 'db' | 'connectTimeoutMs' | 'commandTimeoutMs'>> & RedisConnectionOptions;

  constructor(options: RedisConnectionOptions = {}) {
    const o: RedisConnectionOptions = { ...options };
    if (options.url) {
      const url = new URL(options.url);
      if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') throw new Error(`unsupported Redis URL ${JSON.stringify(options.url)}: expected redis:// or rediss://`);
      o.host = url.hostname || '127.0.0.1';
      o.port = url.port ? Number(url.port) : 6379;
      if (url.username) o.username = decodeURIComponent(url.username);
      if (url.password) o.password = decodeURIComponent(url.password);
      if (url.pathname.length > 1) o.db = Number(url.pathname.slice(1));
      if (url.protocol === 'rediss:') o.tls = o.tls ?? true;
    }
    this.options = { ...o, host: o.host ?? '127.0.0.1', port: o.port ?? 6379, db: o.db ?? 0, connectTimeoutMs: o.connectTimeoutMs ?? 1000, commandTimeoutMs: o.commandTimeoutMs ?? 1000 };
  }

  /** Sends one command; rejects with {@link RedisReplyError} on an error reply, or on a timeout or a broken connection. */
  async command(...args: Arg[]): Promise<RedisReply> {
    const [reply] = await this.pipeline([args]);
    return reply!;
  }

  /** Sends several commands in one write and waits for every reply (bounded by one command timeout). */
  async pipeline(commands: readonly (readonly Arg[])[]): Promise<RedisReply[]> {
    if (commands.length === 0) return [];
    const socket = await this.connection();
    return this.send(socket, commands, this.options.commandTimeoutMs);
  }

  /** Closes the connection (pending commands fail). */
  async close(): Promise<void> {
    const socket = this.socket;
    this.reset(new Error('the Redis client was closed'));
    if (socket && !socket.destroyed) await new Promise<void>((resolve) => socket.end(resolve));
  }

  private send(socket: Socket, commands: readonly (readonly Arg[])[], timeoutMs: number): Promise<RedisReply[]> {
    return new Promise((resolve, reject) => {
      const replies: RedisReply[] = [];
      let errorReply: RedisReplyError | undefined;
      let left = commands.length;
      const timer = setTimeout(() => this.reset(new Error(`Redis at ${this.where()} did not answer within ${timeoutMs} ms`)), timeoutMs);
      const settle = (error?: Error) => {
        clearTimeout(timer);
        if (error) reject(error);
        else if (errorReply) reject(errorReply);
        else resolve(replies);
      };
      for (let i = 0; i < commands.length; i++) {
        this.pending.push({
          resolve: (reply) => {
            if (reply instanceof RedisReplyError) errorReply ??= reply;
            else replies[i] = reply;
            if (--left === 0) settle();
          },
          reject: (error) => {
            if (left > 0) {
              left = 0;
              settle(error);
            }
          },
        });
      }
      socket.write(Buffer.concat(commands.map(encode)));
    });
  }

  private where(): string {
    return `${this.options.host}:${this.options.port}`;
  }

  private connection(): Promise<Socket> {
    if (this.ready) return this.ready;
    const { host, port, tls, connectTimeoutMs } = this.options;
    this.ready = new Promise<Socket>((resolve, reject) => {
      const socket = tls ? tlsConnect({ host, port, servername: host, ...(typeof tls === 'object' ? tls : {}) }) : netConnect({ host, port });
      this.socket = socket;
      this.buffer = Buffer.alloc(0);
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error(`cannot connect to Redis at ${this.where()} within ${connectTimeoutMs} ms`));
      }, connectTimeoutMs);
      socket.setNoDelay(true);
      socket.on('data', (chunk: Buffer) => this.onData(chunk));
      socket.on('error', (error) => {
        clearTimeout(timer);
        reject(new Error(`cannot reach Redis at ${this.where()}: ${error.message}`));
        this.reset(new Error(`Redis connection to ${this.where()} failed: ${error.message}`));
      });
      socket.on('close', () => {
        clearTimeout(timer);
        reject(new Error(`Redis at ${this.where()} closed the connection`));
        if (this.socket === socket) this.reset(new Error(`Redis at ${this.where()} closed the connection`));
      });
      socket.once(tls ? 'secureConnect' : 'connect', () => {
        const hello: Arg[][] = [];
        if (this.options.password !== undefined) hello.push(this.options.username ? ['AUTH', this.options.username, this.options.password] : ['AUTH', this.options.password]);
        if (this.options.db) hello.push(['SELECT', this.options.db]);
        if (hello.length === 0) {
          clearTimeout(timer);
          resolve(socket);
          return;
        }
        this.send(socket, hello, connectTimeoutMs).then(() => {
          clearTimeout(timer);
          resolve(socket);
        }, (error: Error) => {
          clearTimeout(timer);
          socket.destroy();
          reject(new Error(`Redis at ${this.where()} refused the connection set-up: ${error.message}`));
        });
      });
    });
    this.ready.catch(() => undefined);
    return this.ready;
  }

  private onData(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    let pos = 0;
    try {
      for (;;) {
        if (pos >= this.buffer.length) break;
        const parsed = parse(this.buffer, pos);
        if (!parsed) break;
        pos = parsed[1];
        const next = this.pending.shift();
        next?.resolve(parsed[0]);
      }
    } catch (error) {
      this.reset(error as Error);
      return;
    }
    this.buffer = pos >= this.buffer.length ? Buffer.alloc(0) : this.buffer.subarray(pos);
  }

  private reset(error: Error): void {
    const pending = this.pending;
    this.pending = [];
    this.ready = undefined;
    const socket = this.socket;
    this.socket = undefined;
    this.buffer = Buffer.alloc(0);
    if (socket && !socket.destroyed) socket.destroy();
    for (const p of pending) p.reject(error);
  }
}
