/**
 * Evaluates the two policies of Gatekeeper's feature request for defaults and
 * overrides (open-policy-agent/gatekeeper#3082: memory limits with per-team overrides, and
 * allowed registries merged over a default) against Pods in four projects and
 * prints each decision with the parameters the trace says were used.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { compilePolicies, parsePolicyDocuments, type Decision } from '@verdict/core';

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
const documents = ['../policies/memory-limits.yaml', '../policies/allowed-registries.yaml'].flatMap((file) =>
  parsePolicyDocuments(readFileSync(here(file), 'utf8'), { source: file.replace('../', '') }),
);
const policies = compilePolicies(documents);

function pod(name: string, memory: string, image: string) {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'app', image, resources: { limits: { memory } } }] } };
}

const cases = [
  { project: 'web', object: pod('web-1', '8Gi', 'internal.artifactory.example.com/web:1.2') },
  { project: 'web', object: pod('web-2', '20Gi', 'gcr.io/web:1.2') },
  { project: '32g-team', object: pod('batch-1', '20Gi', 'internal.artifactory.example.com/batch:3') },
  { project: '64g-team', object: pod('ml-1', '80Gi', 'internal.artifactory.example.com/ml:7') },
  { project: 'special-team1', object: pod('etl-1', '4Gi', 'gcr.io/etl:2') },
  { project: 'special-team2', object: pod('etl-2', '4Gi', 'gcr.io/etl:2') },
  { project: 'system', object: pod('coredns', '200Gi', 'internal.artifactory.example.com/coredns:1') },
];

export function run(): Array<{ project: string; pod: string; decision: Decision }> {
  return cases.map(({ project, object }) => ({
    project,
    pod: object.metadata.name,
    decision: policies.evaluate({ object, namespaceLabels: { 'field.cattle.io/projectId': project } }),
  }));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const { project, pod: name, decision } of run()) {
    console.log(`${decision.allowed ? 'ALLOW' : 'DENY '}  ${name} in project ${project}`);
    for (const t of decision.trace) {
      const params = t.parameters ? ` parameters ${JSON.stringify(t.parameters)}` : '';
      const why = t.matched ? `matched${t.selection?.matched.length ? `, entry ${t.selection.matched.map((e) => e.name ?? e.index).join('+')}` : ''}` : `not matched (${t.mismatch?.selector})`;
      console.log(`       ${t.kind}/${t.policy}: ${why}${params}`);
    }
    for (const v of decision.violations) console.log(`       ✗ [${v.policy}] ${v.message}`);
  }
}
