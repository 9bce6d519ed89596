import { describe, expect, it } from 'vitest';
import {
  compileLabelSelector, formatLabelSelector, labelKeyError, matchLabelSelector, parseLabelSelector, SelectorError, validateLabelSelector, type LabelSelector,
} from '@verdict/core';
import { labelValueError } from '../src/labels/requirements.js';

const matches = (selector: LabelSelector | string, labels: Record<string, string>) => matchLabelSelector(selector, labels);

describe('label selector matching (apimachinery Requirement.Matches)', () => {
  it.each([
    ['In', { team: 'a' }, true],
    ['In', { team: 'c' }, false],
    ['In', {}, false],
    ['NotIn', { team: 'c' }, true],
    ['NotIn', { team: 'a' }, false],
    ['NotIn', {}, true],
  ] as const)('%s over %j is %s', (operator, labels, expected) => {
    expect(matches({ matchExpressions: [{ key: 'team', operator, values: ['a', 'b'] }] }, labels)).toBe(expected);
  });

  it('Exists and DoesNotExist look at the key only', () => {
    expect(matches({ matchExpressions: [{ key: 'x', operator: 'Exists' }] }, { x: '' })).toBe(true);
    expect(matches({ matchExpressions: [{ key: 'x', operator: 'Exists' }] }, {})).toBe(false);
    expect(matches({ matchExpressions: [{ key: 'x', operator: 'DoesNotExist' }] }, {})).toBe(true);
    expect(matches({ matchExpressions: [{ key: 'x', operator: 'DoesNotExist' }] }, { x: 'y' })).toBe(false);
  });

  it('Gt and Lt compare as 64-bit integers and are false when the label does not parse', () => {
    const gt = { matchExpressions: [{ key: 'n', operator: 'Gt' as const, values: ['5'] }] };
    expect(matches(gt, { n: '6' })).toBe(true);
    expect(matches(gt, { n: '5' })).toBe(false);
    expect(matches(gt, { n: 'v6' })).toBe(false);
    expect(matches(gt, { n: '1.5' })).toBe(false);
    expect(matches(gt, { n: '9223372036854775808' })).toBe(false); // int64 overflow
    expect(matches(gt, { n: '9223372036854775807' })).toBe(true);
    expect(matches(gt, {})).toBe(false);
    expect(matches({ matchExpressions: [{ key: 'n', operator: 'Lt', values: ['5'] }] }, { n: '-3' })).toBe(true);
    expect(matches(gt, { n: `000${'0'.repeat(30)}7` })).toBe(true); // leading zeros, as Go's ParseInt
    expect(matches(gt, { n: '9'.repeat(1_000_000) })).toBe(false); // refused by length, never parsed
  });

  it('ANDs matchLabels and matchExpressions', () => {
    const sel = { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'env', operator: 'In' as const, values: ['prod'] }] };
    expect(matches(sel, { app: 'web', env: 'prod' })).toBe(true);
    expect(matches(sel, { app: 'web', env: 'dev' })).toBe(false);
  });

  it('matches everything with an empty or missing selector', () => {
    expect(matches({}, {})).toBe(true);
    expect(matches({ matchLabels: {}, matchExpressions: [] }, { a: 'b' })).toBe(true);
    expect(matchLabelSelector(undefined, {})).toBe(true);
    expect(matchLabelSelector(null, { a: 'b' })).toBe(true);
    expect(matches('', { a: 'b' })).toBe(true);
  });

  it('compares values case-sensitively', () => {
    expect(matches({ matchLabels: { env: 'Prod' } }, { env: 'prod' })).toBe(false);
  });

  it('requires every requirement on the same key to hold', () => {
    expect(matches('x=a,x=b', { x: 'a' })).toBe(false);
  });

  it('treats a label map that is missing as empty', () => {
    expect(matchLabelSelector('!legacy', undefined)).toBe(true);
    expect(matchLabelSelector('app=web', null)).toBe(false);
  });
});

describe('parseLabelSelector (the kubectl string form)', () => {
  it.each([
    ['x=a', 'x=a'],
    ['x==a', 'x=a'],
    ['x!=a', 'x!=a'],
    [' x = a , y = b ', 'x=a,y=b'],
    ['x in (b,a)', 'x in (a,b)'],
    ['x notin (a)', 'x!=a'],
    ['x', 'x'],
    ['!x', '!x'],
    ['x>1', 'x>1'],
    ['x<1', 'x<1'],
    ['notin=in', 'notin=in'],
    ['in in (in)', 'in=in'],
    ['x=', 'x='],
    ['x in ()', 'x='],
    ['x in (a,,b)', 'x in (,a,b)'],
    ['x in (,a)', 'x in (,a)'],
    ['x in (a,)', 'x in (,a)'],
    ['x in (a,a)', 'x=a'],
    ['b=1,a=2', 'a=2,b=1'],
    ['', ''],
    ['   ', ''],
    ['x\t=\ta', 'x=a'],
  ])('accepts %j', (text, canonical) => {
    expect(formatLabelSelector(text)).toBe(canonical);
  });

  it.each([
    ',', 'x=a,', ',x=a', 'x=a,,y=b', 'x in a', 'x in (a', 'x in (a b)', 'x=a||y=b', 'x>=1', '!x=a', 'x>a', 'x>', 'x=a b',
    'x in (a,,)', 'x=$y', 'a/b/c=d', 'x=' + 'v'.repeat(64), '-x=a', 'Example.com/x=a', 'x notin', '(x)', 'x!',
  ])('rejects %j like apimachinery', (text) => {
    expect(() => parseLabelSelector(text)).toThrow(SelectorError);
  });

  it('reports the position of the problem', () => {
    try {
      parseLabelSelector('a=b,c in (d');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(SelectorError);
      expect((error as SelectorError).code).toBe('INVALID_SELECTOR');
      expect((error as SelectorError).position).toBe(11);
      expect((error as Error).message).toMatch(/found "the end", expected "," or "\)"/);
    }
  });

  it('turns = into In and != into NotIn so the structured form matches the same labels', () => {
    const structured = parseLabelSelector('env!=dev,tier=web');
    expect(structured).toEqual({ matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['dev'] }, { key: 'tier', operator: 'In', values: ['web'] }] });
    for (const labels of [{ tier: 'web' }, { tier: 'web', env: 'dev' }, { env: 'prod' }]) {
      expect(matchLabelSelector(structured, labels)).toBe(matchLabelSelector('env!=dev,tier=web', labels));
    }
  });
});

describe('label key and value syntax (IsQualifiedName, IsValidLabelValue)', () => {
  it.each(['app', 'app.kubernetes.io/name', 'field.cattle.io/projectId', 'A_b-c.d', 'a'.repeat(63), `${'a'.repeat(253)}/x`])('accepts key %j', (key) => {
    expect(labelKeyError(key)).toBeUndefined();
  });

  it.each(['', '/x', 'a/', 'a/b/c', 'Example.com/x', '-a', 'a-', 'a'.repeat(64), `${'a'.repeat(254)}/x`, 'a b', 'ex_ample.com/x'])('rejects key %j', (key) => {
    expect(labelKeyError(key)).toBeTypeOf('string');
  });

  it.each(['', 'a', 'prod-1', 'A.b_c', 'v'.repeat(63)])('accepts value %j', (value) => {
    expect(labelValueError(value)).toBeUndefined();
  });

  it.each(['-a', 'a-', 'a b', 'v'.repeat(64), 'a/b'])('rejects value %j', (value) => {
    expect(labelValueError(value)).toBeTypeOf('string');
  });
});

describe('validateLabelSelector (structured selectors as the API server validates them)', () => {
  it('suggests "operator" for the misspelt "operation" of seed 003', () => {
    const issues = validateLabelSelector({ matchExpressions: [{ key: 'field.cattle.io/projectId', operation: 'NotIn', values: ['system'] }] });
    expect(issues).toContainEqual({ path: '/matchExpressions/0/operation', message: 'unknown field "operation" in match expression; did you mean "operator"?' });
  });

  it('rejects In without values, Exists with values, and Gt with a non-integer', () => {
    const messages = (sel: unknown) => validateLabelSelector(sel).map((i) => i.message);
    expect(messages({ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] })).toEqual(['operator In on "a" needs at least one value']);
    expect(messages({ matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] })).toEqual(['operator Exists on "a" takes no values']);
    expect(messages({ matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1.5'] }] })).toEqual(['operator Gt on "a" needs an integer value (got "1.5")']);
  });

  it('accepts the empty string as an In value', () => {
    expect(validateLabelSelector({ matchExpressions: [{ key: 'a', operator: 'In', values: [''] }] })).toEqual([]);
  });

  it('rejects operators in the wrong case with a hint', () => {
    expect(validateLabelSelector({ matchExpressions: [{ key: 'a', operator: 'in', values: ['x'] }] })[0]!.message).toMatch(/did you mean "In"/);
  });

  it('rejects label values that are not strings (YAML booleans and numbers must be quoted)', () => {
    expect(validateLabelSelector({ matchLabels: { enabled: true } })[0]).toMatchObject({ path: '/matchLabels/enabled' });
    expect(validateLabelSelector({ matchExpressions: [{ key: 'a', operator: 'In', values: [1] }] })[0]).toMatchObject({ path: '/matchExpressions/0/values/0' });
  });

  it('suggests matchLabels when a label was written directly in the selector, escaping the key in the pointer', () => {
    const [issue] = validateLabelSelector({ 'field.cattle.io/projectId': 'special-team1' });
    expect(issue!.path).toBe('/field.cattle.io~1projectId');
    expect(issue!.message).toContain('matchLabels: {field.cattle.io/projectId: special-team1}');
  });

  it('lists every problem, each with its path', () => {
    const issues = validateLabelSelector({ matchLabel: {}, matchExpressions: [{ key: 'a/b/c', operator: 'In', values: ['x'] }, { operator: 'Exists' }] });
    expect(issues.map((i) => i.path)).toEqual(['/matchLabel', '/matchExpressions/0', '/matchExpressions/1/key']);
  });
});

describe('compileLabelSelector', () => {
  it('exposes required key/value pairs for indexing and a readable text', () => {
    const compiled = compileLabelSelector({ matchLabels: { app: 'web' }, matchExpressions: [{ key: 'env', operator: 'In', values: ['a', 'b'] }, { key: 'x', operator: 'Exists' }] });
    expect(compiled.required).toEqual([{ key: 'app', values: ['web'] }, { key: 'env', values: ['a', 'b'] }]);
    expect(compiled.text).toBe('app=web,env in (a,b),x');
    expect(compiled.matches({ app: 'web', env: 'b', x: '1' })).toBe(true);
  });

  it('throws a SelectorError for an invalid structured selector', () => {
    expect(() => compileLabelSelector({ matchExpressions: [{ key: 'a', operator: 'Bogus' as 'In', values: [] }] })).toThrow(/not a valid label selector operator/);
  });
});
