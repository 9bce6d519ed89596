/**
 * Optional types (Kubernetes' environment since 1.28): optional entries in list and map literals, `optMap`,
 * `optFlatMap`, `optional.ofNonZeroValue`, `.?` on an optional and `has()` on any operand. Cases from
 * cel-spec's optionals conformance file and cel-go's optional tests, and admission-style expressions over
 * JSON. Each case also runs through the planner (generated code and closures) and through cel-js.
 */
import { describe, expect, it } from 'vitest';
import { buildCel } from '../src/compile.js';
import { celEnvironment } from '../src/env.js';
import { celCases, compileError, error } from './cel-helpers.js';

describe('optional entries in literals', () => {
  celCases([
    ['list: present elements kept, absent ones left out', '[?{}.?c, ?optional.of(42), ?optional.none()]', [42]],
    ['list: mixed with plain elements', '[1, ?optional.of(2), ?optional.none(), 3]', [1, 2, 3]],
    ['list: a plain element must not be optional', '[?1]', compileError(/optional entry must be optional, got 'int'/)],
    ['list: a dyn element that is not optional', '[?dyn(1)]', error(/optional entry must be optional/)],
    ['map: an absent entry is left out', "{?'nested_map': optional.ofNonZeroValue({?'map': {}.?c}), 'singleton': true}", { singleton: true }],
    ['map: a present entry is kept', "{?'a': optional.of(1), ?'b': optional.none()}", { a: 1 }],
    ['map: has() of an absent optional entry', "has({?'foo': optional.none()}.foo)", false],
    ['map: a repeated key is an error', "{'a': 1, 'a': 2}", error(/repeated key: a/)],
    ['map: 0 and 0u are the same key', '{dyn(0): 1, dyn(0u): 2}', error(/repeated key/)],
  ]);
});

describe('optMap, optFlatMap and optional.ofNonZeroValue', () => {
  celCases([
    ['optMap on a value', 'optional.of(42).optMap(y, y + 1).value()', 43],
    ['optMap on none', 'optional.none().optMap(y, y + 1).hasValue()', false],
    ['optFlatMap to a present field', "{'key': {'subkey': 'subvalue'}}.?key.optFlatMap(k, k.?subkey).value()", 'subvalue'],
    ['optFlatMap to an absent field', "{'key': {}}.?key.optFlatMap(k, k.?subkey).hasValue()", false],
    ['optFlatMap on none', '{}.?key.optFlatMap(k, k.?subkey).hasValue()', false],
    ['ofNonZeroValue of zero values', "[optional.ofNonZeroValue(0), optional.ofNonZeroValue(''), optional.ofNonZeroValue(null), optional.ofNonZeroValue([]), optional.ofNonZeroValue({}), optional.ofNonZeroValue(false), optional.ofNonZeroValue(0.0)].exists(o, o.hasValue())", false],
    ['ofNonZeroValue of values', "optional.ofNonZeroValue(42).or(optional.of(20)).value() == 42 && optional.ofNonZeroValue('a').hasValue() && optional.ofNonZeroValue([0]).hasValue()", true],
    ['optMap needs a name', 'optional.of(1).optMap(1, 2)', compileError(/invalid variable/)],
  ]);
});

describe('selections on optionals and has() on any operand', () => {
  celCases([
    ['.? on optional.none()', 'optional.none().?field.hasValue()', false],
    ['[?] on optional.none()', 'optional.none()[?0].hasValue()', false],
    ['a field of an absent entry', "{}.?key.field.hasValue()", false],
    ['a field of null is an error', "{'k': dyn(null)}.?k.field.hasValue()", error(/No such key: field/)],
    ['a field of an int is an error', '{true: dyn(0)}[?true].absent.hasValue()', error(/No such key: absent/)],
    ['has() on a map literal', "has({'a': 1, 'b': 2}.a) && !has({'a': 1}.c) && !has({}.a)", true],
    ['has() through an optional selection', "has({'x': {'y': 'z'}}.?x.y) && !has({}.?x.y)", true],
    ['has() on an optional', "has(optional.of({'c': {'entry': 'hello'}}).c) && !has(optional.of({'c': {'entry': 'hello'}}).c.missing)", true],
    ['has() of an optional stored in a map', "has({'foo': optional.none()}.foo) && !has({'foo': optional.none()}.foo.bar)", true],
    ['has() on a constructed object (MutatingAdmissionPolicy)', 'has({"op": "add", "path": "/x"}.op) && !has({"op": "add"}.value)', true],
    ['has() on a call', 'has(object.metadata.labels.transformMap(k, v, v + "!").app)', true],
    ['has() needs a selection', 'has(object)', compileError(/has\(\) invalid argument/)],
  ], { object: { metadata: { labels: { app: 'web' } } } });
});

describe('optional syntax over admission objects', () => {
  const object = { metadata: { name: 'web', labels: { app: 'web', tier: '' } }, spec: { replicas: 3 } };
  celCases([
    ['labels that are set', "{?'app': object.metadata.?labels.?app, ?'team': object.metadata.?labels.?team}", { app: 'web' }],
    ['non-empty labels', "[?optional.ofNonZeroValue(object.metadata.labels.tier), ?optional.ofNonZeroValue(object.metadata.labels.app)]", ['web']],
    ['a default through optMap', 'object.?spec.?replicas.optMap(r, r * 2).orValue(1)', 6],
    ['an absent path through optFlatMap', 'object.?status.optFlatMap(s, s.?phase).orValue("Pending")', 'Pending'],
  ], { object });

  it('is planned, in generated code and in closures', () => {
    const environment = celEnvironment();
    for (const plan of [true, 'closures'] as const) {
      for (const expression of ["[?x.?a, ?optional.none()]", "{?'a': x.?a, 'b': 1}", 'x.?a.optMap(v, v + 1)', "has({'a': x}.a.b)"]) {
        const compiled = buildCel(expression, { environment, refuse: new Map(), plan });
        expect(compiled.planned, expression).toBe(true);
        expect(compiled.backend).toBe(plan === true ? 'generated' : 'closures');
      }
    }
  });
});
