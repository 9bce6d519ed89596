import { describe, expect, it } from 'vitest';
import { compileCel } from '@verdict/cel';

const items = Array.from({ length: 1000 }, (_, i) => ({ name: `c${i}`, ports: [i, i + 1] }));

describe('CEL evaluation spends from the cost budget', () => {
  it('finishes within the budget when the work fits', () => {
    const compiled = compileCel('items.all(c, c.ports.all(p, p >= 0))', { budget: 30_000 });
    expect(compiled.evaluate({ items })).toBe(true);
    // The API server's units: per item 2 (the loop condition), 1 (`__result__`) and the inner all(): `c.ports` 2, per
    // port 5, its result 1; then `items` and the result. The budget also pays verdict's work (converting `items`).
    expect(compiled.evaluateWithCost({ items }).cost).toBe(1000 * (2 + 1 + 2 + 2 * 5 + 1) + 2);
  });

  it('ends with the budget error when comprehensions iterate past it', () => {
    const compiled = compileCel('items.all(c, items.all(d, c.name != "" || d.name != ""))', { budget: 10_000 });
    expect(() => compiled.evaluate({ items })).toThrow(/exceeded its cost budget of 10000 units/);
  });

  it('does not lose the budget error inside exists(), which otherwise skips failing elements', () => {
    const compiled = compileCel('[1, 2].exists(x, x == 2 || items.all(d, d.name != ""))', { budget: 500 });
    expect(() => compiled.evaluate({ items })).toThrow(/exceeded its cost budget/);
  });

  it('charges string functions in proportion to the input', () => {
    const big = 'a'.repeat(200_000);
    expect(() => compileCel('s.matches("b") || s.indexOf("b") >= 0', { budget: 1000 }).evaluate({ s: big })).toThrow(/exceeded its cost budget/);
    expect(compileCel('s.matches("b")', { budget: 30_000 }).evaluate({ s: big })).toBe(false);
  });

  it("keeps the budget when an added function's declared cost is not a number", () => {
    // A cost of NaN (here: reading a `size` a string does not have) is an error, not a meter that cannot run out.
    const tag = { signature: 'tag(string): string', handler: (s: string) => s, cost: (args: readonly unknown[]) => (args[0] as { size: number }).size / 10 };
    const names = items.map((c) => c.name);
    expect(() => compileCel('tag("a")', { functions: [tag] }).evaluate()).toThrow('the cost of tag(string): string must be a number of units, but it gave NaN');
    // Inside all(), which goes on past an element's error, the budget still runs out (a NaN spent left it unable to):
    // per name the API server's units are 4 at least (the loop condition, `__result__`, `c`), 4,000 in all.
    const compiled = compileCel('names.all(c, tag(c) != "")', { functions: [tag], budget: 3_000 });
    expect(() => compiled.evaluate({ names })).toThrow(/exceeded its cost budget of 3000 units/);
  });
});
