/**
 * Two-variable comprehensions (cel-go ext.TwoVarComprehensions, in Kubernetes' environment since 1.32): cases
 * from cel-spec's macros2 conformance file and cel-go's ext/comprehensions_test.go, and admission-style
 * expressions over JSON. Each case also runs through the planner (generated code and closures) and cel-js.
 */
import { compileCel } from '@verdict/cel';
import { describe, expect, it } from 'vitest';
import { buildCel } from '../src/compile.js';
import { celEnvironment } from '../src/env.js';
import { celCases, compileError, error } from './cel-helpers.js';

describe('two-variable quantifiers', () => {
  celCases([
    ['all over a list: index and element', '[1, 2, 3].all(i, v, i > -1 && v > 0)', true],
    ['all over a list, one false', '[1, 2, 3].all(i, v, i == 1 && v == 2)', false],
    ['all over a map: key and value', "{'key1': 1, 'key2': 2}.all(k, v, k.startsWith('key') && v > 0)", true],
    ['all on an empty list', '[].all(i, v, i > -1 || v > 0)', true],
    ['all: an error decided by a later false', '[1, 2, 3].all(i, v, 6 / (2 - v) == i)', false],
    ['exists over a list', '[1, 2, 3].exists(i, v, i == 1 && v == 2)', true],
    ['exists over a map', "{'key1': 1, 'key2': 2}.exists(k, v, k == 'key2' && v == 2)", true],
    ['exists: none', "!{'key1': 1, 'key2': 2}.exists(k, v, k == 'key3' || v == 3)", true],
    ['exists: an error, then true', "[dyn(1), dyn('foo'), dyn(3)].exists(i, v, i == 1 && v != '1')", true],
    ['existsOne over a list', '[5, 7, 8].existsOne(i, v, v % 5 == i)', true],
    ['existsOne: many', '[0, 1, 2, 3, 4].existsOne(i, v, v % 2 == i)', false],
    ['existsOne with one variable', '[1, 2, 3].existsOne(x, x > 2)', true],
    ['exists_one with two variables', "{'a': 1, 'b': 2}.exists_one(k, v, v == 2)", true],
    ['existsOne stops at an error', "[dyn(1), dyn('a'), dyn(2)].existsOne(i, v, v > 0)", error(/no such overload/)],
  ]);
});

describe('transformList, transformMap, transformMapEntry', () => {
  celCases([
    ['transformList', '[2, 4, 6].transformList(i, v, v / 2 + i)', [1, 3, 5]],
    ['transformList with a filter', '[2, 4, 6].transformList(i, v, i != 1 && v != 4, v / 2 + i)', [1, 5]],
    ['transformList over a map', "{'a': 1, 'b': 2}.transformList(k, v, k + string(v))", ['a1', 'b2']],
    ['transformList on an empty list', '[].transformList(i, v, i / v)', []],
    ['transformMap', "{'foo': 'bar', 'baz': 'bux'}.transformMap(k, v, k + v)", { foo: 'foobar', baz: 'bazbux' }],
    ['transformMap with a filter', "{'foo': 'bar', 'baz': 'bux', 'hello': 'world'}.transformMap(k, v, k != 'baz', k + v)", { foo: 'foobar', hello: 'helloworld' }],
    ['transformMap over a list: index keys', "['a', 'b'].transformMap(i, v, v + v)[1]", 'bb'],
    ['transformMap on an empty map', '{}.transformMap(k, v, k + v)', {}],
    ['transformMapEntry', "{'a': 1, 'b': 2}.transformMapEntry(k, v, {k + 'x': v * 10})", { ax: 10, bx: 20 }],
    ['transformMapEntry with a filter', "{'a': 1, 'b': 2}.transformMapEntry(k, v, v > 1, {v: k})", { 2: 'b' }],
    ['transformMapEntry: a key twice is an error', "{'a': 1, 'b': 2}.transformMapEntry(k, v, {'same': v})", error(/insert failed: key same already exists/)],
    ['transformMapEntry needs a map', "{'a': 1}.transformMapEntry(k, v, [v])", compileError(/must be a map/)],
    ['the same name twice', '[1].all(x, x, x > 0)', compileError(/duplicate variable name: x/)],
    ['a variable that is not a name', '[1].all(1, x, x > 0)', compileError(/invalid iteration variable/)],
  ]);
});

describe('two-variable comprehensions over admission objects', () => {
  const object = {
    metadata: { labels: { app: 'web', team: 'a', 'env': 'prod' } },
    spec: { containers: [{ name: 'app', image: 'gcr.io/app:1', ports: [{ containerPort: 80 }] }, { name: 'side', image: 'docker.io/side', ports: [] }] },
  };
  celCases([
    ['labels: every key and value', "object.metadata.labels.all(k, v, k.size() < 64 && v.matches('^[a-z]+$'))", true],
    ['containers by position', "object.spec.containers.exists(i, c, i > 0 && c.image.startsWith('docker.io/'))", true],
    ['names to images', 'object.spec.containers.transformMap(i, c, c.name)', { 0: 'app', 1: 'side' }],
    ['images by name', 'object.spec.containers.transformMapEntry(i, c, {c.name: c.image})', { app: 'gcr.io/app:1', side: 'docker.io/side' }],
    ['ports of the first', 'object.spec.containers.transformList(i, c, i == 0, c.ports.size())', [1]],
    ['integral numbers are ints', 'object.spec.containers.transformList(i, c, c.ports.all(j, p, p.containerPort + j > 0))', [true, true]],
  ], { object });

  it('charges per element what the API server charges, as the one-variable macros do', () => {
    const items = Array.from({ length: 200 }, (_, i) => i);
    const twoVar = compileCel('items.all(i, a, items.all(j, b, i + j >= 0))', { budget: 10_000 });
    expect(() => twoVar.evaluate({ items })).toThrow(/exceeded its cost budget of 10000 units/);
    // all(): per element the loop condition (2), `__result__ && p` (1 + `i >= 0`: 2); `items` and the result once.
    expect(compileCel('items.all(i, a, i >= 0)').evaluateWithCost({ items })).toMatchObject({ value: true, cost: 200 * 5 + 2 });
    expect(compileCel('items.all(x, x >= 0)').evaluateWithCost({ items }).cost).toBe(200 * 5 + 2);
    // transformList(): per element `__result__ + [a]` (the accumulator, a list literal, `+`: 12, and `a`: 1).
    expect(compileCel('items.transformList(i, a, a)').evaluateWithCost({ items }).cost).toBe(200 * 13 + 2);
    expect(compileCel('items.map(x, x)').evaluateWithCost({ items }).cost).toBe(200 * 13 + 2);
    // The nested all() costs its own per element each time: 200 × (3 + 1 + 200 × (3 + 4) + 1) + 2.
    expect(compileCel('items.all(i, a, items.all(j, b, i + j >= 0))').evaluateWithCost({ items }).cost).toBe(200 * (3 + 1 + 200 * 7 + 1) + 2);
  });

  it('is planned, in generated code and in closures', () => {
    const environment = celEnvironment();
    for (const plan of [true, 'closures'] as const) {
      const compiled = buildCel("m.transformMap(k, v, v.all(i, x, x > i))", { environment, refuse: new Map(), plan });
      expect(compiled.planned).toBe(true);
      expect(compiled.backend).toBe(plan === true ? 'generated' : 'closures');
    }
  });
});
