/**
 * `pnpm site`: serves the built site (site/dist, or `--dir <dir>`) on
 * 127.0.0.1 (port 4173, or `--port <n>`). A static server with real 404s,
 * so a broken link looks broken here too; the browser tests use it as well.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import sirv from 'sirv';

export interface SiteServer {
  /** Base URL, ending in `/`. */
  url: string;
  close(): Promise<void>;
}

/** Serves `dir` on `host:port` (port 0: any free port). */
export function serveSite(dir: string, options: { host?: string; port?: number } = {}): Promise<SiteServer> {
  const notFound = join(dir, '404.html');
  const files = sirv(dir, { dev: false, etag: true, extensions: ['html'] });
  const server: Server = createServer((req, res) => {
    files(req, res, () => {
      res.statusCode = 404;
      res.setHeader('content-type', 'text/html; charset=utf-8');
      res.end(existsSync(notFound) ? readFileSync(notFound) : 'not found');
    });
  });
  return new Promise((done, fail) => {
    server.once('error', fail);
    server.listen(options.port ?? 4173, options.host ?? '127.0.0.1', () => {
      const { address, port } = server.address() as AddressInfo;
      done({
        url: `http://${address}:${port}/`,
        close: () => new Promise<void>((closed) => {
          server.closeAllConnections();
          server.close(() => closed());
        }),
      });
    });
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const arg = (name: string) => {
    const at = process.argv.indexOf(name);
    return at > 0 ? process.argv[at + 1] : undefined;
  };
  const dir = resolve(arg('--dir') ?? resolve(dirname(fileURLToPath(import.meta.url)), '../dist'));
  if (!existsSync(join(dir, 'index.html'))) {
    console.error(`site: nothing to serve in ${dir}: build it first with \`npx -y pnpm@10 build:site\``);
    process.exit(1);
  }
  const site = await serveSite(dir, { port: Number(arg('--port') ?? 4173) });
  console.log(`site: serving ${dir} at ${site.url} (playground: ${site.url}playground/); Ctrl-C stops`);
}
