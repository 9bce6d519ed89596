/**
 * compileCel's `typeCheck: false`: cel-spec's unchecked mode (unchecked.ts), as cel-go runs a program it
 * did not check. The default stays checked, as in the API server.
 */
import { describe, expect, it } from 'vitest';
import { compileCel } from '../src/index.js';

const unchecked = (expression: string, variables: Record<string, unknown> = {}) => compileCel(expression, { typeCheck: false, kubernetesVersion: false }).evaluate(variables);

describe('unchecked CEL (typeCheck: false)', () => {
  it('compares numbers across int and double at run time, also inside lists', () => {
    expect(unchecked('1.0 == 1')).toBe(true);
    expect(unchecked('[1] == [1.0]')).toBe(true);
    expect(unchecked("['one'] == [2, 3]")).toBe(false);
    expect(() => compileCel('1.0 == 1')).toThrow(/no such overload: double == int/);
  });

  it('lets ||, && and ?: absorb what the checker would refuse', () => {
    expect(unchecked('false && 32')).toBe(false);
    expect(unchecked("'horses' || true")).toBe(true);
    expect(unchecked("true ? 'cows' : 17")).toBe('cows');
    expect(unchecked('f_unknown(17) || true')).toBe(true);
    expect(unchecked('x || true')).toBe(true);
    expect(() => compileCel('false && 32')).toThrow(/bool operands/);
  });

  it('raises a type error where it is evaluated', () => {
    expect(() => unchecked("'less filling' && 'tastes great'")).toThrow(expect.objectContaining({ code: 'EVALUATION' }));
    expect(() => unchecked('f_unknown(17)')).toThrow(/f_unknown/);
    // verdict's own implementations run only for the argument types they are declared for.
    expect(() => unchecked("'hello'.charAt(true)")).toThrow(/no matching overload/);
    expect(unchecked("'hello'.charAt(1)")).toBe('e');
    expect(unchecked("'abc'.matches('^a')")).toBe(true);
  });

  it('reads variables as given', () => {
    expect(unchecked('object.spec.replicas > 2 && object.metadata.name.startsWith("a")', { object: { spec: { replicas: 3 }, metadata: { name: 'api' } } })).toBe(true);
    expect(compileCel('o', { typeCheck: false }).type).toBe('dyn');
  });
});
