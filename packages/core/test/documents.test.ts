import { describe, expect, it } from 'vitest';
import { compilePolicies, documentSchema, formatProblem, parsePolicyDocuments, PolicyLoadError, sourceLocation } from '@verdict/core';
import { load, loadProblems, MEMORY_CONSTRAINT, MEMORY_TEMPLATE, problemsOf } from './helpers.js';

describe('parsePolicyDocuments', () => {
  it('reads several YAML documents and skips empty ones', () => {
    const docs = parsePolicyDocuments('kind: A\n---\n# nothing here\n---\nkind: B\n');
    expect(docs.map((d) => d['kind'])).toEqual(['A', 'B']);
  });

  it('reads JSON, a JSON list of documents, and a kind: List', () => {
    expect(parsePolicyDocuments('{"kind": "A"}')).toEqual([{ kind: 'A' }]);
    expect(parsePolicyDocuments('[{"kind": "A"}, {"kind": "B"}]')).toHaveLength(2);
    expect(parsePolicyDocuments('kind: List\nitems: [{kind: A}, {kind: B}]').map((d) => d['kind'])).toEqual(['A', 'B']);
  });

  it('reports syntax errors with line and column', () => {
    const problems = problemsOf(() => parsePolicyDocuments('kind: A\nspec:\n  x: [1, 2\n', { source: 'bad.yaml' }));
    expect(problems[0]).toMatchObject({ code: 'YAML_SYNTAX', source: 'bad.yaml', line: expect.any(Number), column: expect.any(Number) });
    expect(formatProblem(problems[0]!)).toMatch(/^bad\.yaml:\d+:\d+: /);
  });

  it('rejects duplicate keys, as YAML 1.2 requires', () => {
    expect(problemsOf(() => parsePolicyDocuments('kind: A\nkind: B\n'))[0]).toMatchObject({ code: 'YAML_SYNTAX', line: 2, column: 1 });
  });

  it('reads unquoted yes/no as strings (YAML 1.2, like gator)', () => {
    expect(parsePolicyDocuments('kind: A\nflag: yes\n')[0]!['flag']).toBe('yes');
  });

  it('rejects documents that are not objects', () => {
    expect(problemsOf(() => parsePolicyDocuments('just a string\n'))[0]!.code).toBe('NOT_A_DOCUMENT');
  });

  it('refuses text over the size limit with TOO_LARGE before parsing it', () => {
    expect(problemsOf(() => parsePolicyDocuments('x'.repeat(101), { maxLength: 100 }))[0]).toMatchObject({ code: 'TOO_LARGE' });
  });

  it('refuses a YAML alias bomb instead of expanding it', () => {
    const bomb = ['a: &a ["x","x","x","x","x","x","x","x","x"]', ...Array.from({ length: 8 }, (_, i) => `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)}]`)].join('\n');
    expect(problemsOf(() => parsePolicyDocuments(bomb))[0]!.code).toBe('YAML_SYNTAX');
  });

  it('locates a JSON pointer in the source text', () => {
    const [doc] = parsePolicyDocuments('kind: A\nmetadata:\n  name: x\nspec:\n  order: 1\n', { source: 'f.yaml' });
    expect(sourceLocation(doc!, '/spec/order')).toEqual({ source: 'f.yaml', line: 5, column: 10 });
    expect(sourceLocation(doc!, '/spec/missing')).toEqual({ source: 'f.yaml', line: 5, column: 3 });
    expect(sourceLocation({}, '/spec')).toBeUndefined();
  });
});

describe('compilePolicies: loading is all-or-nothing', () => {
  it('loads seed 003 style documents', () => {
    expect(load(MEMORY_TEMPLATE + '---' + MEMORY_CONSTRAINT).policies).toMatchObject([
      { kind: 'K8sMemoryLimits', name: 'memory-limit-enforcement', enforcementAction: 'deny', template: 'k8smemorylimits', parameterSelection: 3, validate: ['container-memory-limit'] },
    ]);
  });

  it('rejects the whole set when one document is invalid, listing every problem', () => {
    const problems = loadProblems(`${MEMORY_TEMPLATE}---${MEMORY_CONSTRAINT}---
kind: K8sMemoryLimits
metadata: {name: other}
spec:
  enforcementAction: Deny
  parametrs: {limit: 1Gi}
`);
    expect(problems.map((p) => [p.document, p.path, p.code])).toEqual([
      [2, '/spec/enforcementAction', 'SCHEMA'],
      [2, '/spec/parametrs', 'SCHEMA'],
    ]);
    expect(problems[0]!.message).toBe('must be one of deny, warn, audit, dryrun (got "Deny"); did you mean "deny"?');
    expect(problems[1]!.message).toContain('did you mean "parameters"?');
    expect(problems[0]).toMatchObject({ name: 'K8sMemoryLimits/other', source: 'test.yaml', line: expect.any(Number) });
  });

  it('names the template kinds it knows when a constraint kind is unknown', () => {
    const [p] = loadProblems(`${MEMORY_TEMPLATE}---\nkind: K8sMemoryLimit\nmetadata: {name: x}\n`);
    expect(p).toMatchObject({ code: 'UNKNOWN_KIND', path: '/kind' });
    expect(p!.message).toBe('no PolicyTemplate defines kind "K8sMemoryLimit"; did you mean "K8sMemoryLimits"? (defined: K8sMemoryLimits)');
  });

  it('accepts Gatekeeper constraint apiVersions and rejects others', () => {
    expect(load(`${MEMORY_TEMPLATE}---\napiVersion: constraints.gatekeeper.sh/v1beta1\nkind: K8sMemoryLimits\nmetadata: {name: a}\nspec: {parameters: {limit: 1Gi}}\n`).policies).toHaveLength(1);
    const [p] = loadProblems(`${MEMORY_TEMPLATE}---\napiVersion: example.com/v1\nkind: K8sMemoryLimits\nmetadata: {name: a}\n`);
    expect(p).toMatchObject({ code: 'SCHEMA', path: '/apiVersion' });
  });

  it('explains that Gatekeeper ConstraintTemplates (Rego) are not run', () => {
    const [p] = loadProblems('apiVersion: templates.gatekeeper.sh/v1\nkind: ConstraintTemplate\nmetadata: {name: x}\nspec: {}\n');
    expect(p).toMatchObject({ code: 'UNSUPPORTED' });
    expect(p!.message).toContain('port the logic to a PolicyTemplate');
  });

  it('rejects two templates for one kind and two constraints with one name', () => {
    const problems = loadProblems(`${MEMORY_TEMPLATE}---${MEMORY_TEMPLATE.replace('name: k8smemorylimits', 'name: again')}---${MEMORY_CONSTRAINT}---${MEMORY_CONSTRAINT}`);
    expect(problems.map((p) => [p.document, p.code, p.path])).toEqual([[1, 'DUPLICATE', '/spec/kind'], [3, 'DUPLICATE', '/metadata/name']]);
    const text = `${MEMORY_TEMPLATE}---${MEMORY_TEMPLATE}---${MEMORY_CONSTRAINT}---`;
    const constraintLine = text.slice(0, text.indexOf('\nkind: K8sMemoryLimits\n')).split('\n').length + 1;
    expect(problems.map((p) => p.message)).toEqual([
      'kind "K8sMemoryLimits" is already defined by document 0 (test.yaml:2:1)',
      `K8sMemoryLimits "memory-limit-enforcement" is already defined by document 2 (test.yaml:${constraintLine}:1)`,
    ]);
  });

  it('refuses __proto__, constructor and prototype keys anywhere in a document', () => {
    for (const key of ['__proto__', 'constructor', 'prototype']) {
      const problems = problemsOf(() => compilePolicies([JSON.parse(`{"kind":"Policy","apiVersion":"verdict.dev/v1","metadata":{"name":"x"},"spec":{"parameters":{"a":{"${key}":{"polluted":true}}}}}`)]));
      expect(problems).toEqual([expect.objectContaining({ code: 'FORBIDDEN_KEY', path: `/spec/parameters/a/${key}` })]);
    }
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('rejects documents that are not objects, and a non-list', () => {
    expect(problemsOf(() => compilePolicies([null, 'x'])).map((p) => p.code)).toEqual(['NOT_A_DOCUMENT', 'NOT_A_DOCUMENT']);
    expect(() => compilePolicies('kind: A' as unknown as unknown[])).toThrow(PolicyLoadError);
  });

  it('does not let an entry of parameterSelection change the enforcement action', () => {
    const [p] = loadProblems(`${MEMORY_TEMPLATE}---\nkind: K8sMemoryLimits\nmetadata: {name: a}\nspec:\n  parameters: {limit: 1Gi}\n  parameterSelection:\n    - parameters: {limit: 2Gi}\n      enforcementAction: warn\n`);
    expect(p).toMatchObject({ code: 'SCHEMA', path: '/spec/parameterSelection/0/enforcementAction' });
  });

  it('rejects an unknown match field with a did-you-mean hint', () => {
    const [p] = loadProblems(`${MEMORY_TEMPLATE}---\nkind: K8sMemoryLimits\nmetadata: {name: a}\nspec:\n  match: {lables: "a=b"}\n  parameters: {limit: 1Gi}\n`);
    expect(p).toMatchObject({ code: 'INVALID_MATCH', path: '/spec/match/lables' });
    expect(p!.message).toContain('did you mean "labels"?');
  });

  it('reports invalid label selectors inside match blocks with their full path', () => {
    const problems = loadProblems(`${MEMORY_TEMPLATE}---\nkind: K8sMemoryLimits\nmetadata: {name: a}\nspec:
  parameters: {limit: 1Gi}
  parameterSelection:
    - match: {labels: {path: namespaceLabels, matchExpressions: [{key: field.cattle.io/projectId, operation: NotIn, values: [system]}]}}
      parameters: {limit: 2Gi}
    - match: {labels: "a in (b"}
      parameters: {limit: 2Gi}
`);
    expect(problems.map((p) => [p.code, p.path])).toEqual([
      ['INVALID_SELECTOR', '/spec/parameterSelection/0/match/labels/matchExpressions/0/operation'],
      ['INVALID_SELECTOR', '/spec/parameterSelection/1/match/labels'],
    ]);
    expect(problems[0]!.message).toContain('did you mean "operator"?');
  });
});

describe('checkParameters (adapters checking their reserved parameters at load time)', () => {
  it('checks spec.parameters and every entry as written, reporting problems at their place with every other problem', () => {
    const seen: unknown[] = [];
    // The template declares zone (any value), so the hook is what refuses the numbers.
    const template = MEMORY_TEMPLATE.replace('properties: {limit: {type: string}}', 'properties: {limit: {type: string}, zone: {}}');
    const problems = problemsOf(() => load(`${template}---
kind: K8sMemoryLimits
metadata: {name: m}
spec:
  parameters: {limit: 1Gi, zone: 7}
  parameterSelection:
    - match: {labels: "team=a"}
      parameters: {zone: eu}
    - match: {labels: "team=b"}
      parameters: {zone: 9}
---
kind: K8sMemoryLimit
metadata: {name: typo}
`, {
      checkParameters: (parameters) => {
        seen.push(parameters);
        return typeof parameters['zone'] === 'number' ? [{ path: '/zone', message: 'zone must be a name' }] : [];
      },
    }));
    expect(seen).toEqual([{ limit: '1Gi', zone: 7 }, { zone: 'eu' }, { zone: 9 }]);
    expect(problems.map((p) => [p.document, p.code, p.path, p.line])).toEqual([
      [1, 'INVALID_PARAMETERS', '/spec/parameters/zone', 18],
      [1, 'INVALID_PARAMETERS', '/spec/parameterSelection/1/parameters/zone', 23],
      [2, 'UNKNOWN_KIND', '/kind', expect.any(Number)],
    ]);
  });
});

describe('the shipped JSON Schema', () => {
  it('is a draft-07 schema with an $id editors can reference', () => {
    expect(documentSchema.$schema).toBe('http://json-schema.org/draft-07/schema#');
    expect(documentSchema.$id).toBe('https://verdict.dev/schema/policy.schema.json');
    expect(Object.keys(documentSchema.definitions)).toEqual(expect.arrayContaining(['PolicyTemplate', 'Constraint', 'Policy']));
  });
});
