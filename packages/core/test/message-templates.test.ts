import { compilePolicies, compileTemplate } from '@verdict/core';
import { describe, expect, it } from 'vitest';

/** A value nested `depth` levels: `{"a":{"a":…{"a":1}}}`, built without recursion. */
function deep(depth: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
}

function setup(message: string, options?: Parameters<typeof compilePolicies>[1]) {
  const set = compilePolicies([{ apiVersion: 'verdict.dev/v1', kind: 'Policy', metadata: { name: 'p' }, spec: { validate: [{ name: 'r', rule: false, message }] } }], options);
  return {
    message: (object: unknown) => set.evaluate({ object }).violations[0]?.message,
    cost: (object: unknown) => set.evaluate({ object }).cost!,
    evaluate: (object: unknown) => set.evaluate({ object }),
  };
}

describe('message templates rendering objects and lists', () => {
  it('render objects and lists inside a list as compact JSON, not flattened or [object Object]', () => {
    const { message } = setup('got {{object.v}}');
    expect(message({ v: [[1, 2], { k: [3, 'x'] }, 'plain', null] })).toBe('got [1,2], {"k":[3,"x"]}, plain, null');
    expect(message({ v: { list: [{ a: 1 }, [true]], s: 'q"uote' } })).toBe('got {"list":[{"a":1},[true]],"s":"q\\"uote"}');
  });

  it('render a value nested far deeper than the JavaScript stack as truncated JSON', () => {
    const { message } = setup('got {{object.v}}');
    const text = message({ v: deep(200_000) })!;
    expect(text).not.toContain('[object Object]');
    expect(text.startsWith('got {"a":{"a":{"a":')).toBe(true);
    expect(text.endsWith('…(truncated)')).toBe(true);
    expect(text.length).toBeLessThanOrEqual('got '.length + 1024 + '…(truncated)'.length);
  });

  it('cut a large object or a long list after 1024 characters with a marker', () => {
    const { message } = setup('{{object.v}}');
    const big = Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`key${i}`, i]));
    const text = message({ v: big })!;
    expect(text.endsWith('…(truncated)')).toBe(true);
    expect(text.length).toBe(1024 + '…(truncated)'.length);
    expect(text.startsWith('{"key0":0,"key1":1,')).toBe(true);
    const list = message({ v: Array.from({ length: 100_000 }, (_, i) => `item${i}`) })!;
    expect(list.startsWith('item0, item1, ')).toBe(true);
    expect(list.length).toBe(1024 + '…(truncated)'.length);
    expect(message({ v: { small: true } })).toBe('{"small":true}');
  });

  it('charge the JSON built to the evaluation cost, and stop at the budget', () => {
    const { cost } = setup('{{object.v}}');
    const nested = (n: number) => ({ v: Array.from({ length: n }, (_, i) => ({ i })) });
    // Each element renders as {"i":N} plus a separator: about ten characters, one unit per ten characters.
    expect(cost(nested(60)) - cost(nested(1))).toBeGreaterThanOrEqual(50);
    const tight = setup('{{object.v}}', { costBudget: 20 });
    expect(tight.evaluate(nested(100)).errors.map((e) => e.code)).toEqual(['BUDGET_EXCEEDED']);
  });

  it('the json and join filters are bounded the same way and never overflow the stack', () => {
    const t = compileTemplate('{{ v | json }}');
    const out = t.render(() => deep(200_000));
    expect(out.startsWith('{"a":{"a":')).toBe(true);
    expect(out.endsWith('…(truncated)')).toBe(true);
    expect(t.value(() => ({ k: [1, { x: null }] }))).toBe('{"k":[1,{"x":null}]}');
    expect(compileTemplate('{{ v | join " | " }}').render(() => [{ a: 1 }, ['b'], 'c'])).toBe('{"a":1} | ["b"] | c');
    // A long separator passes the limit before an element: the element adds nothing past it.
    const charged: number[] = [];
    const joined = compileTemplate(`{{ v | join "${'-'.repeat(600)}" }}`).render(() => ['a', 'b', 'x'.repeat(100_000)], { spendText: (n) => charged.push(n) });
    expect(joined).toBe(`a${'-'.repeat(600)}b${'-'.repeat(422)}…(truncated)`);
    // Built and charged: at most the limit, one separator and one character (not the 100,000 of the last element).
    expect(charged).toHaveLength(1);
    expect(charged[0]).toBeLessThanOrEqual(1024 + 600 + 1);
  });

  it('render patch values the same way, charged to the evaluation', () => {
    const document = { apiVersion: 'verdict.dev/v1', kind: 'Policy', metadata: { name: 'm' }, spec: { mutate: [{ name: 'm', patch: [{ op: 'add', path: '/note', value: 'spec {{object.spec}}' }] }] } };
    const set = compilePolicies([document]);
    const decision = set.evaluate({ object: { spec: deep(200_000) } });
    expect(decision.errors).toEqual([]);
    const note = decision.patch![0]!.value as string;
    expect(note.startsWith('spec {"a":{"a":')).toBe(true);
    expect(note.endsWith('…(truncated)')).toBe(true);
    const tight = compilePolicies([document], { costBudget: 30 });
    expect(tight.evaluate({ object: { spec: Array.from({ length: 100 }, (_, i) => ({ i })) } }).errors.map((e) => e.code)).toEqual(['BUDGET_EXCEEDED']);
  });
});
