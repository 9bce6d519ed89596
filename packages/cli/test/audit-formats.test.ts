import { describe, expect, it } from 'vitest';
import { XMLParser } from 'fast-xml-parser';
import { parseAllDocuments } from 'yaml';
import { policyReportValidators, run, sarifValidator } from './audit-helpers.js';

/** The fixture folder, plus one more Pod from standard input. */
const STDIN_POD = 'apiVersion: v1\nkind: Pod\nmetadata: {name: piped, namespace: shop}\nspec: {containers: [{name: a, image: a:latest}]}\n';
const audit = (format: string) => run(['audit', '-p', 'policies', 'manifests', '-', '-o', format], { stdin: STDIN_POD });

interface SarifResult {
  ruleId: string;
  ruleIndex?: number;
  level: string;
  message: { text: string };
  locations: Array<{ physicalLocation: { artifactLocation: { uri: string; uriBaseId: string }; region: { startLine: number } } }>;
}
interface SarifLog {
  version: string;
  runs: Array<{ tool: { driver: { rules: Array<{ id: string; help: { text: string } }> } }; results: SarifResult[] }>;
}

describe('-o sarif', () => {
  async function setup() {
    const r = await audit('sarif');
    return { r, log: JSON.parse(r.stdout) as SarifLog, validate: sarifValidator() };
  }

  it('validates against the SARIF 2.1.0 JSON Schema', async () => {
    const { log, validate } = await setup();
    expect(validate(log), JSON.stringify(validate.errors, null, 2)).toBe(true);
    expect(log.version).toBe('2.1.0');
    const broken = structuredClone(log) as unknown as { runs: Array<{ results: Array<{ level: string }> }> };
    broken.runs[0]!.results[0]!.level = 'fatal';
    expect(validate(broken)).toBe(false);
  });

  it('has one result per violation: error for deny, warning for warn, at the file and line of the object', async () => {
    const { log } = await setup();
    const results = log.runs[0]!.results.map((x) => [x.ruleId, x.level, x.locations[0]!.physicalLocation.artifactLocation.uri, x.locations[0]!.physicalLocation.region.startLine, x.message.text]);
    expect(results).toEqual([
      ['Policy/no-latest-tag', 'warning', 'manifests/apps/nested/deep/pod.yml', 1, 'Pod default/debug: container shell uses busybox:latest'],
      ['K8sRequiredLabels/must-have-owner', 'error', 'manifests/apps/web.yaml', 13, 'Deployment shop/api: missing label "owner"'],
      ['K8sRequiredLabels/must-have-owner', 'error', 'manifests/broken/bad.yaml', 12, 'Pod shop/after-the-break: missing label "owner"'],
      ['K8sRequiredLabels/must-have-owner', 'error', 'manifests/cluster/dump.yaml', 9, 'Pod shop/cart: missing label "owner"'],
      ['K8sRequiredLabels/must-have-owner', 'error', 'manifests/data/pods.json', 11, 'Pod batch/json-bad: missing label "owner"'],
      ['K8sRequiredLabels/must-have-owner', 'error', '(stdin)', 1, 'Pod shop/piped: missing label "owner"'],
      ['Policy/no-latest-tag', 'warning', '(stdin)', 1, 'Pod shop/piped: container a uses a:latest'],
      ['verdict/unreadable-manifest', 'error', 'manifests/broken/bad.yaml', 10, expect.stringContaining('cannot parse the manifest: Flow sequence')],
    ]);
  });

  it('describes each policy as a rule with help text, and points every result at its rule', async () => {
    const { log } = await setup();
    const rules = log.runs[0]!.tool.driver.rules;
    expect(rules.map((x) => x.id)).toEqual(['K8sRequiredLabels/must-have-owner', 'Policy/no-latest-tag', 'verdict/unreadable-manifest', 'verdict/manifest-warning', 'verdict/input-error']);
    expect(rules[0]!.help.text).toBe('Objects must carry the required labels.\n\nEnforcement: deny, denies admission (error).\n\nRules:\n- has-labels: every required label is present');
    for (const result of log.runs[0]!.results) expect(rules[result.ruleIndex!]!.id).toBe(result.ruleId);
  });
});

describe('-o policyreport', () => {
  async function setup() {
    const r = await audit('policyreport');
    const reports = parseAllDocuments(r.stdout).map((d) => d.toJS() as { apiVersion: string; kind: string; metadata: { name: string; namespace?: string }; summary: Record<string, number>; results: Array<{ result: string; policy: string; rule: string; resources?: Array<{ name: string }> }> });
    return { reports };
  }

  it('validates every report against the wgpolicyk8s.io/v1alpha2 CRD schema', async () => {
    const { reports } = await setup();
    const validators = policyReportValidators();
    for (const report of reports) {
      expect(report.apiVersion).toBe('wgpolicyk8s.io/v1alpha2');
      const validate = validators[report.kind as 'PolicyReport' | 'ClusterPolicyReport'];
      expect(validate(report), JSON.stringify(validate.errors, null, 2)).toBe(true);
    }
    expect(validators.PolicyReport({ ...reports[1], results: [{ policy: 'p', result: 'warned' }] })).toBe(false);
    expect(validators.PolicyReport({ ...reports[1], summary: { pass: 'all' } })).toBe(false);
  });

  it('writes a PolicyReport per namespace and a ClusterPolicyReport, with pass, fail and warn results and a summary', async () => {
    const { reports } = await setup();
    expect(reports.map((x) => `${x.kind} ${x.metadata.namespace ?? ''}`.trim())).toEqual([
      'ClusterPolicyReport', 'PolicyReport batch', 'PolicyReport default', 'PolicyReport shop',
    ]);
    const shop = reports.find((x) => x.metadata.namespace === 'shop')!;
    expect(shop.summary).toEqual({ pass: 5, fail: 4, warn: 1, error: 0, skip: 0 });
    expect(shop.results.filter((x) => x.result !== 'pass').map((x) => [x.result, x.policy, x.rule, x.resources?.[0]?.name])).toEqual([
      ['fail', 'must-have-owner', 'has-labels', 'api'],
      ['fail', 'must-have-owner', 'has-labels', 'after-the-break'],
      ['fail', 'must-have-owner', 'has-labels', 'cart'],
      ['fail', 'must-have-owner', 'has-labels', 'piped'],
      ['warn', 'no-latest-tag', 'pinned', 'piped'],
    ]);
    for (const report of reports) {
      const counts = report.results.reduce<Record<string, number>>((acc, x) => ({ ...acc, [x.result]: (acc[x.result] ?? 0) + 1 }), {});
      expect(Object.fromEntries(Object.entries(report.summary).filter(([, n]) => n > 0))).toEqual(counts);
    }
  });

  it('reports an unreadable manifest as an error of the cluster report', async () => {
    const { reports } = await setup();
    expect(reports[0]!.results).toEqual([expect.objectContaining({ result: 'error', rule: 'readable-manifest', properties: { file: 'manifests/broken/bad.yaml', line: '10' } })]);
  });
});

describe('-o junit', () => {
  async function setup() {
    const r = await audit('junit');
    const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (name) => ['testsuite', 'testcase'].includes(name) }).parse(r.stdout) as {
      testsuites: { tests: string; failures: string; errors: string; testsuite: Array<{ name: string; testcase: Array<{ name: string; line: string; failure?: unknown; error?: unknown; 'system-out'?: string }> }> };
    };
    return { xml: xml.testsuites };
  }

  it('has a testcase per object and policy; deny violations fail, warnings do not', async () => {
    const { xml } = await setup();
    expect(xml).toMatchObject({ tests: '17', failures: '5', errors: '1' });
    const cases = xml.testsuite.flatMap((s) => s.testcase.map((c) => [s.name, c.name, c.failure ? 'failure' : c.error ? 'error' : 'ok', c['system-out'] ?? '']));
    expect(cases.filter((c) => c[1]!.startsWith('Pod shop/piped'))).toEqual([
      ['(stdin)', 'Pod shop/piped › K8sRequiredLabels/must-have-owner', 'failure', ''],
      ['(stdin)', 'Pod shop/piped › Policy/no-latest-tag', 'ok', 'warning: [pinned] container a uses a:latest'],
    ]);
    expect(cases.find((c) => c[1]!.startsWith('(unreadable'))).toEqual(['manifests/broken/bad.yaml', '(unreadable manifest at line 10)', 'error', '']);
  });
});

describe('-o json and -o table', () => {
  it('json holds the summary, every object with its results, and the problems', async () => {
    const r = await audit('json');
    const report = JSON.parse(r.stdout) as { summary: object; objects: unknown[]; problems: unknown[] };
    expect(report.summary).toEqual({ files: 7, objects: 11, denied: 5, warned: 1, skipped: 1, problems: 1, results: { pass: 9, fail: 5, warn: 2, error: 0, skip: 0 } });
    expect(report.objects).toHaveLength(12);
  });

  it('table lists the objects with findings, the unreadable manifest and the counts', async () => {
    const r = await audit('table');
    expect(r.stdout).toContain('(stdin):1  Pod shop/piped  denied\n  ✗ [must-have-owner] missing label "owner"\n  ! [no-latest-tag] container a uses a:latest\n');
    expect(r.stdout).toContain('manifests/broken/bad.yaml:10:3\n  ✗ unreadable: Flow sequence');
    expect(r.stdout).not.toContain('json-ok');
    expect(r.stdout.trimEnd().split('\n').at(-1)).toBe('11 objects in 7 files: 5 denied, 1 warned, 5 passed; 1 skipped; 1 unreadable manifest');
  });
});
