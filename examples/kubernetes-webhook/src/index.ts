/**
 * Starts the example webhook server.
 *
 *   pnpm start                        # https://127.0.0.1:8443, development certificate for localhost
 *   pnpm start -- --print-manifests   # also prints both webhook configurations with the caBundle
 *
 * Environment: HOST, PORT, POLICY_DIR (a folder with validating/ and
 * mutating/), TLS_CERT_FILE and TLS_KEY_FILE (serve and reload these files),
 * CERT_HOSTS (names for the development certificate), KUBECONFIG (namespace
 * labels from this cluster; inside a cluster the ServiceAccount is used),
 * INVENTORY (kinds policies read as `inventory`: ingresses, services), LOG_LEVEL,
 * DRAIN_DELAY_MS. Logs are JSON lines on stdout.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { InventoryCache, NamespaceCache } from '@verdict/kubernetes';
import type { Level } from 'pino';
import { createLogger } from './log.js';
import { createMetrics } from './metrics.js';
import { inventoryKinds, syncInventory } from './inventory.js';
import { kubeConfig, readNamespaceLabels, syncNamespaces } from './namespaces.js';
import { startWebhookServer } from './server.js';

const MANIFESTS = ['validating-webhook.yaml', 'mutating-webhook.yaml'];

/** The webhook configurations with `clientConfig.caBundle` set (for a cluster without cert-manager). */
export function renderManifests(caBundle: string): string {
  return MANIFESTS.map((file) => readFileSync(fileURLToPath(new URL(`../manifests/${file}`, import.meta.url)), 'utf8')
    .replace(/^( +)clientConfig:\n/m, (line, indent: string) => `${line}${indent}  caBundle: ${caBundle}\n`)).join('---\n');
}

const number = (value: string | undefined, fallback: number) => (value === undefined || value === '' ? fallback : Number(value));

async function main(): Promise<void> {
  const env = process.env;
  const logger = createLogger({ level: (env['LOG_LEVEL'] ?? 'info') as Level });
  const metrics = createMetrics();
  const config = kubeConfig(env);
  // A miss (a namespace created a moment ago, not yet seen by the watch) is read from the API server.
  const namespaces = new NamespaceCache(config ? { fallback: readNamespaceLabels(config) } : {});
  const sync = config
    ? syncNamespaces(config, namespaces, {
        onError: (error) => {
          metrics.namespaceWatchErrors.inc();
          logger.warn({ error: error.message }, 'namespace watch failed; restarting');
        },
        onChange: (size) => metrics.namespaces.set(size),
      })
    : undefined;
  if (!config) logger.warn('no cluster access (not in a Pod, KUBECONFIG unset): namespaces have no labels');
  void sync?.synced.then(() => logger.info({ namespaces: namespaces.size }, 'namespace labels synced'));
  // Referential policies (unique Ingress hosts, unique Service selectors) read these kinds as `inventory`.
  const kinds = inventoryKinds(env['INVENTORY']);
  const inventory = kinds.length ? new InventoryCache() : undefined;
  const inventorySync = config && inventory
    ? syncInventory(config, inventory, kinds, { onError: (error) => logger.warn({ error: error.message }, 'inventory watch failed; restarting') })
    : undefined;
  if (inventory && !config) logger.warn({ kinds }, 'no cluster access: the inventory stays empty');
  void inventorySync?.synced.then(() => logger.info({ kinds, objects: inventory?.size }, 'inventory synced'));

  const server = await startWebhookServer({
    host: env['HOST'] ?? '127.0.0.1',
    port: number(env['PORT'], 8443),
    ...(env['POLICY_DIR'] ? { policies: env['POLICY_DIR'] } : {}),
    ...(env['TLS_CERT_FILE'] && env['TLS_KEY_FILE'] ? { tlsFiles: { cert: env['TLS_CERT_FILE'], key: env['TLS_KEY_FILE'] } } : {}),
    ...(env['CERT_HOSTS'] ? { certificateHosts: env['CERT_HOSTS'].split(',') } : {}),
    namespaceLabels: namespaces,
    ...(inventory ? { inventory } : {}),
    ready: () => (sync?.isSynced() ?? true) && (inventorySync?.isSynced() ?? true),
    logger,
    metrics,
    drainDelayMs: number(env['DRAIN_DELAY_MS'], 0),
  });
  const caBundle = Buffer.from(server.ca).toString('base64');
  logger.info({ url: server.url, caBundle }, 'listening: POST /validate, POST /mutate, GET /healthz, /readyz, /metrics');
  if (process.argv.includes('--print-manifests')) process.stdout.write(renderManifests(caBundle));

  const stop = (signal: string) => {
    logger.info({ signal }, 'shutting down');
    void Promise.all([server.shutdown(), sync?.stop(), inventorySync?.stop()]).then(() => logger.flush(() => process.exit(0)));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((error: unknown) => {
    console.error(JSON.stringify({ level: 60, msg: 'failed to start', error: error instanceof Error ? error.message : String(error) }));
    process.exit(1);
  });
}
