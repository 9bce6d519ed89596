import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parsePolicyDocuments } from '@verdict/core';
import { detectPolicyAdapter, loadInstalledAdapters, loadPoliciesFor, PERMISSIONS_KIND } from '../src/policy/detect.js';
import * as spinnaker from '@verdict/spinnaker';
import { lintPolicies } from '../src/policy/lint.js';
import { FIXTURES } from './helpers.js';

const TEMPLATE = readFileSync(join(FIXTURES, 'memory-template.yaml'), 'utf8');

describe('policy adapters', () => {
  // The adapters are optional peers of the CLI, imported before a command runs (main does it).
  beforeAll(() => loadInstalledAdapters());

  it('knows the SpinnakerPermissions kind without importing @verdict/spinnaker', () => {
    expect(PERMISSIONS_KIND).toBe(spinnaker.PERMISSIONS_KIND);
  });

  it('tells the adapter from the documents\' vocabulary', () => {
    const gatekeeper = parsePolicyDocuments('apiVersion: constraints.gatekeeper.sh/v1beta1\nkind: X\nmetadata: {name: x}\nspec: {}\n');
    expect(detectPolicyAdapter(gatekeeper)).toBe('kubernetes');
    expect(detectPolicyAdapter(parsePolicyDocuments('kind: Policy\nmetadata: {name: x}\nspec: {match: {users: [alice]}}\n'))).toBe('ci');
    expect(detectPolicyAdapter(parsePolicyDocuments('kind: SpinnakerPermissions\nmetadata: {name: x}\nspec: {}\n'))).toBe('spinnaker');
    expect(detectPolicyAdapter(parsePolicyDocuments(TEMPLATE))).toBe('core');
  });

  it('compiles as the adapter does and lints Gatekeeper selectors through the core translation', () => {
    const docs = parsePolicyDocuments(`${TEMPLATE}---
apiVersion: constraints.gatekeeper.sh/v1beta1
kind: K8sMemoryLimits
metadata: {name: gk}
spec:
  match:
    kinds: [{apiGroups: [""], kinds: [Pod]}]
    namespaceSelector: {matchExpressions: [{key: team, operator: NotIn, values: [big]}]}
  parameters: {limit: 1Gi}
  parameterSelection:
    - match: {namespaceSelector: {matchLabels: {team: big}}}
      parameters: {limit: 32Gi}
    - match: {kinds: [{apiGroups: [""], kinds: [Pod]}]}
      parameters: {limit: 8Gi}
    - match: {kinds: [{apiGroups: [""], kinds: [Pod]}]}
      parameters: {limit: 4Gi}
`, { source: 'gk.yaml' });
    expect(loadPoliciesFor('kubernetes', docs).mutationTarget).toBe('/object');
    const findings = lintPolicies('kubernetes', docs);
    expect(findings.map((f) => [f.code, f.entry, f.path, f.line])).toEqual([
      ['UNREACHABLE_ENTRY', 0, '/spec/parameterSelection/0/match', 25],
      ['UNREACHABLE_ENTRY', 2, '/spec/parameterSelection/2/match', 29],
    ]);
    expect(lintPolicies('core', parsePolicyDocuments(TEMPLATE))).toEqual([]);
  });
});
