import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, tempTree } from './helpers.js';
import { run, type JsonReport } from './audit-helpers.js';

/** The MutatingAdmissionPolicy example: a sidecar injected with JSONPatch, a team label merged with an ApplyConfiguration. */
const MAP_POLICIES = join(ROOT, 'examples/mutating-admission-policy/policies');

function setup() {
  return tempTree({
    'config.yaml': 'kubernetes: {mutating: true}\n',
    'manifests/shop.yaml': [
      'apiVersion: v1\nkind: Namespace\nmetadata: {name: shop, labels: {mesh: enabled, team: checkout}}',
      'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop, labels: {app: web}}\nspec: {template: {metadata: {labels: {app: web}}, spec: {containers: [{name: web, image: web}]}}}',
      'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: done, namespace: shop, labels: {team: checkout}}\nspec: {template: {metadata: {labels: {team: checkout}}, spec: {containers: [{name: web, image: web}]}}}',
    ].join('\n---\n'),
  });
}

describe('verdict audit with MutatingAdmissionPolicies', () => {
  it('reports a mutation that would change an object as a warning, and one with nothing to change as a pass', async () => {
    const { dir, cleanup } = setup();
    try {
      const r = await run(['audit', '-p', MAP_POLICIES, 'manifests', '-c', 'config.yaml', '-o', 'json'], { cwd: dir });
      const report = JSON.parse(r.stdout) as JsonReport;
      const results = report.objects.flatMap((o) => o.results.map((x) => [o.name, x.policy, x.rule, x.status, x.messages[0]]));
      expect(results).toEqual([
        ['web', 'team-label', 'mutations[0]', 'warn', 'mutation would apply: add /spec/template/metadata/labels/team, add /metadata/labels/team'],
        ['done', 'team-label', 'mutations[0]', 'pass', undefined],
      ]);
      expect(report.summary).toMatchObject({ denied: 0, warned: 1 });
    } finally {
      cleanup();
    }
  });
});
