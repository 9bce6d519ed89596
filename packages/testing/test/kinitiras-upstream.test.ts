/**
 * Rows ported from k-cloud-labs/pkg's own tests (test/fixtures/kinitiras-pkg, Apache-2.0, see its NOTICE):
 * selectors, the override and validate managers, CUE and templates decide and patch as upstream says,
 * through @verdict/kubernetes's webhook and through `verdict test` suites. Template rows also run with the
 * CUE kinitiras renders from the template, which must give the same answer as verdict's own rules.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { admissionReviewFor, createAdmissionWebhook, InventoryCache, type KubernetesObject } from '@verdict/kubernetes';
import { formatCaseFailure, runSuites } from '@verdict/testing';

type Json = Record<string, unknown>;

interface Row {
  name: string;
  policies?: Json[];
  selectors?: Json[];
  selected?: boolean;
  origin?: Json;
  cue?: string;
  template?: Json;
  validateTemplate?: Json;
  rendered?: string;
  mutating?: boolean;
  operation?: 'CREATE' | 'UPDATE' | 'DELETE';
  object?: KubernetesObject;
  oldObject?: KubernetesObject;
  inventory?: KubernetesObject[];
  expect: { allowed?: boolean; message?: string; patch?: Json[]; error?: boolean; refused?: boolean };
}

const FIXTURES = resolve(fileURLToPath(import.meta.url), '../../../../test/fixtures/kinitiras-pkg');
const ROWS = (parse(readFileSync(join(FIXTURES, 'rows.yaml'), 'utf8'), { merge: true, maxAliasCount: -1 }) as { rows: Row[] }).rows.map((r) => ({ ...r, expect: r.expect ?? {} }));
const API = 'policy.kcloudlabs.io/v1alpha1';

/** The policies of a row: written out, or built from its shorthand (and, with `rendered`, the variant with kinitiras' CUE). */
function variants(row: Row): Array<{ label: string; policies: Json[] }> {
  if (row.policies) return [{ label: '', policies: row.policies }];
  if (row.selectors) {
    const template = { type: 'condition', condition: { cond: 'Exist', message: 'selected', dataRef: { from: 'current', path: '/metadata/name' } } };
    return [{ label: '', policies: [{ apiVersion: API, kind: 'ClusterValidatePolicy', metadata: { name: 'selector' }, spec: { resourceSelectors: row.selectors, validateRules: [{ template }] } }] }];
  }
  if (row.origin) return [{ label: '', policies: [{ apiVersion: API, kind: 'OverridePolicy', metadata: { name: 'origin', namespace: 'default' }, spec: { overrideRules: [{ overriders: { origin: [row.origin] } }] } }] }];
  if (row.cue) return [{ label: '', policies: [{ apiVersion: API, kind: 'ClusterValidatePolicy', metadata: { name: 'cue' }, spec: { validateRules: [{ cue: row.cue }] } }] }];
  const override = (extra: Json) => ({ apiVersion: API, kind: 'OverridePolicy', metadata: { name: 'template', namespace: 'default' }, spec: { overrideRules: [{ overriders: { template: row.template, ...extra } }] } });
  const validate = (extra: Json) => ({ apiVersion: API, kind: 'ClusterValidatePolicy', metadata: { name: 'template' }, spec: { validateRules: [{ template: row.validateTemplate, ...extra }] } });
  const make = row.template ? override : validate;
  const out = [{ label: ' (verdict rules)', policies: [make({})] }];
  if (row.rendered) out.push({ label: ' (kinitiras\' rendered CUE)', policies: [make({ renderedCue: row.rendered })] });
  return out;
}

function reviewOf(row: Row) {
  const operation = row.operation ?? 'CREATE';
  return operation === 'DELETE'
    ? admissionReviewFor(null, { operation, oldObject: row.oldObject! })
    : admissionReviewFor(row.object!, { operation, ...(row.oldObject ? { oldObject: row.oldObject } : {}) });
}

const cases = ROWS.flatMap((row) => variants(row).map((v) => ({ ...v, row, title: `${row.name}${v.label}` })));

describe('k-cloud-labs/pkg rows through the webhook', () => {
  it('are every row ported', () => {
    expect(ROWS.length).toBe(69);
  });

  it.each(cases)('$title', async ({ row, policies }) => {
    if (row.expect.refused) {
      expect(() => createAdmissionWebhook({ policies, mutating: true })).toThrow(/policy documents/);
      return;
    }
    const webhook = createAdmissionWebhook({ policies, mutating: row.mutating === true, ...(row.inventory ? { inventory: new InventoryCache({ objects: row.inventory }) } : {}) });
    const { response } = await webhook.review(reviewOf(row));
    const allowed = row.selectors ? !row.selected : row.expect.allowed;
    expect(response.allowed).toBe(allowed);
    if (row.expect.message !== undefined) expect(response.status).toEqual({ status: 'Failure', message: row.expect.message });
    if (row.expect.error) expect(response.status?.code).toBe(500);
    if (row.selectors && row.selected) expect(response.status?.message).toBe('selected');
    if (row.expect.patch) expect(JSON.parse(Buffer.from(response.patch ?? 'W10=', 'base64').toString('utf8'))).toEqual(row.expect.patch);
  }, 60_000);
});

describe('the rendered CUE of the rows', () => {
  // The CUE Go's text/template renders from kinitiras' templates (packages/kubernetes/test/fixtures/kinitiras-rendered).
  const RENDERED = (JSON.parse(readFileSync(resolve(FIXTURES, '../../../packages/kubernetes/test/fixtures/kinitiras-rendered/rendered.json'), 'utf8')) as { templates: Array<{ template: Json; rendered: string }> }).templates;
  /** Layout aside (cue's formatter, which kinitiras runs after rendering, changes spaces, line breaks and commas). */
  const layoutless = (cue: string) => cue.replace(/[\s,]+/g, '');
  /** JSON with sorted keys. */
  const canonical = (v: unknown): string => JSON.stringify(v, (_k, x: unknown) => (x && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : 1))) : x));

  it('is what kinitiras renders: upstream\'s asserted texts equal the Go-rendered ones but for layout', () => {
    const compared = ROWS.filter((r) => r.rendered).flatMap((row) => {
      const template = row.template ?? row.validateTemplate;
      const ours = RENDERED.find((r) => canonical(r.template) === canonical(template));
      return [[row.name, ours !== undefined && layoutless(row.rendered!) === layoutless(ours.rendered)] as const];
    });
    expect(compared.filter(([, same]) => !same)).toEqual([]);
    expect(compared.length).toBeGreaterThan(0);
  });
});

describe('k-cloud-labs/pkg rows through verdict test', () => {
  const dir = mkdtempSync(join(tmpdir(), 'verdict-kinitiras-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('pass as suites, and the refused policies fail to load', async () => {
    const files: string[] = [];
    cases.forEach(({ row, policies }, i) => {
      writeFileSync(join(dir, `policies-${i}.yaml`), policies.map((p) => stringify(p)).join('---\n'));
      const operation = row.operation ?? 'CREATE';
      const input = operation === 'DELETE' ? row.oldObject : row.object;
      const allowed = row.selectors ? !row.selected : row.expect.allowed;
      const expectation: Json = row.expect.refused ? { allowed: true } : { allowed };
      if (row.expect.message) expectation['messages'] = [row.expect.message];
      // No operations is a suite's `patch: false`.
      if (row.expect.patch) expectation['patch'] = row.expect.patch.length === 0 ? false : row.expect.patch;
      const suite = {
        apiVersion: 'verdict.dev/v1', kind: 'Suite', metadata: { name: `row ${i}` }, policies: [`policies-${i}.yaml`],
        ...(row.mutating ? { kubernetes: { mutating: true } } : {}),
        cases: [{ name: row.name, input, operation, ...(row.oldObject && operation !== 'DELETE' ? { oldObject: row.oldObject } : {}), ...(row.inventory ? { inventory: row.inventory } : {}), expect: expectation }],
      };
      const file = join(dir, `row-${i}.verdict.yaml`);
      writeFileSync(file, stringify(suite));
      files.push(file);
    });
    const report = await runSuites(files);
    const problems = report.suites.flatMap((s, i) => {
      const refused = cases[i]!.row.expect.refused === true;
      if (refused) return s.error ? [] : [`${cases[i]!.title}: loaded, but kinitiras refuses it`];
      return [...(s.error ?? []).map((e) => `${cases[i]!.title}: ${e}`), ...s.cases.filter((c) => c.status !== 'passed').map((c) => `${cases[i]!.title}: ${formatCaseFailure(c)}`)];
    });
    expect(problems).toEqual([]);
  }, 240_000);
});
