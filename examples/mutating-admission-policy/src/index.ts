/**
 * Reviews a Pod and a Deployment with the MutatingAdmissionPolicies of this
 * folder (a sidecar injected with JSONPatch, a team label merged with an
 * ApplyConfiguration) through a mutating webhook, and prints the JSON Patch
 * the API server would apply.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parsePolicyDocuments, type PatchOperation } from '@verdict/core';
import { admissionReviewFor, createAdmissionWebhook, type AdmissionResponse, type KubernetesObject } from '@verdict/kubernetes';

const folder = fileURLToPath(new URL('../policies/', import.meta.url));
const documents = readdirSync(folder).sort().flatMap((file) => parsePolicyDocuments(readFileSync(folder + file, 'utf8'), { source: `policies/${file}` }));

const namespaces: Record<string, Record<string, string>> = { shop: { mesh: 'enabled', team: 'checkout' }, tools: {} };
const webhook = createAdmissionWebhook({ policies: documents, mutating: true, namespaceLabels: (name) => namespaces[name] });

const cases: KubernetesObject[] = [
  { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'shop' }, spec: { containers: [{ name: 'web', image: 'shop/web:1.0' }] } },
  { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'shop', labels: { app: 'web' } }, spec: { template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'shop/web:1.0' }] } } } },
  { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'debug', namespace: 'tools' }, spec: { containers: [{ name: 'sh', image: 'busybox' }] } },
];

/** The answer for each object, with its patch decoded. */
export async function run(): Promise<Array<{ object: string; response: AdmissionResponse; patch: PatchOperation[] }>> {
  const out = [];
  for (const object of cases) {
    const meta = object['metadata'] as { name: string; namespace: string };
    const { response } = await webhook.review(admissionReviewFor(object));
    const patch = response.patch ? (JSON.parse(Buffer.from(response.patch, 'base64').toString('utf8')) as PatchOperation[]) : [];
    out.push({ object: `${String(object['kind'])} ${meta.namespace}/${meta.name}`, response, patch });
  }
  return out;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const { object, response, patch } of await run()) {
    console.log(`${response.allowed ? 'ALLOW' : `DENY ${response.status?.code}`}  ${object}`);
    if (response.status?.message) console.log(`  ${response.status.message}`);
    for (const op of patch) console.log(`  ${op.op} ${op.path} ${JSON.stringify(op.value)}`);
  }
}
