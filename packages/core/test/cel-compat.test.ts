/** `compileCel` from @verdict/core: @verdict/cel's, with core's error classes, as before CEL had a package of its own. */
import { describe, expect, it } from 'vitest';
import { CelError } from '@verdict/cel';
import { compileCel, VerdictError } from '@verdict/core';

describe('compileCel re-exported by @verdict/core', () => {
  it('is re-exported by @verdict/core with core error classes, as before the package existed', () => {
    expect(compileCel('a + 1').evaluate({ a: 1 })).toBe(2);
    expect(() => compileCel('a +')).toThrow(VerdictError);
    expect(() => compileCel('10 / x').evaluate({ x: 0 })).toThrow(expect.objectContaining({ name: 'VerdictError', code: 'EVALUATION' }));
  });

  it('keeps the CEL error as the cause', () => {
    try {
      compileCel('a +');
      expect.unreachable();
    } catch (error) {
      expect((error as VerdictError).code).toBe('INVALID_INPUT');
      expect((error as Error).cause).toBeInstanceOf(CelError);
    }
  });
});
