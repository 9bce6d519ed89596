import { describe, expect, it } from 'vitest';
import type { Io } from '@verdict/cli';
import { jsonItemOffsets, listItems, parseManifests } from '../src/commands/audit-parse.js';
import { progressLine } from '../src/commands/audit-progress.js';

const LIMITS = { maxDocumentBytes: 1 << 20 };
const parse = (text: string, json = false) => parseManifests('f', text, LIMITS, json);
const lines = (text: string, json = false) => parse(text, json).manifests.map((m) => m.line);

describe('parseManifests', () => {
  it('gives each YAML document the line its content starts on, skipping empty documents and comments', () => {
    const text = '# header\n\napiVersion: v1\nkind: A\n---\n---\n# comment\nkind: B\n...\n---\nkind: C\n';
    expect(parse(text).manifests.map((m) => [m.line, (m.value as { kind: string }).kind])).toEqual([[3, 'A'], [8, 'B'], [11, 'C']]);
  });

  it('splits a kind: List and a top-level list into their items, each with its own line', () => {
    expect(lines('apiVersion: v1\nkind: List\nitems:\n- kind: A\n- kind: B\n  x: 1\n- kind: C\n')).toEqual([4, 5, 7]);
    expect(lines('- kind: A\n-\n  kind: B\n')).toEqual([1, 3]);
    expect(lines('{"kind": "PodList", "items": [\n {"kind": "Pod"},\n\n {"kind": "Pod"}]}')).toEqual([2, 4]);
    expect(lines('[\n  {"a": 1},\n  {"b": [1, 2]}\n]')).toEqual([2, 3]);
  });

  it('reports a syntax error with line and column, and still reads the other documents', () => {
    const parsed = parse('kind: A\n---\nkind: [B\nx: 1\n---\nkind: C\n');
    expect(parsed.manifests.map((m) => m.line)).toEqual([1, 6]);
    expect(parsed.problems).toEqual([{ file: 'f', line: 4, column: 1, message: expect.stringMatching(/flow sequence/i) as string }]);
  });

  it('reports invalid JSON with its line, from V8\'s position or the YAML parser', () => {
    expect(parse('{\n  "a": 1,\n  "b": ]\n}', true).problems).toEqual([{ file: 'f', line: 3, column: expect.any(Number) as number, message: expect.stringMatching(/^invalid JSON: /) as string }]);
    expect(parse('[1,\n2', true).problems[0]).toMatchObject({ line: expect.any(Number) as number, message: expect.stringMatching(/^invalid JSON: /) as string });
  });

  it('reads YAML flow style that starts like JSON as YAML, unless the file must be JSON', () => {
    expect(parse('{kind: A, metadata: {name: a}}').manifests[0]!.value).toEqual({ kind: 'A', metadata: { name: 'a' } });
    expect(parse('{kind: A}', true).problems).toHaveLength(1);
  });

  it('refuses documents over the size limit and alias bombs, without reading them', () => {
    const bomb = ['a: &a [x, x, x, x, x, x, x, x, x, x]', ...Array.from({ length: 8 }, (_, i) => `${'bcdefghi'[i]}: &${'bcdefghi'[i]} [${Array(10).fill(`*${'abcdefgh'[i]}`).join(', ')}]`)].join('\n');
    expect(parse(bomb).problems[0]!.message).toMatch(/alias/i);
    const big = parseManifests('f', `kind: A\nx: ${'y'.repeat(200)}\n---\nkind: B\n`, { maxDocumentBytes: 100 }, false);
    expect(big.manifests.map((m) => (m.value as { kind: string }).kind)).toEqual(['B']);
    expect(big.problems).toEqual([{ file: 'f', line: 1, message: expect.stringMatching(/^the document is 2\d\d bytes, over the limit of 100/) as string }]);
    expect(parseManifests('f', `{"x": "${'y'.repeat(200)}"}`, { maxDocumentBytes: 100 }, true).problems).toHaveLength(1);
  });

  it('turns nesting too deep to read into a problem, not a crash', () => {
    const deep = `${'['.repeat(20_000)}${']'.repeat(20_000)}`;
    const parsed = parse(deep, true);
    expect(parsed.manifests.length + parsed.problems.length).toBeGreaterThan(0);
    expect(parse(`a: ${'['.repeat(5_000)}`).problems.length).toBeGreaterThan(0);
  });

  it('keeps keys such as __proto__ as plain data', () => {
    const value = parse('__proto__: {polluted: true}\nkind: A\n').manifests[0]!.value as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(Object.keys(value)).toContain('__proto__');
  });
});

describe('jsonItemOffsets', () => {
  it('finds the items of the top-level "items" array, whatever the strings and nesting hold', () => {
    const text = '{"kind": "List", "x": {"items": [9]}, "s": "[\\"items\\": [", "items": [ {"a": "]"}, [1, [2]], "str", 3, null ]}';
    const offsets = jsonItemOffsets(text);
    expect(offsets.map((o) => text.slice(o, o + 3))).toEqual(['{"a', '[1,', '"st', '3, ', 'nul']);
  });

  it('returns nothing for an empty list and keeps the last of repeated "items" keys', () => {
    expect(jsonItemOffsets('{"items": []}')).toEqual([]);
    expect(jsonItemOffsets('[]')).toEqual([]);
    const text = '{"items": [1], "items": [2, 3]}';
    expect(jsonItemOffsets(text).map((o) => text[o])).toEqual(['2', '3']);
  });
});

describe('listItems', () => {
  it('recognises kind: List and typed lists such as PodList, nothing else', () => {
    expect(listItems({ kind: 'List', items: [1] })).toEqual([1]);
    expect(listItems({ kind: 'PodList', items: [] })).toEqual([]);
    expect(listItems({ kind: 'Pod', items: [1] })).toBeUndefined();
    expect(listItems({ kind: 'List', items: 'x' })).toBeUndefined();
  });
});

describe('progressLine', () => {
  function setup(isTTY: boolean) {
    let stderr = '';
    let clock = 0;
    const io = { stderr: { write: (s: string) => (stderr += s), isTTY } } as unknown as Io;
    const progress = progressLine(io, () => clock);
    return { progress, tick: (ms: number) => (clock += ms), err: () => stderr };
  }

  it('stays silent for the first second, then redraws at most every 100 ms and erases itself at the end', () => {
    const { progress, tick, err } = setup(true);
    progress.update('a');
    tick(1000);
    progress.update('b');
    tick(50);
    progress.update('c');
    tick(60);
    progress.update('d');
    progress.done();
    expect(err()).toBe('\r\u001b[Kb\r\u001b[Kd\r\u001b[K');
  });

  it('writes nothing when stderr is not a terminal', () => {
    const { progress, tick, err } = setup(false);
    tick(5000);
    progress.update('a');
    progress.done();
    expect(err()).toBe('');
  });
});
