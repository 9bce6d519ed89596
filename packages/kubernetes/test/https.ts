/**
 * Real HTTPS on 127.0.0.1 for the serving tests: a certificate made by
 * `selfsigned`, a server on a free port, and a client that trusts only it.
 */
import { createServer, request, type Agent, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import selfsigned from 'selfsigned';

export interface Tls {
  cert: string;
  key: string;
}

export async function certificate(): Promise<Tls> {
  const pems = await selfsigned.generate([{ name: 'commonName', value: '127.0.0.1' }], {
    keyType: 'ec', curve: 'P-256', algorithm: 'sha256',
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
  });
  return { cert: pems.cert, key: pems.private };
}

export interface Served {
  url: string;
  server: Server;
  tls: Tls;
  close(): Promise<void>;
}

export async function serve(listener: (req: IncomingMessage, res: ServerResponse) => void, tls?: Tls): Promise<Served> {
  const pair = tls ?? (await certificate());
  const server = createServer({ cert: pair.cert, key: pair.key }, listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    server,
    tls: pair,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

export interface Reply {
  status: number;
  headers: IncomingMessage['headers'];
  body: string;
  reusedSocket: boolean;
}

export interface SendOptions {
  method?: string;
  /** Sent in one piece with a Content-Length, or in pieces (chunked, no Content-Length). */
  body?: string | Uint8Array | Array<string | Uint8Array>;
  headers?: Record<string, string>;
  agent?: Agent;
  path?: string;
}

/** One request to `served`, trusting only its certificate. */
export function send(served: Served, options: SendOptions = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(`${served.url}${options.path ?? '/'}`, {
      method: options.method ?? 'POST', ca: served.tls.cert, agent: options.agent ?? false,
      headers: { 'content-type': 'application/json', ...options.headers },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8'), reusedSocket: req.reusedSocket }));
      res.on('error', reject);
    });
    req.on('error', reject);
    const body = options.body;
    if (Array.isArray(body)) {
      for (const piece of body) req.write(piece);
      req.end();
    } else req.end(body);
  });
}
