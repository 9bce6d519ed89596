/**
 * node:http(s) ↔ Fetch API: serves a `(Request) => Promise<Response>` handler
 * (such as `createAdmissionWebhook().handle`) from a Node server. The request
 * body is streamed, so the handler's byte limit applies while reading.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';

export type FetchHandler = (request: Request) => Promise<Response>;

export function toNodeListener(handler: FetchHandler): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const respond = async () => {
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, one);
      }
      const method = req.method ?? 'GET';
      const hasBody = method !== 'GET' && method !== 'HEAD';
      const init: RequestInit & { duplex?: 'half' } = { method, headers };
      if (hasBody) {
        init.body = Readable.toWeb(req) as unknown as ReadableStream<Uint8Array>;
        init.duplex = 'half';
      }
      const response = await handler(new Request(new URL(req.url ?? '/', `https://${req.headers.host ?? 'localhost'}`), init));
      res.writeHead(response.status, Object.fromEntries(response.headers));
      res.end(Buffer.from(await response.arrayBuffer()));
    };
    respond().catch(() => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('internal error');
    });
  };
}
