/**
 * A rule that reads a parameter its template's
 * parametersSchema does not declare is a load error with a did-you-mean
 * (a typo used to read nothing and let a blocked image through).
 */
import { describe, expect, it } from 'vitest';
import { compileLogic } from '@verdict/core';
import { load, problemsOf } from './helpers.js';

/** A Policy with one schema, validate rules and optional mutate rules. */
function policy(schema: unknown, validate: unknown[], mutate?: unknown[]) {
  return JSON.stringify({
    apiVersion: 'verdict.dev/v1', kind: 'Policy', metadata: { name: 'p' },
    spec: { ...(schema === undefined ? {} : { parametersSchema: schema }), validate, ...(mutate ? { mutate } : {}) },
  });
}
const rule = (r: unknown, message = 'm') => ({ name: 'r', rule: r, message });
const schema = { type: 'object', properties: { blocked: { type: 'array', items: { type: 'string' } }, limits: { type: 'object', properties: { memory: { type: 'string' } } } } };

describe('parameters a rule reads', () => {
  const setup = (validate: unknown[], s: unknown = schema, mutate?: unknown[]) => problemsOf(() => load(policy(s, validate, mutate)));

  it('rejects a read of an undeclared name, with a did-you-mean, the declared names and the line', () => {
    const yaml = [
      'apiVersion: verdict.dev/v1',
      'kind: Policy',
      'metadata: {name: blocked-images}',
      'spec:',
      '  parametersSchema: {type: object, properties: {blocked: {type: array}}}',
      '  validate:',
      '    - name: not-blocked',
      '      rule: {"!": {in: [{var: object.image}, {var: parameters.blockedImages}]}}',
      '      message: blocked',
    ].join('\n');
    const [problem, ...rest] = problemsOf(() => load(yaml));
    expect(rest).toEqual([]);
    expect(problem).toMatchObject({ code: 'UNKNOWN_PARAMETER', path: '/spec/validate/0/rule/!/in/1/var', line: 8, column: 52, source: 'test.yaml' });
    expect(problem!.message).toBe('reads parameters.blockedImages, but parametersSchema declares no "blockedImages"; did you mean "blocked"? (declared: blocked); ' +
      'declare it in parametersSchema, or set additionalProperties: true there to allow names it does not list');
  });

  it('checks nested reads as deep as the schema declares properties', () => {
    const problems = setup([rule({ '==': [{ var: 'parameters.limits.memroy' }, 1] })]);
    expect(problems.map((p) => [p.code, p.message.split(';')[0]])).toEqual([
      ['UNKNOWN_PARAMETER', 'reads parameters.limits.memroy, but parametersSchema declares no "memroy" under parameters.limits'],
    ]);
    expect(problems[0]!.message).toContain('did you mean "memory"?');
    expect(() => load(policy(schema, [rule({ '==': [{ var: 'parameters.limits.memory' }, 1] }), { name: 's', rule: { '==': [{ var: 'parameters.blocked.0' }, { var: 'parameters.blocked.length' }] }, message: 'm' }]))).not.toThrow();
  });

  it('checks input, exists, missing, get, messages and patch values', () => {
    const problems = setup(
      [
        rule({ all: [{ var: 'object.items' }, { in: [{ var: '' }, { input: 'parameters.blockd' }] }] }),
        { name: 's', rule: { and: [{ exists: 'parameters.limit' }, { missing: ['parameters.limits', 'parameters.extra'] }] }, message: 'over {{parameters.limits.cpu}}' },
        { name: 't', rule: { get: [{ var: 'parameters.limits' }, 'storage'] }, message: 'm' },
      ],
      schema,
      [{ name: 'u', patch: [{ op: 'add', path: '/metadata/labels/team', value: '{{parameters.team}}' }] }],
    );
    expect(problems.map((p) => [p.path, p.message.split(',')[0]])).toEqual([
      ['/spec/validate/0/rule/all/1/in/1/input', 'reads parameters.blockd'],
      ['/spec/validate/1/rule/and/0/exists', 'reads parameters.limit'],
      ['/spec/validate/1/rule/and/1/missing', 'reads parameters.extra'],
      ['/spec/validate/1/message', 'reads parameters.limits.cpu'],
      ['/spec/validate/2/rule/get', 'reads parameters.limits.storage'],
      ['/spec/mutate/0/patch/0/value', 'reads parameters.team'],
    ]);
  });

  it('follows allOf, anyOf, oneOf and local $ref', () => {
    const combined = {
      definitions: { limits: { type: 'object', properties: { cpu: { type: 'string' } } } },
      allOf: [{ type: 'object', properties: { a: { type: 'string' } } }, { properties: { limits: { $ref: '#/definitions/limits' } } }],
    };
    expect(() => load(policy(combined, [rule({ and: [{ var: 'parameters.a' }, { var: 'parameters.limits.cpu' }] })]))).not.toThrow();
    expect(problemsOf(() => load(policy(combined, [rule({ var: 'parameters.limits.gpu' })]))).map((p) => p.code)).toEqual(['UNKNOWN_PARAMETER']);
  });

  it('lets a schema opt out where it allows undeclared names', () => {
    const read = [rule({ var: 'parameters.anything.below' })];
    for (const open of [
      undefined,
      { type: 'object' },
      { type: 'object', additionalProperties: true, properties: { blocked: {} } },
      { type: 'object', additionalProperties: { type: 'object' }, properties: { blocked: {} } },
      { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { blocked: {} } },
      { type: 'object', patternProperties: { '^any': {} }, properties: { blocked: {} } },
    ]) {
      expect(() => load(policy(open, read)), JSON.stringify(open)).not.toThrow();
    }
  });

  it('does not count reads of the whole parameters object, computed paths or loop items', () => {
    const rules = [
      rule({ var: 'parameters' }),
      { name: 's', rule: { var: { cat: ['parameters.', { var: 'object.key' }] } }, message: 'm' },
      { name: 't', rule: { some: [{ var: 'object.items' }, { var: 'parameters.x' }] }, message: 'm' },
    ];
    expect(() => load(policy(schema, rules))).not.toThrow();
  });

  it('reports a constraint kind\'s reads once, at its PolicyTemplate', () => {
    const yaml = `
apiVersion: verdict.dev/v1
kind: PolicyTemplate
metadata: {name: t}
spec:
  kind: Limits
  parametersSchema: {type: object, properties: {limit: {type: string}}}
  validate: [{name: r, rule: {var: parameters.limt}, message: m}]
---
kind: Limits
metadata: {name: a}
spec: {parameters: {limit: 1Gi}}
`;
    expect(problemsOf(() => load(yaml)).map((p) => [p.document, p.name, p.code])).toEqual([[0, 'PolicyTemplate/t', 'UNKNOWN_PARAMETER']]);
  });

  it('leaves compileLogic alone: plain json-logic has no schema', () => {
    expect(compileLogic({ var: 'parameters.whatever' }).apply({ parameters: { whatever: 1 } })).toBe(1);
  });
});
