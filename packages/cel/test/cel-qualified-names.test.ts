/**
 * Declared variables with dotted names (compileCel's `variables`, qualified.ts): `a.b.c` reads the longest
 * declared prefix, as cel-go's checker resolves qualified identifiers.
 */
import { describe, expect, it } from 'vitest';
import { compileCel } from '../src/index.js';

describe('qualified variable names', () => {
  it('reads the longest declared prefix and selects the rest', () => {
    expect(compileCel('a.b.c', { variables: ['a.b'] }).evaluate({ 'a.b': { c: 'yeah' } })).toBe('yeah');
    expect(compileCel('a.b.c', { variables: ['a.b', 'a.b.c'] }).evaluate({ 'a.b': { c: 'oops' }, 'a.b.c': 'yeah' })).toBe('yeah');
    expect(compileCel('x.y', { variables: ['x.y'] }).evaluate({ 'x.y': true })).toBe(true);
    expect(compileCel('a.b.c.d', { variables: ['a', 'a.b'] }).evaluate({ a: { b: { c: { d: 1 } } }, 'a.b': { c: { d: 2 } } })).toBe(2);
  });

  it('resolves inside comprehensions and beside undotted names', () => {
    expect(compileCel('[1, 2].all(i, i < a.b.limit) && n == 1', { variables: ['a.b', 'n'] }).evaluate({ 'a.b': { limit: 3 }, n: 1 })).toBe(true);
  });

  it('leaves names that are not declared as selections', () => {
    expect(compileCel('a.b.c', { variables: ['a'] }).evaluate({ a: { b: { c: 'field' } } })).toBe('field');
    expect(compileCel('a.b.c').evaluate({ a: { b: { c: 'field' } } })).toBe('field');
  });

  it('refuses a name that is not declared', () => {
    expect(() => compileCel('a.b.c + z', { variables: ['a.b'] })).toThrow(/undeclared reference to "z"; the names available here are a\.b \(/);
    expect(() => compileCel('variables.x', { variables: ['a.b'] })).toThrow(/undeclared reference to "variables"/);
  });
});
