/**
 * @verdict/cel on its own: what a program that evaluates Kubernetes CEL without verdict's policy engine
 * meets: compileCel, its errors and codes, the budget, RE2 patterns.
 */
import { describe, expect, it } from 'vitest';
import { CelError, compileCel, compileRegex, RegexError } from '@verdict/cel';

describe('@verdict/cel', () => {
  it('checks an expression once and evaluates it on JSON values with the Kubernetes libraries', () => {
    const rule = compileCel("object.spec.containers.all(c, c.image.startsWith('registry.example/')) && quantity(object.spec.memory).isLessThan(quantity('1Gi'))");
    expect(rule.type).toBe('bool');
    const pod = (image: string, memory: string) => ({ object: { spec: { containers: [{ image }], memory } } });
    expect(rule.evaluate(pod('registry.example/app:1', '512Mi'))).toBe(true);
    expect(rule.evaluate(pod('docker.io/app:1', '512Mi'))).toBe(false);
    expect(rule.evaluate(pod('registry.example/app:1', '2Gi'))).toBe(false);
  });

  it('throws a CelError with code INVALID_INPUT and a caret under the column for a syntax or type error', () => {
    let caught: unknown;
    try {
      compileCel('object.spec.replicas <= ');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(CelError);
    expect((caught as CelError).code).toBe('INVALID_INPUT');
    expect((caught as CelError).message).toMatch(/invalid CEL expression: .*\n.*\n *\^/s);
    expect(() => compileCel("1 + 'a'")).toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }));
  });

  it('names an unknown namespace as unknown instead of an overload on dyn', () => {
    expect(() => compileCel('size(x) > 0 && teams.lookup(3).size() == 3')).toThrow(
      /unknown function "teams\.lookup": this CEL environment has no "teams" namespace .*\(at column 16 of the expression\)/s);
    expect(compileCel("strings.quote('a')").evaluate()).toBe('"a"');
  });

  it('throws a CelError with code EVALUATION for a run-time error, and BUDGET_EXCEEDED past the budget', () => {
    expect(() => compileCel('10 / x').evaluate({ x: 0 })).toThrow(expect.objectContaining({ code: 'EVALUATION', message: expect.stringMatching(/division by zero/) }));
    const loop = compileCel('items.all(i, i >= 0)', { budget: 50 });
    expect(loop.evaluate({ items: [1, 2, 3] })).toBe(true);
    let caught: unknown;
    try {
      loop.evaluate({ items: Array.from({ length: 1000 }, (_, i) => i) });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(CelError);
    expect((caught as CelError).code).toBe('BUDGET_EXCEEDED');
  });

  it('runs patterns on RE2 and refuses what cannot run in linear time with a RegexError', () => {
    expect(compileRegex('^a+b$').test('aaab')).toBe(true);
    expect(() => compileRegex('(a)\\1')).toThrow(RegexError);
    expect(() => compileRegex('(a)\\1')).toThrow(/backreferences cannot run in linear time/);
    expect(() => compileCel("'x'.matches('(?=a)')")).toThrow(CelError);
  });

});
