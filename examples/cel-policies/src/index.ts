/**
 * Evaluates the CEL WorkloadLimits policy for workloads in four namespaces and prints each decision
 * with the parameters parameterSelection chose and the CEL variables the rules computed.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { compilePolicies, parsePolicyDocuments, type Decision } from '@verdict/core';

const file = fileURLToPath(new URL('../policies/workload-limits.yaml', import.meta.url));
export const policies = compilePolicies(parsePolicyDocuments(readFileSync(file, 'utf8'), { source: 'policies/workload-limits.yaml' }));

function deployment(namespace: string, replicas: number, memory: string, image = 'registry.example.com/app:1') {
  return { kind: 'Deployment', metadata: { name: 'app', namespace }, spec: { replicas, template: { spec: { containers: [{ name: 'app', image, resources: { limits: { memory } } }] } } } };
}

const cases = [
  { labels: { tier: 'web' }, object: deployment('shop', 3, '1Gi') },
  { labels: { tier: 'web' }, object: deployment('shop', 8, '4Gi') },
  { labels: { tier: 'batch' }, object: deployment('batch', 20, '12Gi') },
  { labels: { tier: 'batch', team: 'ml' }, object: deployment('ml-batch', 2, '12Gi', 'nvcr.io/pytorch:24') },
];

export function run(): Array<{ namespace: string; decision: Decision }> {
  return cases.map(({ labels, object }) => ({ namespace: object.metadata.namespace, decision: policies.evaluate({ object, namespaceLabels: labels }) }));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const { namespace, decision } of run()) {
    console.log(`${decision.allowed ? 'ALLOW' : 'DENY '}  Deployment in ${namespace}`);
    for (const t of decision.trace) {
      console.log(`       entries ${t.selection?.matched.map((e) => e.name ?? e.index).join('+') || '(none)'} -> parameters ${JSON.stringify(t.parameters)}`);
      console.log(`       variables ${JSON.stringify(t.variables)}`);
    }
    for (const v of decision.violations) console.log(`       ✗ ${v.rule}: ${v.message}`);
  }
}
