import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parseManifests, parseYamlExact } from '../src/commands/audit-parse.js';
import { AUDIT, run, type JsonReport } from './audit-helpers.js';

const UPSTREAM = join(AUDIT, 'upstream');
const LIMITS = { maxDocumentBytes: 32 * 1024 * 1024 };
const read = (path: string) => readFileSync(join(UPSTREAM, path), 'utf8');

type Report = JsonReport & { warnings: JsonReport['problems'] };
const audit = async (args: readonly string[]) => {
  const r = await run(['audit', ...args], { cwd: UPSTREAM });
  return { ...r, json: () => JSON.parse(r.stdout) as Report };
};

describe('reading manifests of real repositories', () => {
  it.each(['argo-cd/install-extract.yaml', 'kube-prometheus/alertmanager-prometheusRule.yaml', 'kubernetes-examples/minio-standalone-deployment.yaml'])(
    'reads %s with the same values and lines as the yaml package alone',
    (path) => {
      const text = read(path);
      const fast = parseManifests(path, text, LIMITS);
      const exact = parseYamlExact(path, text, LIMITS);
      expect(fast.manifests.length).toBeGreaterThan(0);
      expect(isDeepStrictEqual(fast, exact)).toBe(true);
    },
  );

  it('starts every object of argo-cd\'s install.yaml at its apiVersion line, after the --- and comments', () => {
    const text = read('argo-cd/install-extract.yaml');
    const lines = text.split('\n');
    const parsed = parseManifests('install.yaml', text, LIMITS);
    expect(parsed.manifests).toHaveLength(57);
    for (const m of parsed.manifests) expect(lines[m.line - 1]).toMatch(/^apiVersion: /);
  });

  it('reads a key given twice as kubectl does (the last value), with a warning naming the key and both lines', async () => {
    const r = await audit(['-p', '../policies', 'kubernetes-examples/sc-pvc.yaml', 'kubernetes-examples/openshift-controller.yaml', '-o', 'json']);
    const report = r.json();
    expect(report.problems).toEqual([]);
    expect(report.warnings).toEqual([
      { file: 'kubernetes-examples/sc-pvc.yaml', line: 12, column: 3, message: 'key "storageClassName" is given twice in one mapping (lines 6 and 12); the last value is read, as kubectl reads it' },
      { file: 'kubernetes-examples/openshift-controller.yaml', line: 12, column: 3, message: 'key "selector" is given twice in one mapping (lines 8 and 12); the last value is read, as kubectl reads it' },
    ]);
    const text = read('kubernetes-examples/sc-pvc.yaml').split('\n');
    expect(text[11]).toMatch(/^ {2}storageClassName: /);
    const pvc = parseManifests('sc-pvc.yaml', read('kubernetes-examples/sc-pvc.yaml'), LIMITS).manifests[0]!.value as { spec: { storageClassName: string } };
    expect(pvc.spec.storageClassName).toBe(text[11]!.split(': ')[1]);
    const table = await audit(['-p', '../policies', 'kubernetes-examples/sc-pvc.yaml', '-o', 'table']);
    expect(table.stdout).toContain('kubernetes-examples/sc-pvc.yaml:12:3\n  ! key "storageClassName" is given twice');
  });

  it('reports template files as problems with their first placeholder and a hint, and prints no library warning', async () => {
    const warnings: string[] = [];
    const listener = (w: Error) => warnings.push(w.message);
    process.on('warning', listener);
    try {
      const r = await audit(['-p', '../policies', 'kubernetes-examples/etcd-service-template.yaml', 'kubernetes-examples/vttablet-pod-template.yaml', 'kube-prometheus', '-o', 'json']);
      const report = r.json();
      expect(r.code).toBe(1);
      expect(report.problems).toEqual([
        { file: 'kubernetes-examples/etcd-service-template.yaml', line: 4, column: 14, message: expect.stringContaining('a template, not a manifest ({{…}} placeholders): render it first (helm template') as string },
        { file: 'kubernetes-examples/vttablet-pod-template.yaml', line: 4, column: 18, message: expect.stringContaining('render it first (helm template') as string },
      ]);
      // Alert texts with {{ $labels… }} are strings of a real object, not a template.
      expect(report.objects.map((o) => `${o.kind} ${o.name}`)).toEqual(['PrometheusRule alertmanager-main-rules']);
      expect(r.stderr).toBe('');
    } finally {
      process.off('warning', listener);
    }
    expect(warnings).toEqual([]);
  });
});

describe('the fast path reads scalars as the yaml package does (YAML 1.2 core schema)', () => {
  const SCALARS = [
    '1_000', '012', '0o12', '0x1F', '0b11', '+12', '-0', '1e3', '1.5e-3', '.5', '-.5', '5.', '.inf', '-.Inf', '.NaN', 'yes', 'no', 'on', 'off', 'y', 'n',
    'True', 'TRUE', 'tRue', 'false', '~', 'null', 'Null', 'NULL', 'nULL', '', '2020-01-01', '2001-12-14t21:59:43.10-05:00', '1:20', '0.1.2', '1,000', '0012.5',
    '-0x1', '+.inf', '=', '<<', "'it''s'", '"\\u00e9\\x41\\t"', '123456789012345678901234567890', '00', '0o', '0x', '+', '.', '1.', '1e', '0b2', '"12"', '&& true', 'a & b', 'x!', '!= 3',
  ];

  it.each(SCALARS)('v: %s', (scalar) => {
    const text = `v: ${scalar}\nw: [${scalar === '' ? '' : scalar}]\n`;
    expect(parseManifests('f', text, LIMITS)).toEqual(parseYamlExact('f', text, LIMITS));
  });
});

describe('the fast path keeps the yaml package\'s lines on unusual layouts', () => {
  it.each([
    ['CRLF line ends', 'apiVersion: v1\r\nkind: Pod\r\nmetadata: {name: a}\r\n---\r\n# note\r\napiVersion: v1\r\nkind: Pod\r\nmetadata: {name: b}\r\n'],
    ['a byte order mark', '\uFEFFapiVersion: v1\nkind: Pod\nmetadata: {name: a}\n'],
    ['content on the marker line and empty documents', '--- {apiVersion: v1, kind: Pod, metadata: {name: a}}\n---\n---\n# only a comment\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: b}\n'],
    ['a List with items indented and a dash alone', 'apiVersion: v1\nkind: List\nitems:\n  -\n    apiVersion: v1\n    kind: Pod\n  - apiVersion: v1\n    kind: Pod\n    spec:\n      containers:\n      - name: a\nmetadata: {}\n'],
    ['a top-level list with a block scalar', '- kind: A\n  note: |\n    - not an item\n    ---x\n- kind: B\n'],
  ])('%s', (_, text) => {
    expect(parseManifests('f', text, LIMITS)).toEqual(parseYamlExact('f', text, LIMITS));
  });
});
