import { describe, expect, it } from 'vitest';
import { compileLogic, parseQuantity } from '@verdict/core';
import { OPERATION_NAMES } from '../src/logic/compile.js';
import { parseImageReference } from '../src/logic/image.js';
import { load, loadProblems } from './helpers.js';

/** A Policy with one validate rule over the input, plus optional definitions. */
function policy(rule: unknown, opts: { forEach?: unknown; message?: string; parameters?: unknown; definitions?: unknown } = {}) {
  return load(JSON.stringify({
    apiVersion: 'verdict.dev/v1', kind: 'Policy', metadata: { name: 'p' },
    spec: {
      ...(opts.definitions ? { definitions: opts.definitions } : {}),
      validate: [{ name: 'r', rule, message: opts.message ?? 'failed', ...(opts.forEach ? { forEach: opts.forEach } : {}) }],
      parameters: opts.parameters ?? {},
    },
  }));
}

const apply = (rule: unknown, data?: unknown) => compileLogic(rule).apply(data);

describe('forEach', () => {
  it('runs the rule once per element, with element and the rest of the input in scope', () => {
    const set = policy({ '<': [{ var: 'element.n' }, { var: 'parameters.max' }] }, {
      forEach: { var: 'object.items' }, message: '{{element.name}} in {{object.kind}} exceeds {{parameters.max}}', parameters: { max: 3 },
    });
    const d = set.evaluate({ object: { kind: 'Box', items: [{ name: 'a', n: 1 }, { name: 'b', n: 5 }, { name: 'c', n: 9 }] } });
    expect(d.violations.map((v) => [v.message, v.path])).toEqual([['b in Box exceeds 3', '/object/items/1'], ['c in Box exceeds 3', '/object/items/2']]);
    expect(d.trace[0]!.rules).toEqual([{ rule: 'r', type: 'validate', result: 'fail', elements: 3, violations: 2 }]);
  });

  it('runs zero times over a missing or null value', () => {
    const set = policy(false, { forEach: { var: 'object.items' } });
    for (const object of [{}, { items: null }]) {
      const d = set.evaluate({ object });
      expect(d.allowed).toBe(true);
      expect(d.trace[0]!.rules[0]).toEqual({ rule: 'r', type: 'validate', result: 'pass', elements: 0 });
    }
  });

  it('reports an error (and fails closed) when forEach gives something that is not a list', () => {
    const d = policy(true, { forEach: { var: 'object.items' } }).evaluate({ object: { items: 'nope' } });
    expect(d.allowed).toBe(false);
    expect(d.errors).toEqual([expect.objectContaining({ code: 'RULE_ERROR', policy: 'p', rule: 'r', message: 'rule "r" failed: forEach must give a list (got string)' })]);
    expect(d.trace[0]!.rules[0]).toMatchObject({ result: 'error' });
  });

  it('lets nested loops reach the element, the input and the parameters through "input"', () => {
    const set = policy({ some: [{ var: 'element.ports' }, { in: [{ var: 'port' }, { input: 'parameters.allowed' }] }] }, {
      forEach: { var: 'object.containers' }, parameters: { allowed: [80, 443] },
    });
    const d = set.evaluate({ object: { containers: [{ ports: [{ port: 22 }, { port: 80 }] }, { ports: [{ port: 22 }] }] } });
    expect(d.violations.map((v) => v.path)).toEqual(['/object/containers/1']);
  });
});

describe('verdict operations', () => {
  it('quantity parses Kubernetes quantities and plain numbers, null for anything else', () => {
    expect(apply({ quantity: '16Gi' })).toBe(16 * 2 ** 30);
    expect(apply({ quantity: '500m' })).toBe(0.5);
    expect(apply({ quantity: '1.5' })).toBe(1.5);
    expect(apply({ quantity: '2e3' })).toBe(2000);
    expect(apply({ quantity: '1E' })).toBe(1e18);
    expect(apply({ quantity: 42 })).toBe(42);
    expect(apply({ quantity: { var: 'missing' } })).toBeNull();
    expect(apply({ quantity: '12 apples' })).toBeNull();
    expect(apply({ quantity: '1Gb' })).toBeNull();
    expect(parseQuantity('128974848')).toBe(128974848);
    expect(parseQuantity(Infinity)).toBeNull();
  });

  it('glob matches one pattern or any of a list; an empty list is false', () => {
    expect(apply({ glob: ['kube-*', 'kube-system'] })).toBe(true);
    expect(apply({ glob: [['*-system', 'default'], 'default'] })).toBe(true);
    expect(apply({ glob: [[], 'default'] })).toBe(false);
    expect(apply({ glob: ['kube-*', 'kube/system'] })).toBe(false);
    expect(apply({ glob: ['group/**', 'group/a/b'] })).toBe(true);
    expect(apply({ glob: ['*', 42] })).toBe(false);
    expect(apply({ glob: [{ var: 'p' }, 'team-a-web'] }, { p: ['team-a-*'] })).toBe(true);
  });

  it('regex tests a value; patterns are compiled at load, invalid ones are load errors', () => {
    expect(apply({ regex: ['^v[0-9]+$', 'v12'] })).toBe(true);
    expect(apply({ regex: ['^V', 'v1', 'i'] })).toBe(true);
    expect(apply({ regex: ['x', 1] })).toBe(false);
    const [p] = loadProblems(JSON.stringify({ apiVersion: 'verdict.dev/v1', kind: 'Policy', metadata: { name: 'p' }, spec: { validate: [{ name: 'r', rule: { regex: ['(', 'x'] }, message: 'm' }] } }));
    expect(p).toMatchObject({ code: 'INVALID_RULE', path: '/spec/validate/0/rule/regex' });
    expect(() => compileLogic({ regex: ['a'.repeat(1001), 'x'] })).toThrow(/limit is 1000/);
  });

  it('rejects an invalid regex read from the parameters at load time', () => {
    const [p] = loadProblems(JSON.stringify({ apiVersion: 'verdict.dev/v1', kind: 'Policy', metadata: { name: 'p' }, spec: { validate: [{ name: 'r', rule: { regex: [{ var: 'parameters.re' }, 'x'] }, message: 'm' }], parameters: { re: '[' } } }));
    expect(p).toMatchObject({ code: 'INVALID_PARAMETERS' });
    expect(p!.message).toContain('pattern "["');
  });

  it('starts_with and ends_with accept one affix or a list', () => {
    expect(apply({ starts_with: ['gcr.io/app', ['quay.io/', 'gcr.io/']] })).toBe(true);
    expect(apply({ ends_with: ['app:latest', ':latest'] })).toBe(true);
    // A missing or null value has no answer (docs/concepts/rules.md, "Matches on a missing value").
    expect(() => apply({ starts_with: [null, 'x'] })).toThrow('"starts_with" has no answer: the value it tests is null');
    expect(apply({ starts_with: ['x', null] })).toBe(false); // a missing prefix list holds nothing
  });

  it('get reads keys that contain dots, and paths given as segment lists', () => {
    const data = { labels: { 'app.kubernetes.io/name': 'web' } };
    expect(apply({ get: [{ var: 'labels' }, 'app.kubernetes.io/name'] }, data)).toBe('web');
    expect(apply({ get: [{ var: '' }, ['labels', 'app.kubernetes.io/name']] }, data)).toBe('web');
    expect(apply({ get: [{ var: 'labels' }, 'missing', 'fallback'] }, data)).toBe('fallback');
    expect(apply({ get: [{ var: 'labels' }, 'constructor'] }, data)).toBeNull();
  });

  it('exists tells a missing field from a null one', () => {
    expect(apply({ exists: 'a.b' }, { a: { b: null } })).toBe(true);
    expect(apply({ exists: 'a.c' }, { a: { b: null } })).toBe(false);
    expect(apply({ exists: [['a', 'b.c']] }, { a: { 'b.c': 1 } })).toBe(true);
    expect(apply({ '!!': { var: 'a.b' } }, { a: { b: null } })).toBe(false);
  });

  it('string and list helpers', () => {
    expect(apply({ join: [['a', 'b', 1]] })).toBe('a, b, 1');
    expect(apply({ join: [['a', 'b'], '|'] })).toBe('a|b');
    expect(apply({ split: ['a,b', ','] })).toEqual(['a', 'b']);
    expect(apply({ lower: 'AbC' })).toBe('abc');
    expect(apply({ upper: 'abc' })).toBe('ABC');
    expect(apply({ trim: '  x ' })).toBe('x');
    expect(apply({ length: [[1, 2, 3]] })).toBe(3);
    expect(apply({ length: 'abcd' })).toBe(4);
    expect(apply({ length: 5 })).toBeNull();
    expect(apply({ keys: { var: '' } }, { a: 1, b: 2 })).toEqual(['a', 'b']);
    expect(apply({ entries: { var: '' } }, { a: 1 })).toEqual([{ key: 'a', value: 1 }]);
    expect(apply({ truthy: [[]] })).toBe(false);
  });

  it('image splits references the way the Docker grammar does', () => {
    expect(parseImageReference('nginx')).toEqual({ registry: 'docker.io', repository: 'library/nginx', tag: null, digest: null, name: 'docker.io/library/nginx' });
    expect(parseImageReference('localhost:5000/team/app:1.2@sha256:abc')).toEqual({ registry: 'localhost:5000', repository: 'team/app', tag: '1.2', digest: 'sha256:abc', name: 'localhost:5000/team/app' });
    expect(parseImageReference('quay.io/org/app:latest')).toMatchObject({ registry: 'quay.io', repository: 'org/app', tag: 'latest' });
    expect(parseImageReference('org/app')).toMatchObject({ registry: 'docker.io', repository: 'org/app' });
    expect(apply({ image: 'gcr.io/a:1' })).toMatchObject({ registry: 'gcr.io', tag: '1' });
  });

  it('one field of an image reads the same as the whole reference gives it, for every short reference', () => {
    // The split as the grammar states it, written independently of the library.
    const split = (reference: string) => {
      let rest = reference;
      let digest: string | null = null;
      let tag: string | null = null;
      if (rest.includes('@')) [rest, digest] = [rest.slice(0, rest.indexOf('@')), rest.slice(rest.indexOf('@') + 1)];
      if (rest.lastIndexOf(':') > rest.lastIndexOf('/')) [rest, tag] = [rest.slice(0, rest.lastIndexOf(':')), rest.slice(rest.lastIndexOf(':') + 1)];
      const first = rest.includes('/') ? rest.slice(0, rest.indexOf('/')) : undefined;
      const named = first !== undefined && (first.includes('.') || first.includes(':') || first === 'localhost');
      const registry = named ? first : 'docker.io';
      let repository = named ? rest.slice(first.length + 1) : rest;
      if (registry === 'docker.io' && !repository.includes('/')) repository = `library/${repository}`;
      return { registry, repository, tag, digest, name: `${registry}/${repository}` };
    };
    // Every string of up to 5 characters over the characters that steer the split, and realistic ones.
    const strings = [''];
    for (let n = 0; n < 5; n++) for (const s of strings.filter((x) => x.length === n)) for (const c of ['a', '.', ':', '/', '@']) strings.push(s + c);
    strings.push('localhost/app', 'localhost:5000/app:1', 'localhostx/app', 'docker.io/nginx', 'a.io/x/y:1@sha256:ab/c', 'nginx@sha256:a/b.c');
    const parts = ['registry', 'repository', 'tag', 'digest', 'name'] as const;
    const rules = parts.map((part) => compileLogic({ get: [{ image: { var: 'r' } }, part, 'none'] }));
    for (const r of strings) {
      const whole = parseImageReference(r);
      expect([r, whole]).toEqual([r, split(r)]);
      parts.forEach((part, i) => expect([r, part, rules[i]!.apply({ r })]).toEqual([r, part, whole[part]]));
    }
    expect(rules[0]!.apply({ r: 42 })).toBe('none');
  });
});

describe('definitions and ref', () => {
  const definitions = { exempt: { glob: [{ input: 'parameters.exempt' }, { var: '' }] } };

  it('reuses a named sub-expression, with an argument as its data', () => {
    const set = policy({ or: [{ ref: ['exempt', { var: 'element.image' }] }, { starts_with: [{ var: 'element.image' }, 'corp.io/'] }] }, {
      forEach: { var: 'object.containers' }, definitions, parameters: { exempt: ['docker.io/library/busybox*'] }, message: '{{element.image}}',
    });
    const d = set.evaluate({ object: { containers: [{ image: 'corp.io/a' }, { image: 'docker.io/library/busybox:1' }, { image: 'evil.io/x' }] } });
    expect(d.violations.map((v) => v.message)).toEqual(['evil.io/x']);
  });

  it('rejects an unknown definition with a hint, and recursion', () => {
    expect(() => compileLogic({ ref: 'exemp' }, { definitions })).toThrow('"ref" names an unknown definition "exemp"; did you mean "exempt"?');
    expect(() => compileLogic({ ref: 'a' }, { definitions: { a: { ref: 'b' }, b: { ref: 'a' } } })).toThrow(/refers to itself/);
  });
});

describe('the rule language at load time', () => {
  it('rejects an unknown operation with a did-you-mean hint and its path', () => {
    const [p] = loadProblems(JSON.stringify({ apiVersion: 'verdict.dev/v1', kind: 'Policy', metadata: { name: 'p' }, spec: { validate: [{ name: 'r', rule: { and: [true, { quantitiy: '1' }] }, message: 'm' }] } }));
    expect(p).toMatchObject({ code: 'INVALID_RULE', path: '/spec/validate/0/rule/and/1/quantitiy' });
    expect(p!.message).toContain('did you mean "quantity"?');
  });

  it('does not take names every object inherits (toString, constructor, hasOwnProperty) for operations', () => {
    for (const op of ['toString', 'constructor', 'hasOwnProperty', 'valueOf', '__proto__']) {
      expect(() => compileLogic(JSON.parse(`{"${op}": [1]}`))).toThrow(`unknown operation "${op}"`);
    }
  });

  it('evaluates arguments an operation ignores, as json-logic-js does, so one that throws still throws', () => {
    expect(() => compileLogic({ '!': [true, { '*': [] }] }).apply({})).toThrow();
    expect(() => compileLogic({ var: ['a', 1, { '*': [] }] }).apply({})).toThrow();
    expect(compileLogic({ '!': [true, 1] }).apply({})).toBe(false);
  });

  it('reads a list key of "missing" as a path and a default, like {"var": key}', () => {
    expect(compileLogic({ missing: [[['b', 'dflt']]] }).apply({})).toEqual([]);
    expect(compileLogic({ missing: ['a', 'b'] }).apply({ a: 1 })).toEqual(['b']);
  });

  it('lists every operation it knows, json-logic built-ins included', () => {
    expect(OPERATION_NAMES).toEqual(expect.arrayContaining(['var', 'missing', 'if', '==', 'all', 'reduce', 'quantity', 'glob', 'regex', 'input', 'ref', 'exists']));
  });

  it('rejects duplicate rule names and bad message templates', () => {
    const problems = loadProblems(JSON.stringify({
      apiVersion: 'verdict.dev/v1', kind: 'Policy', metadata: { name: 'p' },
      spec: { validate: [{ name: 'r', rule: true, message: 'ok' }, { name: 'r', rule: true, message: '{{ a | shout }}' }] },
    }));
    expect(problems.map((p) => [p.code, p.path])).toEqual([['DUPLICATE', '/spec/validate/1/name'], ['INVALID_TEMPLATE', '/spec/validate/1/message']]);
  });
});

describe('messages', () => {
  it('render missing values visibly, with defaults, lists and bracketed keys', () => {
    const set = policy(false, {
      message: 'name={{object.metadata.name}} team={{object.metadata.labels["app.kubernetes.io/team"] | default "none"}} owner={{object.owner}} regs={{parameters.r}} j={{parameters.r | join "|"}} o={{parameters.o}}',
      parameters: { r: ['a', 'b'], o: { k: 1 } },
    });
    expect(set.evaluate({ object: { metadata: { name: 'x', labels: {} } } }).violations[0]!.message)
      .toBe('name=x team=none owner=<missing> regs=a, b j=a|b o={"k":1}');
  });
});

describe('rule errors', () => {
  it('report the failing rule and keep evaluating the others', () => {
    const set = load(JSON.stringify({
      apiVersion: 'verdict.dev/v1', kind: 'Policy', metadata: { name: 'p' },
      spec: { validate: [{ name: 'boom', rule: { '*': [] }, message: 'm' }, { name: 'ok', rule: false, message: 'second' }] },
    }));
    const d = set.evaluate({});
    expect(d.errors.map((e) => e.rule)).toEqual(['boom']);
    expect(d.violations.map((v) => v.message)).toEqual(['second']);
    expect(d.trace[0]!.rules.map((r) => r.result)).toEqual(['error', 'fail']);
  });
});
