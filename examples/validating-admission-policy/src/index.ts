/**
 * Reviews Deployments against the policies of this folder (two
 * ValidatingAdmissionPolicies with their bindings and parameters, and a
 * Gatekeeper ConstraintTemplate with CEL) and prints what the API server
 * would answer. The test-environment replica limit comes from a ParamCache,
 * as a webhook would feed it from a watch, and overrides the document's.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parsePolicyDocuments } from '@verdict/core';
import { admissionReviewFor, createAdmissionWebhook, ParamCache, type AdmissionResponse, type KubernetesObject } from '@verdict/kubernetes';

const folder = fileURLToPath(new URL('../policies/', import.meta.url));
const documents = readdirSync(folder).sort().flatMap((file) => parsePolicyDocuments(readFileSync(folder + file, 'utf8'), { source: `policies/${file}` }));

const namespaces: Record<string, Record<string, string>> = { test: { environment: 'test' }, prod: { environment: 'prod' }, 'team-a': { environment: 'prod' } };
const params = new ParamCache();
params.apply({ type: 'ADDED', object: { apiVersion: 'rules.example.com/v1', kind: 'ReplicaLimit', metadata: { name: 'replica-limit-test.example.com', namespace: 'default' }, maxReplicas: 2 } });

const webhook = createAdmissionWebhook({ policies: documents, params, namespaceLabels: (name) => namespaces[name] });

function deployment(name: string, namespace: string, replicas: number, image: string, labels: Record<string, string>): KubernetesObject {
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, namespace, labels }, spec: { replicas, template: { spec: { containers: [{ name: 'app', image }] } } } };
}

const cases = [
  deployment('web', 'test', 3, 'test.example.com/web', { owner: 'shop' }),
  deployment('web', 'prod', 50, 'prod.example.com/web', { owner: 'shop' }),
  deployment('web', 'prod', 2, 'test.example.com/web', { owner: 'shop' }),
  deployment('api', 'team-a', 2, 'prod.example.com/api', { owner: 'a' }),
];

export async function run(): Promise<Array<{ deployment: string; response: AdmissionResponse }>> {
  const out: Array<{ deployment: string; response: AdmissionResponse }> = [];
  for (const object of cases) {
    const meta = object['metadata'] as { name: string; namespace: string };
    out.push({ deployment: `${meta.namespace}/${meta.name}`, response: (await webhook.review(admissionReviewFor(object))).response });
  }
  return out;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const { deployment: name, response } of await run()) {
    console.log(`${response.allowed ? 'ALLOW' : `DENY ${response.status?.code}`}  ${name}`);
    if (response.status?.message) console.log(`  ${response.status.message}`);
    for (const warning of response.warnings ?? []) console.log(`  warning: ${warning}`);
    for (const [key, value] of Object.entries(response.auditAnnotations ?? {})) console.log(`  audit ${key}: ${value}`);
  }
}
