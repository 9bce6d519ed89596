import { describe, expect, it } from 'vitest';
import { compileCel, VerdictError } from '@verdict/core';

function setup() {
  /** An object that refers to itself: converting it whole would never end. */
  const cyclic = (): Record<string, unknown> => {
    const out: Record<string, unknown> = { spec: { replicas: 3 } };
    out['self'] = out;
    return out;
  };
  /** Variables whose `unread` getter throws and counts the reads of `x`. */
  const guarded = (x: unknown) => {
    const reads = { x: 0 };
    const variables = {
      get x() {
        reads.x++;
        return x;
      },
      get unread(): unknown {
        throw new Error('an unread variable was looked up');
      },
    };
    return { variables, reads };
  };
  return { cyclic, guarded };
}

describe('compileCel(expression).evaluate(variables)', () => {
  it('never looks up a variable the expression does not read', () => {
    const { guarded } = setup();
    const { variables, reads } = guarded(41);
    expect(compileCel('x + 1').evaluate(variables)).toBe(42);
    expect(reads.x).toBe(1);
    expect(compileCel('true').evaluate(guarded(0).variables)).toBe(true);
  });

  it('does not convert an unread value, however large or odd it is', () => {
    const { cyclic } = setup();
    expect(compileCel('true').evaluate({ object: cyclic() })).toBe(true);
    expect(compileCel('params.limit == 2').evaluate({ object: cyclic(), params: { limit: 2 } })).toBe(true);
  });

  it('still converts what is read: integral numbers are ints, others doubles', () => {
    const { guarded } = setup();
    expect(compileCel('type(x) == int && x + 1 == 4').evaluate(guarded(3).variables)).toBe(true);
    expect(compileCel('type(x.a) == double && type(x.b) == int').evaluate({ x: { a: 1.5, b: 2 }, y: 1.5 })).toBe(true);
    expect(compileCel('object.spec.replicas + 1').evaluate({ object: setup().cyclic() })).toBe(4);
  });

  it('reports a variable that is missing, inherited or not enumerable as unknown, as before', () => {
    const unknown = (variables: Record<string, unknown>) => () => compileCel('x + 1').evaluate(variables);
    expect(unknown({ y: 1 })).toThrow(/unknown variable: x/i);
    expect(unknown(Object.create({ x: 1 }) as Record<string, unknown>)).toThrow(/unknown variable: x/i);
    expect(unknown(Object.defineProperty({}, 'x', { value: 1, enumerable: false }))).toThrow(/unknown variable: x/i);
    try {
      unknown({})();
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(VerdictError);
      expect((error as VerdictError).code).toBe('EVALUATION');
    }
  });

  it('refuses null variables with a typed error', () => {
    expect(() => compileCel('true').evaluate(null as never)).toThrow(expect.objectContaining({ code: 'INVALID_INPUT', message: expect.stringMatching(/variables must be an object/) }));
  });
});
