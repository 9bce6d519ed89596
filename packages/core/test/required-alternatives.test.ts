/**
 * A validation takes `rule` and
 * `message` (json-logic) or `expression` (CEL). A misspelt `rule` used to give
 * two contradictory problems, "missing required field rule" and "missing
 * required field expression"; it is one problem naming what is missing.
 */
import { describe, expect, it } from 'vitest';
import { loadProblems } from './helpers.js';

describe('a validation missing its rule or expression', () => {
  const setup = (entry: string) =>
    loadProblems(`apiVersion: verdict.dev/v1\nkind: Policy\nmetadata: {name: p}\nspec:\n  validate: [${entry}]\n`)
      .map((p) => `${p.line}:${p.column} ${p.path}: ${p.message}`);

  it('names the field of the form the entry is closest to, once, beside the did-you-mean of a typo', () => {
    expect(setup('{name: r, rul: true, message: m}')).toEqual([
      '5:14 /spec/validate/0: missing required field "rule"',
      '5:24 /spec/validate/0/rul: unknown field "rul"; did you mean "rule"? (allowed: name, description, forEach, rule, expression, message, messageExpression, reason)',
    ]);
    expect(setup('{name: r, rule: true}')).toEqual(['5:14 /spec/validate/0: missing required field "message"']);
  });

  it('names both forms when the entry has neither', () => {
    expect(setup('{name: r}')).toEqual(['5:14 /spec/validate/0: missing required fields "rule" and "message", or "expression"']);
  });
});
