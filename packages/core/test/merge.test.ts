import { describe, expect, it } from 'vitest';
import { mergeParameters, VerdictError } from '@verdict/core';

describe('mergeParameters', () => {
  it('merges objects key by key and replaces scalars', () => {
    expect(mergeParameters({ a: 1, nested: { x: 1, y: 2 } }, { b: 2, nested: { y: 3 } })).toEqual({ a: 1, b: 2, nested: { x: 1, y: 3 } });
  });

  it('deletes a key given null (JSON Merge Patch)', () => {
    expect(mergeParameters({ a: 1, b: { c: 2, d: 3 } }, { a: null, b: { c: null } })).toEqual({ b: { d: 3 } });
  });

  it('unites arrays of scalars in order: base first, then new values', () => {
    expect(mergeParameters({ r: ['internal', 'gcr.io'] }, { r: ['gcr.io', 'hub.docker.io', 'hub.docker.io'] })).toEqual({ r: ['internal', 'gcr.io', 'hub.docker.io'] });
  });

  it('replaces arrays of objects by default', () => {
    expect(mergeParameters({ p: [{ name: 'a' }] }, { p: [{ name: 'b' }] })).toEqual({ p: [{ name: 'b' }] });
  });

  it('applies per-path strategies: replace, append, union and mergeByKey', () => {
    const base = { list: ['a', 'b'], more: ['a'], objs: [{ n: 1 }], ports: [{ name: 'http', port: 80 }, { name: 'ssh', port: 22 }] };
    const override = { list: ['c'], more: ['a', 'b'], objs: [{ n: 1 }, { n: 2 }], ports: [{ name: 'http', port: 8080 }, { name: 'dns', port: 53 }] };
    expect(mergeParameters(base, override, { '/list': 'replace', '/more': 'append', '/objs': 'union', '/ports': { mergeByKey: 'name' } })).toEqual({
      list: ['c'],
      more: ['a', 'a', 'b'],
      objs: [{ n: 1 }, { n: 2 }],
      ports: [{ name: 'http', port: 8080 }, { name: 'ssh', port: 22 }, { name: 'dns', port: 53 }],
    });
  });

  it('matches * in a rule path against any key', () => {
    expect(mergeParameters({ teams: { a: { regs: ['x'] } } }, { teams: { a: { regs: ['y'] } } }, { '/teams/*/regs': 'replace' })).toEqual({ teams: { a: { regs: ['y'] } } });
  });

  it('replaces a whole object at a replace path', () => {
    expect(mergeParameters({ o: { a: 1 } }, { o: { b: 2 } }, { '/o': 'replace' })).toEqual({ o: { b: 2 } });
  });

  it('never modifies its inputs', () => {
    const base = { a: { b: [1] } };
    const override = { a: { b: [2], c: 1 } };
    mergeParameters(base, override);
    expect(base).toEqual({ a: { b: [1] } });
    expect(override).toEqual({ a: { b: [2], c: 1 } });
  });

  it('refuses __proto__, constructor and prototype keys in either side', () => {
    for (const side of ['base', 'override'] as const) {
      const hostile = JSON.parse('{"x": {"__proto__": {"polluted": true}}}');
      const call = () => (side === 'base' ? mergeParameters(hostile, {}) : mergeParameters({}, hostile));
      expect(call).toThrow(VerdictError);
      try {
        call();
      } catch (error) {
        expect(error).toMatchObject({ code: 'FORBIDDEN_KEY', path: '/x/__proto__' });
      }
    }
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(() => mergeParameters({}, { constructor: 1 })).toThrow(/not allowed/);
  });

  it('rejects an unknown strategy with INVALID_MERGE', () => {
    expect(() => mergeParameters({}, {}, { '/a': 'concat' as 'append' })).toThrow(expect.objectContaining({ code: 'INVALID_MERGE' }));
  });

  it('rejects parameters that are not an object', () => {
    expect(() => mergeParameters({}, ['a'])).toThrow(expect.objectContaining({ code: 'INVALID_MERGE' }));
  });
});
