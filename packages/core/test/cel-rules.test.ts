import { describe, expect, it } from 'vitest';
import { compileCel, compilePolicies, parsePolicyDocuments, PolicyLoadError, type Decision } from '../src/index.js';

const pod = (containers: Array<{ name: string; memory?: string }>, labels: Record<string, string> = {}) => ({
  namespace: 'team-a',
  object: {
    metadata: { name: 'web', labels },
    spec: { replicas: 3, containers: containers.map((c) => ({ name: c.name, resources: c.memory ? { limits: { memory: c.memory } } : {} })) },
  },
});

function setup(yaml: string) {
  const set = compilePolicies(parsePolicyDocuments(yaml, { source: 'cel.yaml' }));
  return { set, evaluate: (input: unknown): Decision => set.evaluate(input) };
}

function loadProblems(yaml: string) {
  try {
    compilePolicies(parsePolicyDocuments(yaml, { source: 'cel.yaml' }));
  } catch (error) {
    if (error instanceof PolicyLoadError) return error.problems;
    throw error;
  }
  throw new Error('expected a load error');
}

const POLICY = `
apiVersion: verdict.dev/v1
kind: Policy
metadata: {name: replicas}
spec:
  parameters: {max: 5}
  variables:
    - {name: replicas, expression: "object.spec.replicas"}
  validate:
    - name: at-most
      expression: "variables.replicas <= params.max"
      messageExpression: "'replicas ' + string(variables.replicas) + ' exceed ' + string(parameters.max)"
      reason: Invalid
`;

describe('CEL validations in verdict documents', () => {
  it('passes an input whose expression is true and treats integral JSON numbers as CEL ints', () => {
    const { evaluate } = setup(POLICY);
    const d = evaluate({ object: { spec: { replicas: 3 } } });
    expect(d.allowed).toBe(true);
    expect(d.trace[0]!.variables).toEqual({ replicas: 3 });
  });

  it('denies with the messageExpression, the validation index and the reason', () => {
    const { evaluate } = setup(POLICY);
    const d = evaluate({ object: { spec: { replicas: 7 } } });
    expect(d.allowed).toBe(false);
    expect(d.violations).toEqual([expect.objectContaining({ rule: 'at-most', message: 'replicas 7 exceed 5', validation: 0, reason: 'Invalid' })]);
  });

  it('falls back to "failed expression" when there is neither message nor a usable messageExpression', () => {
    const { evaluate } = setup(POLICY.replace("messageExpression: \"'replicas ' + string(variables.replicas) + ' exceed ' + string(parameters.max)\"", 'messageExpression: "\'\'"'));
    const d = evaluate({ object: { spec: { replicas: 7 } } });
    expect(d.violations[0]!.message).toBe('failed expression: variables.replicas <= params.max');
  });

  it('reports a run-time error as a decision error that denies (failurePolicy Fail)', () => {
    const { evaluate } = setup(POLICY);
    const d = evaluate({ object: { spec: {} } });
    expect(d.allowed).toBe(false);
    expect(d.errors[0]).toMatchObject({ code: 'RULE_ERROR', rule: 'at-most' });
    expect(d.errors[0]!.message).toMatch(/replicas/);
  });

  it('reports but does not deny a run-time error of a failurePolicy Ignore policy', () => {
    const { evaluate } = setup(`${POLICY}  failurePolicy: Ignore\n`);
    const d = evaluate({ object: { spec: {} } });
    expect(d.allowed).toBe(true);
    expect(d.errors[0]).toMatchObject({ code: 'RULE_ERROR', ignored: true });
  });

  it('accepts {cel} wherever json-logic is accepted: forEach, selector when, mutate when', () => {
    const { evaluate } = setup(`
apiVersion: verdict.dev/v1
kind: Policy
metadata: {name: memory}
spec:
  match: {when: {cel: "input.namespace.startsWith('team-')"}}
  parameters: {limit: 1Gi}
  validate:
    - name: limit
      forEach: {cel: "object.spec.containers"}
      expression: "has(element.resources.limits) && quantity(element.resources.limits.memory).compareTo(quantity(params.limit)) <= 0"
      message: "container {{element.name}} has no memory limit of at most {{parameters.limit}}"
  mutate:
    - name: label
      when: {cel: "!has(object.metadata.labels.team)"}
      patch: [{op: add, path: /object/metadata/labels/team, value: a}]
`);
    const d = evaluate(pod([{ name: 'a', memory: '512Mi' }, { name: 'b', memory: '2Gi' }, { name: 'c' }]));
    expect(d.violations.map((v) => v.message)).toEqual(['container b has no memory limit of at most 1Gi', 'container c has no memory limit of at most 1Gi']);
    expect(d.violations.map((v) => v.path)).toEqual([undefined, undefined]);
    expect(d.patch).toEqual([{ op: 'add', path: '/object/metadata/labels/team', value: 'a' }]);
    expect(evaluate({ ...pod([]), namespace: 'kube-system' }).trace[0]!.matched).toBe(false);
  });

  it('skips a policy whose matchCondition is false and records where', () => {
    const { evaluate } = setup(`${POLICY}  matchConditions:\n    - {name: not-system, expression: "object.?metadata.?namespace.orValue('') != 'kube-system'"}\n`);
    const d = evaluate({ object: { metadata: { namespace: 'kube-system' }, spec: { replicas: 9 } } });
    expect(d.allowed).toBe(true);
    expect(d.trace[0]!.mismatch).toEqual({ at: '/spec/matchConditions/0', selector: `matchCondition "not-system": object.?metadata.?namespace.orValue('') != 'kube-system'` });
  });

  it('publishes audit annotations and leaves out null values', () => {
    const { evaluate } = setup(`${POLICY}  auditAnnotations:\n    - {key: replicas, valueExpression: "string(object.spec.replicas)"}\n    - {key: none, valueExpression: "null"}\n`);
    expect(evaluate({ object: { spec: { replicas: 2 } } }).annotations).toEqual([{ policy: 'replicas', kind: 'Policy', key: 'replicas', value: '2' }]);
  });
});

describe('numbers from JSON', () => {
  const input = { object: { spec: { replicas: 2, ratio: 0.5, containers: [{ name: 'a', ports: [{ containerPort: 8080 }] }] } } };
  it.each([
    ['through a path', 'object.spec.replicas + 1 == 3'],
    ['through comprehension variables', 'object.spec.containers.all(c, c.ports.all(p, p.containerPort + 1 == 8081))'],
    ['through a value used whole', 'object.spec.containers.map(c, c.ports)[0][0].containerPort + 1 == 8081'],
    ['through the whole root', 'object.spec.containers[0].ports[0].containerPort == 8080 && type(object.spec.replicas) == int'],
    ['fractions stay doubles', 'object.spec.ratio + 0.5 == 1.0 && type(object.spec.ratio) == double'],
  ])('are CEL ints when integral, %s', (_how, expression) => {
    expect(compileCel(expression).evaluate(input)).toBe(true);
  });
});

describe('CEL load problems', () => {
  it('reports a syntax error at the field, with the column inside the expression and a caret', () => {
    const problems = loadProblems(POLICY.replace('"variables.replicas <= params.max"', '"variables.replicas <= = params.max"'));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ code: 'INVALID_RULE', path: '/spec/validate/0/expression', line: 11 });
    expect(problems[0]!.message).toMatch(/invalid CEL expression: .*\(at column 23 of the expression\):\n {2}variables\.replicas <= = params\.max\n {24}\^/s);
  });

  it('refuses a validation expression that cannot give a bool', () => {
    const problems = loadProblems(POLICY.replace('"variables.replicas <= params.max"', '"\'text\'"'));
    expect(problems[0]!.message).toMatch(/must evaluate to a bool, but it gives string/);
  });

  it('refuses the authorizer with a message that says why', () => {
    const problems = loadProblems(POLICY.replace('"variables.replicas <= params.max"', '"authorizer.group(\'apps\').resource(\'deployments\').check(\'get\').allowed()"'));
    expect(problems[0]!.message).toMatch(/"authorizer" is not available/);
  });
});

describe('parameters chosen at evaluation time (parameterSets)', () => {
  const TEMPLATE = `
apiVersion: verdict.dev/v1
kind: Policy
metadata: {name: replica-limit}
spec:
  onParameterSelectionNoMatch: deny
  validate:
    - name: max
      expression: "object.spec.replicas <= params.maxReplicas"
      messageExpression: "'at most ' + string(params.maxReplicas) + ' replicas'"
`;
  function setup(found: Array<Record<string, unknown>>) {
    const set = compilePolicies(parsePolicyDocuments(TEMPLATE), { parameterSets: ({ name }) => (name === 'replica-limit' ? () => found : undefined) });
    return { evaluate: (replicas: number) => set.evaluate({ object: { spec: { replicas } } }) };
  }

  it('evaluates the policy once per parameter object and every one must pass', () => {
    const { evaluate } = setup([{ maxReplicas: 5 }, { maxReplicas: 3 }]);
    const d = evaluate(4);
    expect(d.allowed).toBe(false);
    expect(d.violations).toEqual([expect.objectContaining({ message: 'at most 3 replicas', parameterSet: 1, validation: 0 })]);
    expect(d.trace.map((t) => [t.parameterSet, t.parameters])).toEqual([[0, { maxReplicas: 5 }], [1, { maxReplicas: 3 }]]);
    expect(evaluate(2).allowed).toBe(true);
  });

  it('follows onParameterSelectionNoMatch when no parameters are found', () => {
    const d = setup([]).evaluate(1);
    expect(d.allowed).toBe(false);
    expect(d.violations[0]!.message).toBe('no parameters were found for Policy "replica-limit" and onParameterSelectionNoMatch is deny');
  });
});

describe('adapter profiles', () => {
  const VAP_LIKE = `
apiVersion: verdict.dev/v1
kind: Policy
metadata: {name: replicas}
spec:
  validate:
    - name: max
      expression: "object.spec.replicas <= params.max"
      message: "  replicas above {{params.max}}  "
    - name: trimmed
      expression: "false"
      messageExpression: "'  padded  '"
`;
  function setup() {
    const set = compilePolicies(parsePolicyDocuments(VAP_LIKE), {
      cel: {
        profile: () => ({
          names: ['object', 'params'],
          literalMessages: true,
          activation: (input) => ({ object: input['object'], params: { max: 2 } }),
        }),
        refuse: { http: 'http is not available: it needs the network' },
      },
    });
    return { evaluate: (replicas: number) => set.evaluate({ object: { spec: { replicas } } }) };
  }

  it('gives CEL the profile names and keeps messages literal and trimmed', () => {
    const d = setup().evaluate(3);
    expect(d.violations.map((v) => v.message)).toEqual(['replicas above {{params.max}}', 'padded']);
    expect(setup().evaluate(1).violations.map((v) => v.rule)).toEqual(['trimmed']);
  });

  it('refuses names outside the profile with a did-you-mean, and refused names with the adapter reason', () => {
    const load = (expression: string) => () => compilePolicies(parsePolicyDocuments(VAP_LIKE.replace('"object.spec.replicas <= params.max"', JSON.stringify(expression))), {
      cel: { profile: () => ({ names: ['object', 'params'], activation: () => ({}) }), refuse: { http: 'http is not available: it needs the network' } },
    });
    expect(load('objct.spec.replicas > 0')).toThrow(/undeclared reference to "objct" \(did you mean "object"\?\)/);
    expect(load('http.get("x") == ""')).toThrow(/http is not available: it needs the network/);
  });
});

describe('a profile root built in part (partialRoots)', () => {
  const policy = (expressions: string[]) => `
apiVersion: verdict.dev/v1
kind: Policy
metadata: {name: part}
spec:
  validate:
${expressions.map((e, i) => `    - {name: v${i}, expression: ${JSON.stringify(e)}}`).join('\n')}
`;
  function setup(expressions: string[]) {
    const built: string[][] = [];
    const whole = { operation: 'CREATE', name: 'web', userInfo: { username: 'alice' } };
    const set = compilePolicies(parsePolicyDocuments(policy(expressions)), {
      cel: {
        profile: () => ({
          names: ['request'],
          activation: () => ({ request: whole }),
          partialRoots: {
            request: (_activation, fields) => {
              built.push([...fields]);
              return Object.fromEntries(fields.filter((f) => Object.hasOwn(whole, f)).map((f) => [f, whole[f as keyof typeof whole]]));
            },
          },
        }),
      },
    });
    return { built, failed: () => set.evaluate({}).violations.map((v) => v.rule) };
  }

  it('builds only the fields an expression reads through constant names', () => {
    const { built, failed } = setup(["request.operation == 'CREATE' && !has(request.namespace)", "request.userInfo.username == 'alice'"]);
    expect(failed()).toEqual([]);
    expect(built).toEqual([['operation', 'namespace'], ['userInfo']]);
  });

  it('gives the whole root to an expression that iterates it, sizes it or reads a computed key', () => {
    const { built, failed } = setup(['request.size() == 3', "request.exists(k, k == 'name')", "request['na' + 'me'] == 'web'", 'request != null']);
    expect(failed()).toEqual([]);
    expect(built).toEqual([]);
  });
});

describe('a variable that passes a root through (Gatekeeper\'s anyObject)', () => {
  const policy = (validations: string[], variable = 'has(object.kind) ? object : object') => `
apiVersion: verdict.dev/v1
kind: Policy
metadata: {name: pass}
spec:
  variables:
    - {name: any, expression: "input.operation == 'DELETE' && object == null ? oldObject : object"}
    - {name: other, expression: "${variable}"}
  validate:
${validations.map((v, i) => `    - {name: v${i}, expression: "${v}"}`).join('\n')}
`;
  const input = { operation: 'CREATE', object: { kind: 'Pod', spec: { replicas: 2, ratio: 0.5, containers: [{ ports: [{ containerPort: 8080 }] }] } }, oldObject: null };

  it('sees integral numbers as CEL ints along every path the validations read below it', () => {
    const { evaluate } = setup(policy([
      'variables.any.spec.replicas + 1 == 3',
      'variables.any.spec.containers.all(c, c.ports.all(p, type(p.containerPort) == int))',
      'type(variables.any.spec.ratio) == double',
    ]));
    const d = evaluate(input);
    expect(d.trace[0]!.rules.map((r) => r.result)).toEqual(['pass', 'pass', 'pass']);
    expect(d.allowed).toBe(true);
  });

  it('converts it whole when an expression uses it whole', () => {
    const { evaluate } = setup(policy(['variables.any.spec.containers.map(c, c.ports)[0][0].containerPort + 1 == 8081', "variables.any == variables.any && type(variables.any.spec.replicas) == int"]));
    expect(evaluate(input).allowed).toBe(true);
  });

  it('is the old object on DELETE, and shows the object as given in the trace', () => {
    const { evaluate } = setup(policy(['variables.any.spec.replicas == 4']));
    const old = { kind: 'Pod', spec: { replicas: 4 } };
    const d = evaluate({ operation: 'DELETE', object: null, oldObject: old });
    expect(d.allowed).toBe(true);
    expect(d.trace[0]!.variables).toEqual({ any: old });
    expect(d.trace[0]!.variables?.['any']).toBe(old);
  });

  it('keeps a value the expression computed as CEL made it (a double stays a double)', () => {
    const { evaluate } = setup(policy(['type(variables.other.a) == double'], "object == null ? object : {'a': 1.0}"));
    expect(evaluate(input).allowed).toBe(true);
  });
});
