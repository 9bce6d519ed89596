import { describe, expect, it } from 'vitest';
import { compilePolicies, type MatchDialect, type SelectionKey } from '@verdict/core';

/**
 * A dialect whose `team` selector answers from `input.team` alone and says so with a key;
 * `calls` counts how often its tests really ran.
 */
function teamDialect(options: { key?: SelectionKey; throwFor?: string } = {}) {
  const calls = { count: 0 };
  const key: SelectionKey = options.key ?? ((input) => [(input as { team?: unknown }).team]);
  const dialect: MatchDialect = {
    name: 'teams',
    keys: ['team'],
    compile: (block) => ({
      where: '/team',
      describe: `team is ${String(block['team'])}`,
      key,
      test: (input) => {
        calls.count++;
        const team = (input as { team?: unknown }).team;
        if (team === options.throwFor) throw new Error(`no team record for ${String(team)}`);
        return team === block['team'];
      },
    }),
  };
  return { dialect, calls };
}

const TEMPLATE = {
  apiVersion: 'verdict.dev/v1',
  kind: 'PolicyTemplate',
  metadata: { name: 'limit' },
  spec: { kind: 'Limit', validate: [{ name: 'under', rule: { '<=': [{ var: 'size' }, { var: 'parameters.max' }] }, message: 'too big' }] },
};

function limit(spec: Record<string, unknown> = {}) {
  return {
    kind: 'Limit',
    metadata: { name: 'limit' },
    spec: {
      parameters: { max: 1 },
      parameterSelection: [
        { match: { team: 'a' }, parameters: { max: 10 } },
        { match: { team: 'b' }, parameters: { max: 20 } },
      ],
      ...spec,
    },
  };
}

describe('remembered matching and parameterSelection (selection keys)', () => {
  it('match a policy once per key, with the same decision as the first time', () => {
    const { dialect, calls } = teamDialect();
    const set = compilePolicies([TEMPLATE, limit()], { dialects: [dialect] });
    const first = set.evaluate({ team: 'b', size: 15 });
    expect(first.allowed).toBe(true);
    expect(first.trace[0]!.selection!.matched).toEqual([{ index: 1 }]);
    const ran = calls.count;
    expect(ran).toBe(2); // entry 0, then entry 1
    const again = set.evaluate({ team: 'b', size: 25 });
    expect(calls.count).toBe(ran);
    expect(again.allowed).toBe(false);
    expect(again.trace[0]!.parameters).toEqual({ max: 20 });
    expect(set.evaluate({ team: 'b', size: 15 })).toEqual(first);
  });

  it('match again for another key, and keep several keys', () => {
    const { dialect, calls } = teamDialect();
    const set = compilePolicies([TEMPLATE, limit()], { dialects: [dialect] });
    for (const team of ['a', 'b', 'c']) set.evaluate({ team, size: 5 });
    const ran = calls.count;
    expect(set.evaluate({ team: 'a', size: 15 }).allowed).toBe(false);
    expect(set.evaluate({ team: 'c', size: 5 }).allowed).toBe(false);
    expect(set.evaluate({ team: 'c', size: 1 }).trace[0]!.selection!.outcome).toBe('no-match-proceed');
    expect(calls.count).toBe(ran);
    // More keys than a policy keeps: older ones are matched again, with the same answers.
    for (let i = 0; i < 20; i++) expect(set.evaluate({ team: `t${i}`, size: 1 }).allowed).toBe(true);
    expect(set.evaluate({ team: 'a', size: 10 }).trace[0]!.parameters).toEqual({ max: 10 });
  });

  it('remember a policy whose match fails, and its mismatch', () => {
    const { dialect, calls } = teamDialect();
    const set = compilePolicies([TEMPLATE, limit({ match: { team: 'a' } })], { dialects: [dialect] });
    const first = set.evaluate({ team: 'b', size: 99 });
    expect(first.trace[0]).toMatchObject({ matched: false, mismatch: { at: '/spec/match/team', selector: 'team is a' } });
    const ran = calls.count;
    expect(set.evaluate({ team: 'b', size: 99 })).toEqual(first);
    expect(calls.count).toBe(ran);
  });

  it('never remember a match that threw: the error is reported each time', () => {
    const { dialect, calls } = teamDialect({ throwFor: 'x' });
    const set = compilePolicies([TEMPLATE, limit()], { dialects: [dialect] });
    for (let i = 1; i <= 2; i++) {
      const d = set.evaluate({ team: 'x', size: 1 });
      expect(d.errors).toEqual([expect.objectContaining({ code: 'MATCH_ERROR', message: 'unable to match parameterSelection: no team record for x' })]);
      expect(calls.count).toBe(i);
    }
  });

  it('match as usual while explaining (the trace lists every mismatch), when the key is undefined, or when it throws', () => {
    const { dialect, calls } = teamDialect();
    const set = compilePolicies([TEMPLATE, limit()], { dialects: [dialect] });
    set.evaluate({ team: 'b', size: 1 });
    const ran = calls.count;
    const explained = set.evaluate({ team: 'b', size: 1 }, { explain: true });
    expect(explained.trace[0]!.selection!.mismatches).toEqual([{ index: 0, at: '/spec/parameterSelection/0/match/team', selector: 'team is a' }]);
    expect(calls.count).toBe(ran + 2);

    for (const key of [() => undefined, () => { throw new Error('unreadable'); }] as SelectionKey[]) {
      const other = teamDialect({ key });
      const unkeyed = compilePolicies([TEMPLATE, limit()], { dialects: [other.dialect] });
      expect(unkeyed.evaluate({ team: 'b', size: 1 }).trace[0]!.parameters).toEqual({ max: 20 });
      expect(unkeyed.evaluate({ team: 'b', size: 1 }).trace[0]!.parameters).toEqual({ max: 20 });
      expect(other.calls.count).toBe(4);
    }
  });

  it('match every time when one selector of the policy has no key (core keys read the whole input)', () => {
    const { dialect, calls } = teamDialect();
    const set = compilePolicies([TEMPLATE, limit({ match: { team: 'b', fields: { path: 'zone', exclude: ['z2'] } } })], { dialects: [dialect] });
    expect(set.evaluate({ team: 'b', zone: 'z1', size: 1 }).trace[0]!.parameters).toEqual({ max: 20 });
    expect(calls.count).toBe(3); // the match and two entries
    expect(set.evaluate({ team: 'b', zone: 'z1', size: 1 }).trace[0]!.parameters).toEqual({ max: 20 });
    expect(calls.count).toBe(6);
    expect(set.evaluate({ team: 'b', zone: 'z2', size: 1 }).trace[0]!.mismatch).toEqual({ at: '/spec/match/fields', selector: 'zone not in (z2)' });
  });

  it('remember the entries MatchAny merged', () => {
    const { dialect, calls } = teamDialect({ key: (input) => [(input as { team?: unknown }).team] });
    const set = compilePolicies([TEMPLATE, limit({
      parameterSelectionBehavior: 'MatchAny',
      parameters: { max: 1, extra: [] },
      parameterSelection: [{ match: { team: 'a' }, parameters: { max: 10 } }, { match: {}, parameters: { extra: ['x'] } }],
    })], { dialects: [dialect] });
    const first = set.evaluate({ team: 'a', size: 5 });
    expect(first.trace[0]!.parameters).toEqual({ max: 10, extra: ['x'] });
    const ran = calls.count;
    expect(set.evaluate({ team: 'a', size: 5 })).toEqual(first);
    expect(calls.count).toBe(ran);
  });
});
