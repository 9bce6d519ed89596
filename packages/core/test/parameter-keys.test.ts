/**
 * A key that parametersSchema does not declare, in the defaults or in a
 * parameterSelection entry, is a load error with a did-you-mean: a misspelt
 * override used to load, and its team silently got the defaults.
 */
import { describe, expect, it } from 'vitest';
import { load, problemsOf } from './helpers.js';

const yaml = (schema: string, parameters: string, entry: string) => [
  'apiVersion: verdict.dev/v1',
  'kind: Policy',
  'metadata: {name: registries}',
  'spec:',
  `  parametersSchema: ${schema}`,
  '  validate:',
  '    - name: registry',
  '      rule: {or: [{var: parameters.anyRegistry}, {starts_with: [{var: object.image}, "internal/"]}]}',
  '      message: internal images only',
  `  parameters: ${parameters}`,
  '  parameterSelection:',
  '    - match: {labels: {path: namespaceLabels, matchLabels: {team: platform}}}',
  `      parameters: ${entry}`,
].join('\n');
const SCHEMA = '{type: object, properties: {anyRegistry: {type: boolean}, limits: {type: object, properties: {memory: {type: string}}}}}';

describe('parameter keys the schema does not declare', () => {
  it('refuses a misspelt key in an override entry, at its line, with a did-you-mean', () => {
    const [problem, ...rest] = problemsOf(() => load(yaml(SCHEMA, '{anyRegistry: false}', '{anyRegsitry: true}')));
    expect(rest).toEqual([]);
    expect(problem).toMatchObject({ code: 'UNKNOWN_PARAMETER', path: '/spec/parameterSelection/0/parameters/anyRegsitry', line: 13, source: 'test.yaml' });
    expect(problem!.message).toBe('parameterSelection entry 0: sets parameters.anyRegsitry, but parametersSchema declares no "anyRegsitry"; did you mean "anyRegistry"? ' +
      '(declared: anyRegistry, limits); declare it in parametersSchema, or set additionalProperties: true there to allow names it does not list');
  });

  it('refuses a misspelt key in the defaults, and nested keys as deep as the schema declares them', () => {
    const problems = problemsOf(() => load(yaml(SCHEMA, '{anyRegistry: false, limits: {memroy: 1Gi}}', '{anyRegistry: true}')));
    expect(problems.map((p) => [p.code, p.path])).toEqual([['UNKNOWN_PARAMETER', '/spec/parameters/limits/memroy']]);
    expect(problems[0]!.message).toMatch(/sets parameters\.limits\.memroy, but parametersSchema declares no "memroy" under parameters\.limits; did you mean "memory"\?/);
  });

  it('loads when the schema allows undeclared names (additionalProperties: true), and when there is no schema', () => {
    const open = '{type: object, additionalProperties: true, properties: {anyRegistry: {type: boolean}}}';
    const set = load(yaml(open, '{anyRegistry: false}', '{anyRegistry: true, note: platform}'));
    expect(set.evaluate({ object: { image: 'docker.io/x' }, namespaceLabels: { team: 'platform' } }).allowed).toBe(true);
    expect(set.evaluate({ object: { image: 'docker.io/x' }, namespaceLabels: { team: 'web' } }).allowed).toBe(false);
  });
});
