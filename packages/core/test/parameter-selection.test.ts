import { describe, expect, it } from 'vitest';
import { load, loadProblems, MEMORY_CONSTRAINT, MEMORY_TEMPLATE, pod } from './helpers.js';

function setup(constraint = MEMORY_CONSTRAINT) {
  const policies = load(`${MEMORY_TEMPLATE}---${constraint}`);
  const evaluate = (project: string | undefined, memory: string) =>
    policies.evaluate({ object: pod([{ name: 'app', memory }]), namespaceLabels: project === undefined ? {} : { 'field.cattle.io/projectId': project } });
  return { policies, evaluate };
}

describe('seed 003: memory limits with a default and per-team overrides (MatchFirst)', () => {
  it('gives everyone 16Gi by default', () => {
    const { evaluate } = setup();
    expect(evaluate('web', '16Gi').allowed).toBe(true);
    const d = evaluate('web', '17Gi');
    expect(d.allowed).toBe(false);
    expect(d.violations).toEqual([{
      policy: 'memory-limit-enforcement', kind: 'K8sMemoryLimits', rule: 'container-memory-limit',
      message: 'container app memory limit must be at most 16Gi', enforcementAction: 'deny', path: '/object/spec/containers/0',
    }]);
    expect(d.trace[0]!.selection).toEqual({ behavior: 'MatchFirst', matched: [{ index: 2 }], outcome: 'selected' });
  });

  it('gives the 32g team 32Gi and the 64g team 64Gi', () => {
    const { evaluate } = setup();
    expect(evaluate('32g-team', '32Gi').allowed).toBe(true);
    expect(evaluate('32g-team', '33Gi').allowed).toBe(false);
    expect(evaluate('64g-team', '64Gi').allowed).toBe(true);
    expect(evaluate('64g-team', '65Gi').violations[0]!.message).toBe('container app memory limit must be at most 64Gi');
    expect(evaluate('64g-team', '1Gi').trace[0]).toMatchObject({ parameters: { limit: '64Gi' }, selection: { matched: [{ index: 1 }] } });
  });

  it('leaves system namespaces alone and says which selector excluded them', () => {
    const d = setup().evaluate('system', '500Gi');
    expect(d.allowed).toBe(true);
    expect(d.trace).toEqual([{
      policy: 'memory-limit-enforcement', kind: 'K8sMemoryLimits', enforcementAction: 'deny', matched: false,
      mismatch: { at: '/spec/match/labels', selector: 'namespaceLabels: field.cattle.io/projectId!=system' }, rules: [],
    }]);
  });

  it('stops at the first matching entry', () => {
    const { evaluate } = setup(`
kind: K8sMemoryLimits
metadata: {name: m}
spec:
  parameters: {limit: 16Gi}
  parameterSelection:
    - match: {labels: {path: namespaceLabels, selector: "field.cattle.io/projectId"}}
      parameters: {limit: 1Gi}
    - match: {labels: {path: namespaceLabels, selector: "field.cattle.io/projectId=a"}}
      parameters: {limit: 2Gi}
`);
    expect(evaluate('a', '1Gi').trace[0]!.selection!.matched).toEqual([{ index: 0 }]);
    expect(evaluate('a', '2Gi').allowed).toBe(false);
  });

  it('names entries in the trace when they have a name', () => {
    const { evaluate } = setup(MEMORY_CONSTRAINT.replace('- match: {labels: {path: namespaceLabels, matchLabels: {field.cattle.io/projectId: 32g-team}}}', '- name: big\n      match: {labels: {path: namespaceLabels, matchLabels: {field.cattle.io/projectId: 32g-team}}}'));
    expect(evaluate('32g-team', '1Gi').trace[0]!.selection!.matched).toEqual([{ index: 0, name: 'big' }]);
  });
});

const REGISTRIES = `
apiVersion: verdict.dev/v1
kind: PolicyTemplate
metadata: {name: registries}
spec:
  kind: K8sAllowedRegistries
  parametersSchema: {type: object, properties: {allowed-registries: {type: array, items: {type: string}}}}
  validate:
    - name: registry
      forEach: {var: object.spec.containers}
      rule: {in: [{get: [{image: {var: element.image}}, registry]}, {var: parameters.allowed-registries}]}
      message: "{{element.image}} is not from {{parameters.allowed-registries}}"
---
kind: K8sAllowedRegistries
metadata: {name: allowed-registries}
spec:
  parameterSelection:
  - match: {labels: {path: namespaceLabels, matchLabels: {field.cattle.io/projectId: special-team1}}}
    parameters:
      allowed-registries: [gcr.io, hub.docker.io]
  - match: {labels: {path: namespaceLabels, matchLabels: {field.cattle.io/projectId: special-team2}}}
    parameters:
      allowed-registries: [hub.docker.io]
  parameters:
    allowed-registries: [internal.artifactory.example.com]
`;

describe('seed 003: allowed registries merged over the default', () => {
  function setupRegistries(extra = '') {
    const policies = load(REGISTRIES + extra);
    return (project: string, image = 'internal.artifactory.example.com/x:1') =>
      policies.evaluate({ object: pod([{ name: 'c', image }]), namespaceLabels: { 'field.cattle.io/projectId': project } });
  }

  it('gives exactly the lists the seed shows', () => {
    const evaluate = setupRegistries();
    expect(evaluate('special-team1').trace[0]!.parameters).toEqual({ 'allowed-registries': ['internal.artifactory.example.com', 'gcr.io', 'hub.docker.io'] });
    expect(evaluate('special-team2').trace[0]!.parameters).toEqual({ 'allowed-registries': ['internal.artifactory.example.com', 'hub.docker.io'] });
    expect(evaluate('anyone').trace[0]!.parameters).toEqual({ 'allowed-registries': ['internal.artifactory.example.com'] });
    expect(evaluate('anyone').trace[0]!.selection!.outcome).toBe('no-match-proceed');
  });

  it('enforces the merged list', () => {
    const evaluate = setupRegistries();
    expect(evaluate('special-team1', 'gcr.io/app:1').allowed).toBe(true);
    expect(evaluate('special-team2', 'gcr.io/app:1').violations[0]!.message).toBe('gcr.io/app:1 is not from internal.artifactory.example.com, hub.docker.io');
  });

  it('replaces the list instead when spec.merge says so', () => {
    const evaluate = setupRegistriesWith('  merge: {/allowed-registries: replace}\n');
    expect(evaluate('special-team2').trace[0]!.parameters).toEqual({ 'allowed-registries': ['hub.docker.io'] });
  });

  function setupRegistriesWith(merge: string) {
    const policies = load(REGISTRIES.replace('spec:\n  parameterSelection:', `spec:\n${merge}  parameterSelection:`));
    return (project: string) => policies.evaluate({ object: pod([{ name: 'c' }]), namespaceLabels: { 'field.cattle.io/projectId': project } });
  }
});

describe('MatchAny', () => {
  const constraint = (behaviour: string) => `
kind: K8sAllowedRegistries
metadata: {name: any}
spec:
  parameterSelectionBehavior: ${behaviour}
  parameters: {allowed-registries: [base.io]}
  parameterSelection:
    - match: {labels: {path: namespaceLabels, selector: "team=a"}}
      parameters: {allowed-registries: [a.io]}
    - match: {labels: {path: namespaceLabels, selector: "tier=gold"}}
      parameters: {allowed-registries: [gold.io]}
    - match: {labels: {path: namespaceLabels, selector: "team=b"}}
      parameters: {allowed-registries: [b.io]}
`;
  function setup2(behaviour = 'MatchAny') {
    const policies = load(REGISTRIES.split('---\nkind: K8sAllowedRegistries')[0] + '---' + constraint(behaviour));
    return (labels: Record<string, string>) => policies.evaluate({ object: pod([{ name: 'c', image: 'gold.io/x' }]), namespaceLabels: labels });
  }

  it('merges every matching entry over spec.parameters in list order', () => {
    const d = setup2()({ team: 'a', tier: 'gold' });
    expect(d.trace[0]!.selection!.matched).toEqual([{ index: 0 }, { index: 1 }]);
    expect(d.trace[0]!.parameters).toEqual({ 'allowed-registries': ['base.io', 'a.io', 'gold.io'] });
    expect(d.allowed).toBe(true);
  });

  it('uses one entry alone when only one matches, and MatchFirst takes only the first', () => {
    expect(setup2()({ team: 'b' }).trace[0]!.parameters).toEqual({ 'allowed-registries': ['base.io', 'b.io'] });
    expect(setup2('MatchFirst')({ team: 'a', tier: 'gold' }).trace[0]!.parameters).toEqual({ 'allowed-registries': ['base.io', 'a.io'] });
  });

  it('gives the same parameters for the same combination every time (cached)', () => {
    const evaluate = setup2();
    expect(evaluate({ team: 'a', tier: 'gold' }).trace[0]!.parameters).toBe(evaluate({ team: 'a', tier: 'gold' }).trace[0]!.parameters);
  });
});

describe('onParameterSelectionNoMatch', () => {
  const withAction = (action: string, enforcement = 'deny') => `
kind: K8sMemoryLimits
metadata: {name: nm}
spec:
  enforcementAction: ${enforcement}
  onParameterSelectionNoMatch: ${action}
  parameters: {limit: 1Gi}
  parameterSelection:
    - match: {labels: {path: namespaceLabels, selector: "field.cattle.io/projectId=big"}}
      parameters: {limit: 100Gi}
`;

  it('proceed (the default) evaluates with spec.parameters', () => {
    const d = setup(withAction('proceed')).evaluate('small', '2Gi');
    expect(d.allowed).toBe(false);
    expect(d.trace[0]).toMatchObject({ parameters: { limit: '1Gi' }, selection: { outcome: 'no-match-proceed', matched: [] } });
  });

  it('allow skips the policy', () => {
    const d = setup(withAction('allow')).evaluate('small', '2Gi');
    expect(d).toMatchObject({ allowed: true, violations: [], warnings: [] });
    expect(d.trace[0]).toMatchObject({ matched: true, selection: { outcome: 'no-match-allow' }, rules: [] });
    expect(d.trace[0]!.parameters).toBeUndefined();
  });

  it('warn skips the policy with a warning that names it', () => {
    const d = setup(withAction('warn')).evaluate('small', '2Gi');
    expect(d.allowed).toBe(true);
    expect(d.warnings).toEqual(['[nm] no parameterSelection entry matched; the policy was not evaluated']);
  });

  it('deny denies with a message naming the policy', () => {
    const d = setup(withAction('deny')).evaluate('small', '1Mi');
    expect(d.allowed).toBe(false);
    expect(d.violations).toEqual([{
      policy: 'nm', kind: 'K8sMemoryLimits', rule: 'parameterSelection', enforcementAction: 'deny',
      message: 'no parameterSelection entry of K8sMemoryLimits "nm" matched and onParameterSelectionNoMatch is deny',
    }]);
  });

  it('deny follows the constraint enforcementAction: a warn constraint only warns', () => {
    const d = setup(withAction('deny', 'warn')).evaluate('small', '1Mi');
    expect(d.allowed).toBe(true);
    expect(d.warnings).toEqual(['[nm] no parameterSelection entry of K8sMemoryLimits "nm" matched and onParameterSelectionNoMatch is deny']);
  });

  it('only applies when entries exist and none matched', () => {
    const d = setup(withAction('deny')).evaluate('big', '50Gi');
    expect(d.allowed).toBe(true);
    expect(d.trace[0]!.selection!.outcome).toBe('selected');
  });
});

describe('enforcementAction', () => {
  const constraint = (action: string) => `
kind: K8sMemoryLimits
metadata: {name: e}
spec:
  enforcementAction: ${action}
  parameters: {limit: 1Gi}
`;

  it('warn allows and reports the violation as a warning', () => {
    const d = setup(constraint('warn')).evaluate(undefined, '2Gi');
    expect(d.allowed).toBe(true);
    expect(d.warnings).toEqual(['[e] container app memory limit must be at most 1Gi']);
    expect(d.violations[0]!.enforcementAction).toBe('warn');
  });

  it('audit allows silently but records the violation', () => {
    const d = setup(constraint('audit')).evaluate(undefined, '2Gi');
    expect(d).toMatchObject({ allowed: true, warnings: [] });
    expect(d.violations[0]!.enforcementAction).toBe('audit');
  });

  it("loads Gatekeeper's dryrun as audit", () => {
    const { policies, evaluate } = setup(constraint('dryrun'));
    expect(policies.policies[0]!.enforcementAction).toBe('audit');
    expect(evaluate(undefined, '2Gi')).toMatchObject({ allowed: true, violations: [{ enforcementAction: 'audit' }] });
  });
});

describe('load-time validation of every override', () => {
  it('rejects a broken override, naming the entry and pointing into it', () => {
    const problems = loadProblems(`${MEMORY_TEMPLATE}---
kind: K8sMemoryLimits
metadata: {name: m}
spec:
  parameters: {limit: 16Gi}
  parameterSelection:
    - name: big
      match: {labels: "team=a"}
      parameters: {limit: 32}
`);
    expect(problems).toEqual([expect.objectContaining({
      code: 'INVALID_PARAMETERS', path: '/spec/parameterSelection/0/parameters/limit',
      message: 'parameterSelection entry 0 ("big"): merged parameters at /limit must be a string (got number 32)',
    })]);
  });

  it('reports a required parameter that neither the default nor the entry gives', () => {
    const problems = loadProblems(`${MEMORY_TEMPLATE}---
kind: K8sMemoryLimits
metadata: {name: m}
spec:
  parameterSelection:
    - match: {labels: "team=a"}
      parameters: {}
`);
    expect(problems.map((p) => [p.path, p.message])).toEqual([
      ['/spec/parameters', 'spec.parameters (used when no parameterSelection entry matches): parameters missing required field "limit"'],
      ['/spec/parameterSelection/0/parameters', 'parameterSelection entry 0: merged parameters missing required field "limit"'],
    ]);
  });

  it('does not require spec.parameters to be valid alone when a catch-all entry always matches (seed 003)', () => {
    expect(() => setup()).not.toThrow();
  });

  it('applies parametersSchema defaults, as Gatekeeper does', () => {
    const policies = load(MEMORY_TEMPLATE.replace('properties: {limit: {type: string}}, required: [limit]', 'properties: {limit: {type: string, default: 3Gi}}') + `---
kind: K8sMemoryLimits
metadata: {name: d}
`);
    expect(policies.evaluate({ object: pod([{ name: 'a', memory: '1Gi' }]) }).trace[0]!.parameters).toEqual({ limit: '3Gi' });
  });

  it('rejects an invalid parametersSchema', () => {
    const [p] = loadProblems(MEMORY_TEMPLATE.replace('properties: {limit: {type: string}}', 'properties: {limit: {type: strng}}'));
    expect(p).toMatchObject({ code: 'INVALID_PARAMETERS', path: '/spec/parametersSchema' });
  });
});
