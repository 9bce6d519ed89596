/**
 * The listener's timeouts: a client that sends its request slower than the apiserver would wait for an
 * answer (one byte at a time, to hold a connection and its memory) is disconnected once `request` (body) or
 * `headers` has passed, checked every `checkInterval`. Short timeouts here; the defaults are in
 * LISTENER_TIMEOUTS (docs/kubernetes.md, "Operating the webhook").
 */
import { connect, type TLSSocket } from 'node:tls';
import { NamespaceCache } from '@verdict/kubernetes';
import { describe, expect, it } from 'vitest';
import { LISTENER_TIMEOUTS, startWebhookServer } from '../src/server.js';
import { captureLogs } from './helpers.js';

const SHORT = { headers: 400, request: 800, checkInterval: 100 };

/** Opens a TLS connection, sends `head`, then one more byte every `everyMs`; resolves with the ms until the server closed it. */
function trickle(server: { port: number; ca: string }, head: string, everyMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let timer: NodeJS.Timeout | undefined;
    const socket: TLSSocket = connect({ host: '127.0.0.1', port: server.port, ca: server.ca, servername: 'localhost' }, () => {
      socket.write(head);
      timer = setInterval(() => socket.write('x'), everyMs);
    });
    socket.on('data', () => undefined);
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(timer);
      resolve(performance.now() - started);
    });
    setTimeout(() => {
      clearInterval(timer);
      socket.destroy();
      reject(new Error('still connected after 10 s'));
    }, 10_000).unref();
  });
}

describe('the webhook server\'s timeouts', () => {
  it('default to what fits the apiserver: a request whole within 10 s, idle connections kept 120 s (the apiserver keeps them 90 s)', async () => {
    expect(LISTENER_TIMEOUTS).toEqual({ headers: 5_000, request: 10_000, keepAlive: 120_000, checkInterval: 1_000 });
    const server = await startWebhookServer({ host: '127.0.0.1', port: 0, namespaceLabels: new NamespaceCache(), logger: captureLogs().logger });
    try {
      expect([server.server.headersTimeout, server.server.requestTimeout, server.server.keepAliveTimeout]).toEqual([5_000, 10_000, 120_000]);
    } finally {
      await server.shutdown();
    }
  });

  it('disconnect a client trickling its body one byte at a time once the request timeout has passed', async () => {
    const server = await startWebhookServer({ host: '127.0.0.1', port: 0, namespaceLabels: new NamespaceCache(), logger: captureLogs().logger, timeouts: SHORT });
    try {
      const head = 'POST /validate HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{';
      const clients = await Promise.all(Array.from({ length: 20 }, () => trickle(server, head, 100)));
      // Cut after the request timeout (800 ms) and one check; never held for the 100 s the body would take.
      for (const ms of clients) expect(ms).toBeLessThan(5_000);
      expect(Math.min(...clients)).toBeGreaterThanOrEqual(SHORT.request - 100);
    } finally {
      await server.shutdown();
    }
  });

  it('disconnect a client trickling its headers once the headers timeout has passed', async () => {
    const server = await startWebhookServer({ host: '127.0.0.1', port: 0, namespaceLabels: new NamespaceCache(), logger: captureLogs().logger, timeouts: SHORT });
    try {
      const ms = await trickle(server, 'POST /validate HTTP/1.1\r\nHost: localhost\r\nX-Slow: ', 100);
      expect(ms).toBeLessThan(5_000);
      expect(ms).toBeGreaterThanOrEqual(SHORT.headers - 100);
    } finally {
      await server.shutdown();
    }
  });
});
