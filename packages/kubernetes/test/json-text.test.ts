import { describe, expect, it } from 'vitest';
import { jsonText, writeJson } from '../src/json-text.js';

function nested(depth: number): unknown {
  let o: unknown = { leaf: 'end' };
  for (let i = 0; i < depth; i++) o = i % 2 === 0 ? { x: o, n: i } : [o, null];
  return o;
}

describe('the JSON text of a patch', () => {
  it('is the text JSON.stringify gives, for any JSON value', () => {
    const values: unknown[] = [null, true, false, 0, -1.5, 1e21, '', 'a"b\\c\u0000\ud800', [], {}, [[], {}, [1, [2, [3]]]],
      { a: { b: [1, 'x', null, { c: {} }] }, '': 1, 'k"ey': ['v'] }, { op: 'add', path: '/metadata/labels/a~1b', value: { nested: [{ deep: true }] } }];
    for (const value of values) {
      expect(writeJson(value)).toBe(JSON.stringify(value));
      expect(jsonText(value)).toBe(JSON.stringify(value));
    }
  });

  it('writes what JSON.stringify skips or replaces as it does: undefined members, non-finite numbers, toJSON', () => {
    const value = { a: undefined, b: [undefined, () => 1, Number.NaN, -0], c: new Date(0), d: 'é"\n\u2028' };
    expect(writeJson(value)).toBe(JSON.stringify(value));
    expect(() => writeJson({ big: 1n })).toThrow(TypeError);
  });

  it('is written for values nested deeper than JSON.stringify can go (100,000 levels)', () => {
    const deep = nested(100_000);
    expect(() => JSON.stringify(deep)).toThrow(RangeError);
    const text = jsonText(deep);
    expect(text.startsWith('[{"x":[{"x":')).toBe(true);
    expect(text.length).toBeGreaterThan(600_000);
    expect(text.endsWith(',"n":99998},null]')).toBe(true);
    expect(text).toContain('{"leaf":"end"}');
  });
});
