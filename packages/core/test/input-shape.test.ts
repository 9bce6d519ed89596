/**
 * An adapter that knows the shape of its input (`inputShape`) refuses, at load,
 * a rule, selector or message that reads a path the shape does not have, with
 * a did-you-mean; open parts of the shape accept any path below them.
 */
import { describe, expect, it } from 'vitest';
import { checkInputReads, type InputShape } from '@verdict/core';
import { load, problemsOf } from './helpers.js';

const SHAPE: InputShape = {
  title: 'the job input',
  type: 'object',
  properties: {
    job: { type: 'object', properties: { name: {}, image: {} } },
    tags: { type: 'array', items: { type: 'string' } },
    variables: { type: 'object', additionalProperties: true },
  },
};

const policy = (spec: Record<string, unknown>) => JSON.stringify({ apiVersion: 'verdict.dev/v1', kind: 'Policy', metadata: { name: 'p' }, spec });
const rule = (r: unknown, message = 'no') => ({ validate: [{ name: 'r', rule: r, message }] });

describe('reads checked against the input shape', () => {
  it('refuses a misspelt field in a rule, with the path, the reading expression and a did-you-mean', () => {
    const [problem, ...rest] = problemsOf(() => load(policy(rule({ '!': { glob: ['**/*:latest', { var: 'job.imag' }] } })), { inputShape: SHAPE }));
    expect(rest).toEqual([]);
    expect(problem).toMatchObject({ code: 'UNKNOWN_INPUT_PATH', path: '/spec/validate/0/rule/!/glob/1/var', source: 'test.yaml', line: 1 });
    expect(problem!.message).toBe('reads job.imag, but the job input has no "imag" under job; did you mean "image"? (it has: name, image)');
  });

  it('checks every way of reading: input, exists, missing, get and a message template', () => {
    const problems = problemsOf(() => load(policy({
      validate: [
        { name: 'a', rule: { and: [{ exists: 'job.nmae' }, { input: 'job.imgae' }, { missing: ['tag'] }, { get: [{ var: 'job' }, 'stage'] }] }, message: 'image {{job.iamge}}' },
      ],
    }), { inputShape: SHAPE }));
    expect(problems.map((p) => [p.path, p.message.split(',')[0]])).toEqual([
      ['/spec/validate/0/rule/and/0/exists', 'reads job.nmae'],
      ['/spec/validate/0/rule/and/1/input', 'reads job.imgae'],
      ['/spec/validate/0/rule/and/2/missing', 'reads tag'],
      ['/spec/validate/0/rule/and/3/get', 'reads job.stage'],
      ['/spec/validate/0/message', 'reads job.iamge'],
    ]);
    expect(problems.every((p) => p.code === 'UNKNOWN_INPUT_PATH')).toBe(true);
    expect(problems[2]!.message).toContain('did you mean "tags"?');
  });

  it('checks a when selector in spec.match and in a parameterSelection entry', () => {
    const problems = problemsOf(() => load(policy({
      match: { when: { '==': [{ var: 'jbo.name' }, 'x'] } },
      parameterSelection: [{ match: { when: { glob: ['*', { var: 'job.imag' }] } }, parameters: {} }],
      ...rule(true),
    }), { inputShape: SHAPE }));
    expect(problems.map((p) => [p.code, p.path, p.message])).toEqual([
      ['UNKNOWN_INPUT_PATH', '/spec/match/when/==/0/var', 'reads jbo.name, but the job input has no "jbo"; did you mean "job"? (it has: job, tags, variables)'],
      ['UNKNOWN_INPUT_PATH', '/spec/parameterSelection/0/match/when/glob/1/var', 'reads job.imag, but the job input has no "imag" under job; did you mean "image"? (it has: name, image)'],
    ]);
  });

  it('accepts declared paths, open parts, list elements, parameters, elements and item-scope reads', () => {
    const set = load(policy({
      parametersSchema: { type: 'object', properties: { allowed: { type: 'array' } } },
      parameters: { allowed: ['a'] },
      validate: [
        { name: 'a', rule: { and: [{ var: 'job.image' }, { var: 'variables.ANY_THING' }, { var: 'tags.0' }, { var: 'parameters.allowed' }, { some: [{ var: 'tags' }, { var: 'whatever' }] }] }, message: '{{job.name}} {{variables.X}}' },
        { name: 'b', forEach: { var: 'tags' }, rule: { in: [{ var: 'element' }, { var: 'parameters.allowed' }] }, message: '{{element}}' },
      ],
    }), { inputShape: SHAPE });
    expect(set.evaluate({ job: { image: 'i', name: 'n' }, tags: ['a'], variables: { ANY_THING: 'x' } }).allowed).toBe(false);
  });

  it('checks the paths of fields and labels selectors', () => {
    const problems = problemsOf(() => load(policy({
      match: { all: [{ fields: [{ path: 'job.nmae', values: ['build'] }] }, { labels: { path: 'varaibles', matchLabels: { A: 'b' } } }] },
      ...rule(true),
    }), { inputShape: SHAPE }));
    expect(problems.map((p) => [p.code, p.message.split(';')[0]])).toEqual([
      ['UNKNOWN_INPUT_PATH', 'reads job.nmae, but the job input has no "nmae" under job'],
      ['UNKNOWN_INPUT_PATH', 'reads varaibles, but the job input has no "varaibles"'],
    ]);
    expect(() => load(policy({ match: { labels: { path: 'variables', matchLabels: { A: 'b' } } }, ...rule(true) }), { inputShape: SHAPE })).not.toThrow();
  });

  it('checks nothing without a shape', () => {
    expect(() => load(policy(rule({ var: 'job.imag' })))).not.toThrow();
  });

  it('is callable by an adapter on its own strings that read the input', () => {
    expect(checkInputReads(SHAPE, [{ path: ['job', 'image'], at: '/a' }, { path: ['tag'], at: '/b' }, { path: ['variables', 'X', 'y'], at: '/c' }])).toEqual([
      { at: '/b', message: 'reads tag, but the job input has no "tag"; did you mean "tags"? (it has: job, tags, variables)' },
    ]);
    expect(checkInputReads(undefined, [{ path: ['anything'], at: '' }])).toEqual([]);
  });
});
