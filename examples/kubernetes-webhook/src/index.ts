/**
 * Starts the example webhook server.
 *
 *   pnpm start                        # https://127.0.0.1:8443, certificate generated for localhost
 *   pnpm start -- --print-manifests   # also prints both webhook configurations with the caBundle
 *
 * Environment: HOST, PORT, CERT_HOSTS (comma-separated names for the generated
 * certificate), TLS_CERT_FILE and TLS_KEY_FILE (serve a given certificate).
 * Inside a cluster, namespace labels are kept in sync from the API server.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { NamespaceCache } from '@verdict/kubernetes';
import { inClusterAccess, watchNamespaces } from './kube.js';
import { startWebhookServer } from './server.js';

const MANIFESTS = ['validating-webhook.yaml', 'mutating-webhook.yaml'];

/** The webhook configurations with `${CA_BUNDLE}` filled in. */
export function renderManifests(caBundle: string): string {
  return MANIFESTS.map((file) => readFileSync(fileURLToPath(new URL(`../manifests/${file}`, import.meta.url)), 'utf8').replaceAll('${CA_BUNDLE}', caBundle)).join('---\n');
}

async function main(): Promise<void> {
  const env = process.env;
  const tls = env['TLS_CERT_FILE'] && env['TLS_KEY_FILE'] ? { cert: readFileSync(env['TLS_CERT_FILE'], 'utf8'), key: readFileSync(env['TLS_KEY_FILE'], 'utf8') } : undefined;
  const namespaces = new NamespaceCache();
  const access = inClusterAccess();
  const watch = access ? watchNamespaces(access, namespaces, { onError: (error) => console.error(`namespace watch: ${error.message}`) }) : undefined;
  const server = await startWebhookServer({
    host: env['HOST'] ?? '127.0.0.1',
    port: Number(env['PORT'] ?? 8443),
    ...(env['CERT_HOSTS'] ? { certificateHosts: env['CERT_HOSTS'].split(',') } : {}),
    ...(tls ? { tls } : {}),
    namespaceLabels: namespaces,
    onDecision: ({ input, response, error }) => {
      const r = response.response;
      console.log(JSON.stringify({ uid: r.uid, operation: input?.operation, kind: input?.kind.kind, namespace: input?.namespace, name: input?.name, allowed: r.allowed, message: r.status?.message, error: error?.message }));
    },
  });
  const caBundle = Buffer.from(server.ca).toString('base64');
  console.log(`verdict webhook listening on ${server.url} (POST /validate, POST /mutate, GET /healthz)`);
  if (process.argv.includes('--print-manifests')) console.log(renderManifests(caBundle));
  else console.log(`caBundle: ${caBundle}`);
  const stop = () => {
    watch?.stop();
    void server.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
