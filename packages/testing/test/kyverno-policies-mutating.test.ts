/**
 * kyverno/policies' MutatingPolicies, copied verbatim with their Kyverno CLI
 * tests into test/fixtures/kyverno-policies/*-mpol (Apache-2.0, see its README
 * and LICENSE): every test that needs no values file passes as it is through
 * `runSuites` (what `verdict test` runs), and every expected patched resource
 * is what the mutating webhook's patch makes of the resource.
 */
import { readdirSync, existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import jsonpatch, { type Operation } from 'fast-json-patch';
import { describe, expect, it } from 'vitest';
import { readPolicyFiles } from '@verdict/testing/internal';
import { formatCaseFailure, runSuites } from '@verdict/testing';
import { loadKyvernoTest } from '@verdict/testing/kubernetes';
import { admissionReviewFor, createAdmissionWebhook, type KubernetesObject } from '@verdict/kubernetes';

const FIXTURES = resolve(fileURLToPath(import.meta.url), '../../../../test/fixtures/kyverno-policies');
const TESTS = readdirSync(FIXTURES).filter((d) => d.endsWith('-mpol')).flatMap((category) =>
  readdirSync(join(FIXTURES, category)).map((policy) => join(FIXTURES, category, policy, '.kyverno-test', 'kyverno-test.yaml')).filter(existsSync)).sort();
const label = (file: string) => dirname(dirname(file)).slice(FIXTURES.length + 1);

type Raw = Record<string, unknown>;
const meta = (r: Raw) => (r['metadata'] ?? {}) as Raw;
const CLUSTER_SCOPED = new Set(['Namespace', 'Node']);

/** As Kyverno's CLI reads a resource: a namespaced kind without a namespace goes to `default`. */
function prepared(r: Raw): KubernetesObject {
  return meta(r)['namespace'] || CLUSTER_SCOPED.has(String(r['kind'])) ? r as KubernetesObject : { ...r, metadata: { ...meta(r), namespace: 'default' } } as KubernetesObject;
}

/** Kyverno's `Tidy`: nulls, empty maps and empty lists left out (its comparison ignores them). */
function tidy(v: unknown): unknown {
  if (Array.isArray(v)) {
    const out = v.map(tidy).filter((x) => x !== undefined);
    return out.length ? out : undefined;
  }
  if (v !== null && typeof v === 'object') {
    const out = Object.fromEntries(Object.entries(v).map(([k, x]) => [k, tidy(x)] as const).filter(([, x]) => x !== undefined));
    return Object.keys(out).length ? out : undefined;
  }
  return v === null ? undefined : v;
}

const key = (r: Raw) => `${String(r['apiVersion'])} ${String(r['kind'])} ${String(meta(r)['namespace'] ?? '')}/${String(meta(r)['name'])}`;

describe('kyverno/policies MutatingPolicies', () => {
  it('are the thirty-five upstream tests that need no values file', () => {
    expect(TESTS).toHaveLength(35);
    expect(TESTS.map(label)).toContain('other-mpol/add-default-resources');
  });

  it.each(TESTS.map((f) => [label(f), f]))('%s passes its own Kyverno CLI test', async (_, file) => {
    const report = await runSuites([file]);
    const failures = report.suites.flatMap((s) => [...(s.error ?? []), ...s.cases.filter((c) => c.status === 'failed' || c.status === 'error').map((c) => `${s.name} › ${c.name}: ${formatCaseFailure(c)}`)]);
    expect(failures).toEqual([]);
    expect(report.passed).toBeGreaterThan(0);
    // Only the rows kyverno test drops (the patched resource file holds no resource of that name) are skipped.
    for (const c of report.suites.flatMap((s) => s.cases).filter((x) => x.status === 'skipped')) expect(c.hint).toMatch(/kyverno test drops this row/);
  });

  it.each(TESTS.map((f) => [label(f), f]))('%s: the webhook patches each resource into its expected patched resource', async (_, file) => {
    const test = loadKyvernoTest(file);
    const webhook = createAdmissionWebhook({ policies: readPolicyFiles(test.policies), mutating: true, evaluation: 'all', namespaceLabels: () => ({}) });
    const resources = readPolicyFiles(test.resources).map(prepared);
    let compared = 0;
    for (const expected of test.results) {
      for (const name of expected.resources) {
        const [ns, n] = name.includes('/') ? name.split('/') : [undefined, name];
        const resource = resources.find((r) => meta(r)['name'] === n && (ns === undefined || meta(r)['namespace'] === ns) && (!expected.kind || r['kind'] === expected.kind))!;
        expect(resource, name).toBeDefined();
        const namespace = resource['kind'] === 'Namespace' ? String(meta(resource)['name']) : String(meta(resource)['namespace'] ?? '');
        const { response } = await webhook.review(admissionReviewFor(resource, { namespace }));
        expect(response.allowed, name).toBe(true);
        const ops = response.patch ? JSON.parse(Buffer.from(response.patch, 'base64').toString('utf8')) as Operation[] : [];
        const patched = jsonpatch.applyPatch(structuredClone(resource), ops, true, false).newDocument as Raw;
        if (expected.result === 'skip') expect(ops, `${name} is skipped: nothing changes`).toEqual([]);
        if (!expected.patchedResources) continue;
        const wanted = readPolicyFiles([expected.patchedResources]).map((r) => prepared(r)).find((r) => key(r) === key(patched));
        if (!wanted) continue; // kyverno test drops a row whose patched resource file has no such resource
        expect(tidy(patched), `${name} as ${expected.patchedResources}`).toEqual(tidy(wanted));
        compared++;
      }
    }
    expect(compared + test.results.filter((r) => !r.patchedResources).length).toBeGreaterThan(0);
  });
});
