/**
 * A patch path with an unescaped "/" in a label or
 * annotation key (`/metadata/labels/verdict.dev/checked`) loads, and creates
 * a nested object the API server rejects. `PolicySet.lint()` points at it and
 * at the `~1` form.
 */
import { describe, expect, it } from 'vitest';
import { load } from './helpers.js';

function policy(patch: unknown[]) {
  return JSON.stringify({ apiVersion: 'verdict.dev/v1', kind: 'Policy', metadata: { name: 'mark' }, spec: { mutate: [{ name: 'm', patch }] } });
}

describe('lint of patch paths under labels and annotations', () => {
  it('finds a label key with an unescaped slash and shows the ~1 form, with the line', () => {
    const yaml = [
      'apiVersion: verdict.dev/v1',
      'kind: Policy',
      'metadata: {name: mark}',
      'spec:',
      '  mutate:',
      '    - name: checked',
      '      patch:',
      '        - {op: add, path: /metadata/labels/verdict.dev/checked, value: "true"}',
    ].join('\n');
    const findings = load(yaml).lint();
    expect(findings).toEqual([{
      code: 'NESTED_METADATA_KEY', kind: 'Policy', policy: 'mark', path: '/spec/mutate/0/patch/0/path', document: 0, source: 'test.yaml', line: 8, column: 27,
      message: 'patch path /metadata/labels/verdict.dev/checked nests below the label key "verdict.dev": a key holding "/" is written with "~1" (/metadata/labels/verdict.dev~1checked); as written, the patch creates a nested object under labels, which the Kubernetes API server rejects',
    }]);
  });

  it('checks annotations, templated paths and the from of move and copy', () => {
    const findings = load(policy([
      { op: 'add', path: '/metadata/annotations/example.com/owner', value: 'me' },
      { op: 'copy', from: '/metadata/labels/app.kubernetes.io/name', path: '/metadata/labels/app' },
      { op: 'add', path: '/object/metadata/labels/{{parameters.prefix}}/x', value: 'y' },
    ])).lint();
    expect(findings.map((f) => [f.path, f.message.split(':')[0]])).toEqual([
      ['/spec/mutate/0/patch/0/path', 'patch path /metadata/annotations/example.com/owner nests below the annotation key "example.com"'],
      ['/spec/mutate/0/patch/1/from', 'patch path /metadata/labels/app.kubernetes.io/name nests below the label key "app.kubernetes.io"'],
      ['/spec/mutate/0/patch/2/path', 'patch path /object/metadata/labels/{{parameters.prefix}}/x nests below the label key "{{parameters.prefix}}"'],
    ]);
  });

  it('accepts the escaped form, whole maps and other nested paths', () => {
    const findings = load(policy([
      { op: 'add', path: '/metadata/labels/verdict.dev~1checked', value: 'true' },
      { op: 'add', path: '/metadata/labels', value: { a: 'b' } },
      { op: 'add', path: '/metadata/labels/team', value: 'a' },
      { op: 'add', path: '/spec/template/metadata/labels/team', value: 'a' },
      { op: 'add', path: '/spec/selector/matchLabels/a', value: 'b' },
    ])).lint();
    expect(findings).toEqual([]);
  });

  it('reports a template once, however many constraints use it', () => {
    const yaml = `
apiVersion: verdict.dev/v1
kind: PolicyTemplate
metadata: {name: marker}
spec:
  kind: Marker
  mutate: [{name: m, patch: [{op: add, path: /metadata/labels/a/b, value: c}]}]
---
kind: Marker
metadata: {name: one}
spec: {}
---
kind: Marker
metadata: {name: two}
spec: {}
`;
    expect(load(yaml).lint().map((f) => [f.code, f.kind, f.policy, f.document, f.line])).toEqual([['NESTED_METADATA_KEY', 'PolicyTemplate', 'marker', 0, 7]]);
  });
});
