/**
 * Reviews a few objects against the Kyverno policies of this folder and
 * prints what Kyverno's admission controller would answer, then each
 * policy's result as a PolicyReport would list it (Audit failures included).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parsePolicyDocuments } from '@verdict/core';
import { admissionReviewFor, createAdmissionWebhook, validatingPolicyResults, type AdmissionInput, type AdmissionResponse, type KubernetesObject, type ValidatingPolicyResult } from '@verdict/kubernetes';

const folder = fileURLToPath(new URL('../policies/', import.meta.url));
const documents = readdirSync(folder).sort().flatMap((file) => parsePolicyDocuments(readFileSync(folder + file, 'utf8'), { source: `policies/${file}` }));

let input: AdmissionInput | undefined;
const webhook = createAdmissionWebhook({ policies: documents, namespaceLabels: () => ({}), onDecision: (event) => (input = event.input) });

const container = (image: string) => ({ containers: [{ name: 'app', image }] });
const cases: KubernetesObject[] = [
  { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'tools', namespace: 'default' }, spec: container('busybox:1.36') },
  { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'team-a' }, spec: { template: { metadata: { labels: { app: 'web' } }, spec: container('ghcr.io/example/web:latest') } } },
  { apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'report', namespace: 'default' }, spec: { schedule: '0 * * * *', jobTemplate: { spec: { template: { spec: container('ghcr.io/example/report:2.0') } } } } },
];

export interface Answer {
  object: string;
  response: AdmissionResponse;
  /** Results of the policies (and autogen variants) that applied. */
  results: ValidatingPolicyResult[];
}

export async function run(): Promise<Answer[]> {
  const out: Answer[] = [];
  for (const object of cases) {
    input = undefined;
    const { response } = await webhook.review(admissionReviewFor(object));
    // Results of every policy need a traced evaluation: the webhook's own skips the policies its index rules out.
    const decision = input ? webhook.policies.evaluate(input, { explain: true, mutate: false }) : undefined;
    const results = decision ? validatingPolicyResults(webhook.policies, decision).filter((r) => r.result !== 'none') : [];
    out.push({ object: `${object.kind}/${object.metadata?.namespace}/${object.metadata?.name}`, response, results });
  }
  return out;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const { object, response, results } of await run()) {
    console.log(`${response.allowed ? 'ALLOW' : 'DENY'}  ${object}`);
    if (response.status?.message) console.log(`  ${response.status.message}`);
    for (const warning of response.warnings ?? []) console.log(`  warning: ${warning}`);
    for (const r of results) console.log(`  ${r.namespace ? `${r.namespace}/` : ''}${r.name}${r.autogen ? ` (autogen ${r.autogen})` : ''}: ${r.result}${r.message ? `: ${r.message}` : ''}`);
  }
}
