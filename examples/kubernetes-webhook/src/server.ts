/**
 * The webhook server: HTTPS, `POST /validate` and `POST /mutate` served by
 * `webhook.listener`, `GET /healthz` (alive), `GET /readyz` (policies
 * loaded, namespace labels synced, not draining) and `GET /metrics`
 * (Prometheus). Policies come from a folder with `validating/` and
 * `mutating/` and are reloaded when it changes; certificate files are
 * reloaded too. `shutdown()` drains: readiness turns false, open
 * connections are told to close, in-flight reviews finish.
 */
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { X509Certificate } from 'node:crypto';
import {
  createAdmissionWebhook, NamespaceCache, type AdmissionWebhook, type DecisionEvent, type FailurePolicy, type InventorySource, type NamespaceLabelsLookup,
} from '@verdict/kubernetes';
import { developmentCertificate, readKeyPair, reloadCertificate, type CertificateReload, type KeyPair } from './cert.js';
import { createLogger, logDecision, type Logger } from './log.js';
import { createMetrics, type HookType, type WebhookMetrics } from './metrics.js';
import { readPolicyFolder, reloadPolicies, type PolicyReload } from './policies.js';

/** The example's own policies (`policies/validating`, `policies/mutating`). */
export const EXAMPLE_POLICIES = fileURLToPath(new URL('../policies/', import.meta.url));

export interface WebhookServerOptions {
  /** Default `127.0.0.1`. */
  host?: string;
  /** Default 8443; 0 picks a free port. */
  port?: number;
  /** A folder with `validating/` and `mutating/` policy files, watched for changes (default: the example's policies). */
  policies?: string;
  /** Certificate files to serve and reload when they change (e.g. a cert-manager Secret). */
  tlsFiles?: { cert: string; key: string };
  /** Without `tlsFiles`: names for the development certificate (default localhost, 127.0.0.1, ::1). */
  certificateHosts?: string[];
  /** Namespace labels: a lookup or a cache (default: an empty NamespaceCache). */
  namespaceLabels?: NamespaceLabelsLookup | NamespaceCache;
  /** Other objects referential policies read as `inventory` (e.g. an `InventoryCache` fed by `syncInventory`); default none. */
  inventory?: InventorySource;
  /** Readiness beyond the server's own (e.g. the namespace informer has synced). */
  ready?: () => boolean;
  /** Default `Fail`. */
  failurePolicy?: FailurePolicy;
  /** Default: JSON lines on stdout. */
  logger?: Logger;
  /** Default: a new registry. */
  metrics?: WebhookMetrics;
  /** On `shutdown()`, how long `/readyz` answers 503 while still serving, before new connections are refused (ms, default 0). */
  drainDelayMs?: number;
  /** On `shutdown()`, how long in-flight requests may take before connections are cut (ms, default 10 s). */
  drainTimeoutMs?: number;
  /** Quiet time before a changed policy folder is read, in ms (default 100). */
  reloadSettleMs?: number;
  /** Connection timeouts, in ms (see {@link LISTENER_TIMEOUTS}: the defaults fit the apiserver's webhook timeout). */
  timeouts?: Partial<ListenerTimeouts>;
}

/** How long a connection may take over each part of its life (Node's http server settings), in ms. */
export interface ListenerTimeouts {
  /** Receiving a request's headers (`headersTimeout`). */
  headers: number;
  /** Receiving a whole request, body included (`requestTimeout`): a client trickling its body is cut here. */
  request: number;
  /** An idle kept-alive connection stays open (`keepAliveTimeout`). */
  keepAlive: number;
  /** How often connections are checked against the two first (`connectionsCheckingInterval`). */
  checkInterval: number;
}

/**
 * The defaults. The apiserver waits `timeoutSeconds` of the webhook configuration for an answer (5 s here,
 * 10 s by default, at most 30 s), then applies its failurePolicy: a request that has not arrived whole within
 * 10 s will not be answered in time, so a client that sends it slower (one byte every few seconds, to hold
 * a connection and memory) is cut after 10 s, checked every second. The apiserver keeps idle webhook
 * connections for 90 s: closing them sooner (Node's default is 5 s) races requests it sends on them.
 */
export const LISTENER_TIMEOUTS: Readonly<ListenerTimeouts> = Object.freeze({ headers: 5_000, request: 10_000, keepAlive: 120_000, checkInterval: 1_000 });

export interface WebhookServer {
  /** `https://<host>:<port>` */
  url: string;
  port: number;
  /** PEM certificate served at start (for a development certificate, the CA clients must trust). */
  ca: string;
  validating: AdmissionWebhook;
  mutating: AdmissionWebhook;
  metrics: WebhookMetrics;
  logger: Logger;
  server: Server;
  /** Policies loaded, extra readiness true, not draining. */
  isReady(): boolean;
  /** Drains and stops: readiness false, `drainDelayMs`, stop accepting, in-flight requests finish (up to `drainTimeoutMs`). */
  shutdown(): Promise<void>;
}

const text = (res: ServerResponse, status: number, body: string, type = 'text/plain') => {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
  res.end(body);
};

/** Starts the server; resolves once it listens, with the policies loaded and the certificate in place. */
export async function startWebhookServer(options: WebhookServerOptions = {}): Promise<WebhookServer> {
  const logger = options.logger ?? createLogger();
  const metrics = options.metrics ?? createMetrics();
  const folder = options.policies ?? EXAMPLE_POLICIES;
  const namespaceLabels = options.namespaceLabels ?? new NamespaceCache();
  const failurePolicy = options.failurePolicy ?? 'Fail';

  const hooks: Array<{ hook: HookType; sub: string; mutating: boolean }> = [
    { hook: 'validation', sub: 'validating', mutating: false },
    { hook: 'mutation', sub: 'mutating', mutating: true },
  ];
  const reloads: PolicyReload[] = [];
  const [validating, mutating] = hooks.map(({ hook, sub, mutating: isMutating }) => {
    const dir = join(folder, sub);
    const initial = readPolicyFolder(dir, sub);
    const record = metrics.onDecision(hook);
    const log = logDecision(logger, hook);
    const webhook = createAdmissionWebhook({
      policies: initial.documents, namespaceLabels, failurePolicy, mutating: isMutating,
      ...(options.inventory ? { inventory: options.inventory } : {}),
      onDecision: (event: DecisionEvent) => {
        record(event);
        log(event);
      },
    });
    metrics.policiesLoaded(hook, 1, webhook.policies);
    logger.info({ hook_type: hook, version: 1, policies: webhook.policies.policies.length, files: initial.files }, 'policies loaded');
    reloads.push(reloadPolicies(webhook, dir, initial, {
      label: sub,
      ...(options.reloadSettleMs !== undefined ? { settleMs: options.reloadSettleMs } : {}),
      onLoad: (load) => {
        metrics.policiesLoaded(hook, load.version, webhook.policies);
        logger.info({ hook_type: hook, ...load }, 'policies reloaded');
      },
      onError: (error) => {
        metrics.policyLoadFailed(hook);
        logger.error({ hook_type: hook, error: error.message }, 'policies not reloaded; the previous set stays in use');
      },
    }));
    return webhook;
  }) as [AdmissionWebhook, AdmissionWebhook];

  const dev = options.tlsFiles ? undefined : await developmentCertificate(options.certificateHosts);
  const tls: KeyPair = options.tlsFiles ? readKeyPair(options.tlsFiles) : dev!;
  let draining = false;
  const isReady = () => !draining && (options.ready?.() ?? true);

  const route = (req: IncomingMessage, res: ServerResponse) => {
    // While draining, every answer asks the client to reconnect (to another replica).
    if (draining) res.setHeader('connection', 'close');
    const url = req.url ?? '/';
    const path = url.includes('?') ? url.slice(0, url.indexOf('?')) : url;
    switch (path) {
      case '/validate':
        return validating.listener(req, res);
      case '/mutate':
        return mutating.listener(req, res);
      case '/healthz':
        return text(res, 200, 'ok\n');
      case '/readyz':
        return isReady() ? text(res, 200, 'ok\n') : text(res, 503, draining ? 'draining\n' : 'not ready: waiting for namespace labels\n');
      case '/metrics':
        metrics.registry.metrics().then((body) => text(res, 200, body, metrics.registry.contentType), (error: Error) => text(res, 500, `${error.message}\n`));
        return undefined;
      default:
        return text(res, 404, `no webhook at ${path}; use /validate or /mutate\n`);
    }
  };

  const timeouts = { ...LISTENER_TIMEOUTS, ...options.timeouts };
  const server = createServer({
    cert: tls.cert, key: tls.key,
    headersTimeout: timeouts.headers, requestTimeout: timeouts.request, keepAliveTimeout: timeouts.keepAlive, connectionsCheckingInterval: timeouts.checkInterval,
  }, route);
  const certificate: CertificateReload | undefined = options.tlsFiles
    ? reloadCertificate(server, options.tlsFiles, tls, {
        onLoad: (info) => {
          metrics.certificateExpiry.set(Date.parse(info.notAfter) / 1000);
          logger.info(info, 'certificate reloaded');
        },
        onError: (error) => logger.error({ error: error.message }, 'certificate not reloaded; the previous one stays in use'),
      })
    : undefined;
  metrics.certificateExpiry.set(Date.parse(new X509Certificate(tls.cert).validTo) / 1000);

  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 8443, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  let stopping: Promise<void> | undefined;
  const shutdown = () => (stopping ??= (async () => {
    draining = true;
    logger.info({ drain_delay_ms: options.drainDelayMs ?? 0 }, 'draining');
    await new Promise((resolve) => setTimeout(resolve, options.drainDelayMs ?? 0));
    reloads.forEach((r) => r.stop());
    certificate?.stop();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    const deadline = setTimeout(() => server.closeAllConnections(), options.drainTimeoutMs ?? 10_000);
    await closed;
    clearTimeout(deadline);
    logger.info('stopped');
  })());

  return {
    url: `https://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    ca: tls.cert,
    validating,
    mutating,
    metrics,
    logger,
    server,
    isReady,
    shutdown,
  };
}
