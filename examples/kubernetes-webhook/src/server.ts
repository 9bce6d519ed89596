/**
 * The webhook server: HTTPS with a certificate generated at start (or given),
 * `POST /validate` (validating webhook), `POST /mutate` (mutating webhook),
 * `GET /healthz`. Policies are read from ../policies/{validating,mutating}.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parsePolicyDocuments, type PolicyDocument } from '@verdict/core';
import { createAdmissionWebhook, NamespaceCache, type AdmissionWebhookOptions, type NamespaceLabelsLookup } from '@verdict/kubernetes';
import { selfSignedCertificate } from './cert.js';
import { toNodeListener, type FetchHandler } from './node-adapter.js';

export interface WebhookServerOptions {
  /** Default `127.0.0.1`. */
  host?: string;
  /** Default 8443; 0 picks a free port. */
  port?: number;
  /** Names the generated certificate is valid for (default localhost, 127.0.0.1, ::1). */
  certificateHosts?: string[];
  /** Serve this certificate instead of generating one (e.g. from cert-manager). */
  tls?: { cert: string; key: string };
  /** Namespace labels: a lookup or a cache (default: an empty NamespaceCache). */
  namespaceLabels?: NamespaceLabelsLookup | NamespaceCache;
  /** Called for every decision (structured logging). */
  onDecision?: AdmissionWebhookOptions['onDecision'];
}

export interface WebhookServer {
  /** `https://<host>:<port>` */
  url: string;
  port: number;
  /** PEM certificate clients must trust. */
  ca: string;
  close(): Promise<void>;
}

const POLICIES = fileURLToPath(new URL('../policies/', import.meta.url));

/** Every `*.yaml` under policies/<kind>/, parsed with file names for error messages. */
export function loadPolicyFiles(kind: 'validating' | 'mutating'): PolicyDocument[] {
  const dir = `${POLICIES}${kind}/`;
  return readdirSync(dir).filter((f) => f.endsWith('.yaml')).sort().flatMap((file) =>
    parsePolicyDocuments(readFileSync(`${dir}${file}`, 'utf8'), { source: `policies/${kind}/${file}` }));
}

export async function startWebhookServer(options: WebhookServerOptions = {}): Promise<WebhookServer> {
  const namespaceLabels = options.namespaceLabels ?? new NamespaceCache();
  const common = { namespaceLabels, failurePolicy: 'Fail' as const, ...(options.onDecision ? { onDecision: options.onDecision } : {}) };
  const validating = createAdmissionWebhook({ ...common, policies: loadPolicyFiles('validating') });
  const mutating = createAdmissionWebhook({ ...common, policies: loadPolicyFiles('mutating'), mutating: true });
  const routes = new Map<string, FetchHandler>([['/validate', validating.handle], ['/mutate', mutating.handle]]);
  const route: FetchHandler = async (request) => {
    const { pathname } = new URL(request.url);
    if (pathname === '/healthz') return new Response('ok\n', { headers: { 'content-type': 'text/plain' } });
    const handle = routes.get(pathname);
    return handle ? handle(request) : new Response(`no webhook at ${pathname}; use /validate or /mutate\n`, { status: 404, headers: { 'content-type': 'text/plain' } });
  };

  const tls = options.tls ?? selfSignedCertificate(options.certificateHosts);
  const server = createServer({ cert: tls.cert, key: tls.key }, toNodeListener(route));
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 8443, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    ca: tls.cert,
    close: () => new Promise<void>((resolve, reject) => {
      server.closeAllConnections();
      server.close((error) => (error ? reject(error) : resolve()));
    }),
  };
}
