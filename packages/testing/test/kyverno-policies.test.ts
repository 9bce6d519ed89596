/**
 * kyverno/policies' best-practices ValidatingPolicies, copied verbatim with
 * their Kyverno CLI tests into test/fixtures/kyverno-policies (Apache-2.0, see
 * its README and LICENSE): each test passes as it is through `runSuites` (what
 * `verdict test` runs), and every expected result holds through the webhook's
 * `review()`, answered as Kyverno's admission controller answers.
 */
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Decision } from '@verdict/core';
import { readPolicyFiles } from '@verdict/testing/internal';
import { formatCaseFailure, runSuites } from '@verdict/testing';
import { loadKyvernoTest } from '@verdict/testing/kubernetes';
import { admissionReviewFor, createAdmissionWebhook, type KubernetesObject } from '@verdict/kubernetes';

const FIXTURES = resolve(fileURLToPath(import.meta.url), '../../../../test/fixtures/kyverno-policies/best-practices-vpol');
const POLICIES = readdirSync(FIXTURES, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort();
const testFile = (policy: string) => join(FIXTURES, policy, '.kyverno-test', 'kyverno-test.yaml');

type Raw = Record<string, unknown>;
const nameOf = (resource: KubernetesObject) => String((resource['metadata'] as Raw | undefined)?.['name']);

/** The webhook of one Kyverno test's policies (every policy takes part, as in `kyverno test`), and its actions per policy. */
function setup(policy: string) {
  const test = loadKyvernoTest(testFile(policy));
  const documents = readPolicyFiles(test.policies);
  const seen: { decision?: Decision | undefined } = {};
  const webhook = createAdmissionWebhook({ policies: documents, evaluation: 'all', namespaceLabels: () => ({}), onDecision: (e) => (seen.decision = e.decision) });
  const actions = new Map(documents.map((d) => [(d['metadata'] as Raw)['name'], ((d['spec'] as Raw)['validationActions'] as string[] | undefined) ?? ['Deny']]));
  const resources = readPolicyFiles(test.resources) as KubernetesObject[];
  const review = async (resource: KubernetesObject) => {
    seen.decision = undefined;
    const { response } = await webhook.review(admissionReviewFor(resource));
    return { response, decision: seen.decision as Decision | undefined }; // set by onDecision during review()
  };
  return { test, actions, resources, review };
}

describe('kyverno/policies best-practices ValidatingPolicies', () => {
  it('are the fourteen upstream policies', () => {
    expect(POLICIES).toEqual([
      'check-deprecated-apis', 'disallow-cri-sock-mount', 'disallow-empty-ingress-host', 'disallow-helm-tiller', 'disallow-latest-tag',
      'require-drop-all', 'require-drop-cap-net-raw', 'require-labels', 'require-pod-requests-limits', 'require-probes', 'require-ro-rootfs',
      'restrict-image-registries', 'restrict-node-port', 'restrict-service-external-ips',
    ]);
  });

  it.each(POLICIES)('%s passes its own Kyverno CLI test', async (policy) => {
    const report = await runSuites([testFile(policy)]);
    const failures = report.suites.flatMap((s) => [...(s.error ?? []), ...s.cases.filter((c) => c.status !== 'passed').map((c) => `${s.name} › ${c.name}: ${formatCaseFailure(c)}`)]);
    expect(failures).toEqual([]);
    expect(report.passed).toBeGreaterThan(0);
  });

  it.each(POLICIES)('%s answers each of its test\'s results through review(), by its validationActions', async (policy) => {
    const { test, actions, resources, review } = setup(policy);
    let checked = 0;
    for (const expected of test.results) {
      const name = expected.policy.split('/').pop()!;
      for (const resource of resources.filter((r) => expected.resources.includes(nameOf(r)))) {
        const { response, decision } = await review(resource);
        const label = `${name} on ${String(resource['kind'])}/${nameOf(resource)}`;
        const violated = (decision?.violations ?? []).filter((v) => v.policy === name || v.policy.startsWith(`${name}/`));
        const line = `Policy ${name} failed: `;
        if (expected.result !== 'fail') {
          expect(violated, label).toEqual([]);
          expect(response.allowed, label).toBe(true);
        } else if (actions.get(name)!.includes('Deny')) {
          expect(response.allowed, label).toBe(false);
          expect(response.status?.message, label).toContain(line);
        } else {
          // Audit: admitted without a word, the failure kept in the decision (Kyverno writes it to a PolicyReport).
          expect(response, label).toEqual({ uid: response.uid, allowed: true });
          expect(violated.map((v) => v.enforcementAction), label).toEqual(['audit']);
        }
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(0);
  });
});
