import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { runSuites, toJUnitXml, type SuiteReport } from '@verdict/testing';
import { escapeXml } from '../src/junit.js';
import { MEMORY_POLICIES, tempTree } from './helpers.js';

const SUITE = `
apiVersion: verdict.dev/v1
kind: Suite
metadata: {name: "memory <limits> & more"}
policies: [memory.yaml]
cases:
  - name: passes
    input: {object: {metadata: {name: a}, spec: {containers: []}}, namespaceLabels: {team: web}}
    expect: {allowed: true}
  - name: fails
    input: {object: {metadata: {name: b}, spec: {containers: [{name: app, resources: {limits: {memory: 20Gi}}}]}}, namespaceLabels: {team: web}}
    expect: {allowed: true}
  - name: is skipped
    skip: true
    input: {}
    expect: {allowed: true}
  - name: cannot read its input
    input: missing.yaml
    expect: {allowed: true}
`;

async function setup(): Promise<{ report: SuiteReport; xml: string }> {
  const { dir, cleanup } = tempTree({ 'memory.yaml': MEMORY_POLICIES, 'a.verdict.yaml': SUITE, 'b.verdict.yaml': 'kind: Suite\n' });
  try {
    const report = await runSuites(['.'], { cwd: dir });
    return { report, xml: toJUnitXml(report, { timestamp: new Date('2026-01-02T03:04:05Z'), hostname: 'ci' }) };
  } finally {
    cleanup();
  }
}

type Node = Record<string, unknown>;
const list = (value: unknown): Node[] => (value === undefined ? [] : Array.isArray(value) ? (value as Node[]) : [value as Node]);

describe('toJUnitXml', () => {
  it('writes well-formed XML with the JUnit schema shape and every required attribute', async () => {
    const { xml } = await setup();
    expect(XMLValidator.validate(xml)).toBe(true);
    const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(xml) as { testsuites: Node };
    const root = doc.testsuites;
    expect(root).toMatchObject({ name: 'verdict', tests: '5', failures: '1', errors: '2', skipped: '1' });
    expect(Number(root['time'])).toBeGreaterThanOrEqual(0);
    const suites = list(root['testsuite']);
    expect(suites).toHaveLength(2);
    for (const suite of suites) {
      for (const attr of ['name', 'tests', 'failures', 'errors', 'time', 'timestamp', 'hostname', 'id', 'package']) expect(suite).toHaveProperty(attr);
      expect(suite['timestamp']).toBe('2026-01-02T03:04:05');
      for (const testcase of list(suite['testcase'])) {
        for (const attr of ['name', 'classname', 'time']) expect(testcase).toHaveProperty(attr);
        for (const child of ['failure', 'error']) for (const f of list(testcase[child])) expect(f).toHaveProperty('type');
      }
    }
    const [a, b] = suites as [Node, Node];
    expect(a).toMatchObject({ name: 'memory <limits> & more', tests: '4', failures: '1', errors: '1', skipped: '1', file: 'a.verdict.yaml' });
    const cases = list(a['testcase']);
    expect(cases.map((c) => c['name'])).toEqual(['passes', 'fails', 'is skipped', 'cannot read its input']);
    expect(cases[0]).not.toHaveProperty('failure');
    expect(cases[1]!['failure']).toMatchObject({ type: 'assertion', message: 'expected the decision to be allowed, but it was denied:' });
    expect((cases[1]!['failure'] as Node)['#text']).toContain('[memory-limit-enforcement] container app memory limit 20Gi must be at most 16Gi');
    expect(cases[2]).toHaveProperty('skipped');
    expect(cases[3]!['error']).toMatchObject({ type: 'error' });
    expect(b).toMatchObject({ tests: '1', failures: '0', errors: '1' });
    expect((list(b['testcase'])[0]!['error'] as Node)['message']).toMatch(/^b\.verdict\.yaml:1:1 at \/apiVersion|missing required key/);
  });

  it('escapes markup and drops characters XML cannot hold', () => {
    expect(escapeXml('a<b>&"c\'\u0001')).toBe('a&lt;b&gt;&amp;&quot;c&apos;');
  });
});
