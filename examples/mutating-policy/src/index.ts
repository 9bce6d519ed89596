/**
 * Reviews a few objects against the Kyverno MutatingPolicies of this folder in
 * a mutating webhook, and prints the patch Kyverno's admission controller would
 * answer with, then each policy's result (autogen variants by name).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parsePolicyDocuments, type PatchOperation } from '@verdict/core';
import { admissionReviewFor, createAdmissionWebhook, mutatingPolicyResults, type AdmissionInput, type KubernetesObject, type MutatingPolicyResult } from '@verdict/kubernetes';

const folder = fileURLToPath(new URL('../policies/', import.meta.url));
const documents = readdirSync(folder).sort().flatMap((file) => parsePolicyDocuments(readFileSync(folder + file, 'utf8'), { source: `policies/${file}` }));

let input: AdmissionInput | undefined;
const webhook = createAdmissionWebhook({ policies: documents, mutating: true, namespaceLabels: () => ({}), onDecision: (event) => (input = event.input) });

const cases: KubernetesObject[] = [
  { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'tools', namespace: 'default' }, spec: { containers: [{ name: 'tools', image: 'busybox:1.36' }] } },
  {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'team-a' },
    spec: { template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'ghcr.io/example/web:2.1' }] } } },
  },
];

export interface Answer {
  object: string;
  allowed: boolean;
  /** The JSON Patch of the answer, decoded. */
  patch: PatchOperation[];
  /** Results of the policies (and autogen variants) that applied. */
  results: MutatingPolicyResult[];
}

export async function run(): Promise<Answer[]> {
  const out: Answer[] = [];
  for (const object of cases) {
    input = undefined;
    const { response } = await webhook.review(admissionReviewFor(object));
    // Results of every policy need a traced evaluation: the webhook's own skips the policies its index rules out.
    const decision = input ? webhook.policies.evaluate(input, { explain: true }) : undefined;
    const results = decision ? mutatingPolicyResults(webhook.policies, decision).filter((r) => r.result !== 'none') : [];
    const patch = response.patch ? JSON.parse(Buffer.from(response.patch, 'base64').toString('utf8')) as PatchOperation[] : [];
    out.push({ object: `${object.kind}/${object.metadata?.namespace}/${object.metadata?.name}`, allowed: response.allowed, patch, results });
  }
  return out;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const { object, allowed, patch, results } of await run()) {
    console.log(`${allowed ? 'ALLOW' : 'DENY'}  ${object}`);
    for (const op of patch) console.log(`  ${op.op} ${op.path} = ${JSON.stringify(op.value)}`);
    for (const r of results) console.log(`  ${r.namespace ? `${r.namespace}/` : ''}${r.name}${r.autogen ? ` (autogen ${r.autogen})` : ''}: ${r.result}${r.message ? `: ${r.message}` : ''}`);
  }
}
