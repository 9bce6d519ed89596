import { describe, expect, it } from 'vitest';
import { matchLabelSelector, parseLabelSelector, formatLabelSelector, SelectorError } from '@verdict/core';

describe('parseLabelSelector', () => {
  it('parses the kubectl string form into requirements sorted by key', () => {
    expect(parseLabelSelector('x=a,env in (prod,staging),!legacy')).toEqual({
      matchExpressions: [
        { key: 'env', operator: 'In', values: ['prod', 'staging'] },
        { key: 'legacy', operator: 'DoesNotExist' },
        { key: 'x', operator: 'In', values: ['a'] },
      ],
    });
  });

  it('rejects a trailing comma with the position of the problem', () => {
    expect(() => parseLabelSelector('x=a,')).toThrow(SelectorError);
  });

  it('round-trips through the string form', () => {
    expect(formatLabelSelector('x in (b,a),y!=c,!z')).toBe('x in (a,b),y!=c,!z');
  });
});

describe('matchLabelSelector', () => {
  it('treats NotIn as true when the key is absent', () => {
    expect(matchLabelSelector({ matchExpressions: [{ key: 'team', operator: 'NotIn', values: ['system'] }] }, {})).toBe(true);
  });
});
