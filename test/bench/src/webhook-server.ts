/**
 * Starts examples/kubernetes-webhook's server on 127.0.0.1 (a free port) for
 * workload 5, with namespace labels for the bench's namespaces, and prints
 * `{"url": …}` on its first line. Stops on SIGTERM.
 */
import { NamespaceCache } from '@verdict/kubernetes';
import { startWebhookServer } from '@verdict/example-kubernetes-webhook/src/server.js';

const namespaces = new NamespaceCache();
for (let i = 0; i < 4; i++) namespaces.set(`team-${i}`, { 'field.cattle.io/projectId': `project-${i}` });
const server = await startWebhookServer({ host: '127.0.0.1', port: 0, namespaceLabels: namespaces });
process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);
process.once('SIGTERM', () => void server.close().then(() => process.exit(0)));
