/**
 * The planner's generated back end (packages/cel/src/plan/emit.ts): planned expressions run as one
 * generated function where the runtime compiles code, the generated source holds no text of the
 * expression but field names as string literals, and where code generation is refused (a CSP, Cloudflare
 * Workers) the same expressions run as closures with the same results. Values and costs of both back ends
 * against cel-js are compared by the differential tests (cel-planner.test.ts, the fuzz test).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';

const EXPRESSION = 'object.spec.containers.all(c, has(c.resources.limits.memory) && quantity(c.resources.limits.memory).compareTo(quantity(params.data.limit)) <= 0)';

function setup() {
  const pod = (memory: string) => ({ spec: { containers: [{ name: 'a', resources: { limits: { memory: '1Gi' } } }, { name: 'b', resources: { limits: { memory } } }] } });
  const params = { data: { limit: '2Gi' } };
  /** Compiles with a fresh copy of the CEL modules (so that the code generation check runs again). */
  const fresh = async () => {
    vi.resetModules();
    const { buildCel } = await import('../src/compile.js');
    const { celEnvironment } = await import('../src/env.js');
    return (expression: string) => buildCel(expression, { environment: celEnvironment(), refuse: new Map() });
  };
  /** The source texts given to `new Function` while `run` runs. */
  const sources = async <T>(run: () => Promise<T>): Promise<{ result: T; texts: string[] }> => {
    const texts: string[] = [];
    const Real = Function;
    vi.stubGlobal('Function', function (...args: string[]) {
      texts.push(args[args.length - 1]!);
      return Real(...args) as unknown;
    });
    try {
      return { result: await run(), texts };
    } finally {
      vi.unstubAllGlobals();
    }
  };
  return { pod, params, fresh, sources };
}

afterEach(() => {
  vi.unstubAllGlobals();
  vi.resetModules();
});

describe('the generated back end of the CEL planner', () => {
  it('runs a planned expression as generated code', async () => {
    const { pod, params, fresh } = setup();
    const compile = await fresh();
    const cel = compile(EXPRESSION);
    expect(cel.backend).toBe('generated');
    expect(cel.run({ object: pod('1Gi'), params })).toBe(true);
    expect(cel.run({ object: pod('3Gi'), params })).toBe(false);
  });

  it('writes field names as string literals and no other text of the expression into the generated source', async () => {
    const { sources, fresh } = setup();
    const hostile = `"); globalThis.pwned = 1; ("`;
    const { texts } = await sources(async () => {
      const compile = await fresh();
      return compile(`object.spec.containers.exists(c, c.name == ${JSON.stringify(hostile)} || c.image.startsWith('x\\'y'))`);
    });
    const generated = texts.filter((t) => t.includes('function plan('));
    expect(generated).toHaveLength(1);
    expect(generated[0]).toContain('"containers"');
    expect(generated[0]).not.toContain('pwned');
    expect(generated[0]).not.toContain("x'y");
    expect((globalThis as { pwned?: unknown }).pwned).toBeUndefined();
  });

  it('reads own properties only, also once Object.prototype changes under optimised code', async () => {
    const { fresh } = setup();
    const compile = await fresh();
    const cel = compile('has(x.spec.extra) ? "has extra" : x.spec.name');
    const x = { spec: { name: 'a' } };
    for (let i = 0; i < 50_000; i++) cel.run({ x });
    const proto = Object.prototype as Record<string, unknown>;
    proto['extra'] = 'polluted';
    proto['name'] = 'polluted';
    let polluted: unknown;
    try {
      polluted = cel.run({ x: { spec: {} } });
    } catch (error) {
      polluted = (error as Error).message;
    } finally {
      delete proto['extra'];
      delete proto['name'];
    }
    expect(polluted).toMatch(/No such key: name/);
    expect(cel.run({ x })).toBe('a');
    expect(() => cel.run({ x: { spec: Object.create({ name: 'inherited', extra: 1 }) as object } })).toThrow(/No such key: name/);
  });

  it('falls back to closures with the same results where the runtime refuses to compile code', async () => {
    const { pod, params, fresh } = setup();
    vi.stubGlobal('Function', function () {
      throw new EvalError('code generation from strings disallowed for this context');
    });
    const compile = await fresh();
    const cel = compile(EXPRESSION);
    vi.unstubAllGlobals();
    expect(cel.planned).toBe(true);
    expect(cel.backend).toBe('closures');
    expect(cel.run({ object: pod('1Gi'), params })).toBe(true);
    expect(cel.run({ object: pod('3Gi'), params })).toBe(false);
  });
});
