import { describe, expect, it } from 'vitest';
import { load, MEMORY_TEMPLATE } from './helpers.js';

function lint(constraint: string) {
  return load(`${MEMORY_TEMPLATE}---${constraint}`).lint();
}

const ns = (selector: string) => `{labels: {path: namespaceLabels, selector: "${selector}"}}`;

describe('PolicySet.lint', () => {
  it("finds seed 003's overrides that its own match excludes", () => {
    const findings = lint(`
kind: K8sMemoryLimits
metadata: {name: memory-limit-enforcement}
spec:
  match:
    labels: {path: namespaceLabels, matchExpressions: [{key: field.cattle.io/projectId, operator: NotIn, values: [system, 32g-team, 64g-team]}]}
  parameterSelection:
  - match: {labels: {path: namespaceLabels, matchLabels: {field.cattle.io/projectId: 32g-team}}}
    parameters: {limit: 32Gi}
  - match: {labels: {path: namespaceLabels, matchLabels: {field.cattle.io/projectId: 64g-team}}}
    parameters: {limit: 64Gi}
  - parameters: {limit: 16Gi}
`);
    expect(findings).toEqual([
      expect.objectContaining({
        code: 'UNREACHABLE_ENTRY', kind: 'K8sMemoryLimits', policy: 'memory-limit-enforcement', entry: 0, path: '/spec/parameterSelection/0/match', document: 1,
        message: 'parameterSelection entry 0 can never be chosen: it requires namespaceLabels: field.cattle.io/projectId=32g-team, but spec.match excludes that (namespaceLabels: field.cattle.io/projectId notin (32g-team,64g-team,system))',
      }),
      expect.objectContaining({ entry: 1, code: 'UNREACHABLE_ENTRY' }),
    ]);
    expect(findings[0]).toMatchObject({ source: 'test.yaml', line: expect.any(Number) });
  });

  it('finds entries after a catch-all under MatchFirst, but not under MatchAny', () => {
    const constraint = (behaviour: string) => `
kind: K8sMemoryLimits
metadata: {name: m}
spec:
  parameterSelectionBehavior: ${behaviour}
  parameterSelection:
  - parameters: {limit: 16Gi}
  - match: ${ns('team=a')}
    parameters: {limit: 32Gi}
`;
    expect(lint(constraint('MatchFirst')).map((f) => f.message)).toEqual([
      'parameterSelection entry 1 can never be chosen: entry 0 has no match (it matches everything) and MatchFirst stops there; move the catch-all last',
    ]);
    expect(lint(constraint('MatchAny'))).toEqual([]);
  });

  it('finds a repeated selector and a selector that contradicts itself', () => {
    const findings = lint(`
kind: K8sMemoryLimits
metadata: {name: m}
spec:
  parameters: {limit: 1Gi}
  parameterSelection:
  - match: ${ns('team=a')}
    parameters: {limit: 2Gi}
  - match: ${ns('team=a')}
    parameters: {limit: 3Gi}
  - match: ${ns('team=a,!team')}
    parameters: {limit: 4Gi}
`);
    expect(findings.map((f) => [f.entry, f.message])).toEqual([
      [1, 'parameterSelection entry 1 can never be chosen: entry 0 has the same selector (namespaceLabels: team=a) and MatchFirst stops there'],
      [2, 'parameterSelection entry 2 can never be chosen: its own selector can never match (namespaceLabels: team=a and namespaceLabels: !team)'],
    ]);
  });

  it('finds a match that can never hold', () => {
    const findings = lint(`
kind: K8sMemoryLimits
metadata: {name: m}
spec:
  parameters: {limit: 1Gi}
  match: {all: [${ns('env=prod')}, ${ns('env in (dev,test)')}]}
`);
    expect(findings).toEqual([expect.objectContaining({ code: 'UNSATISFIABLE_MATCH', path: '/spec/match' })]);
  });

  it('stays quiet about entries that can be chosen', () => {
    expect(lint(`
kind: K8sMemoryLimits
metadata: {name: m}
spec:
  match: ${ns('team notin (system)')}
  parameterSelection:
  - match: ${ns('team=a')}
    parameters: {limit: 32Gi}
  - match: {labels: {path: labels, selector: "team=system"}}
    parameters: {limit: 64Gi}
  - match: {any: [${ns('team=system')}, ${ns('tier=gold')}]}
    parameters: {limit: 64Gi}
  - parameters: {limit: 16Gi}
`)).toEqual([]);
  });
});
