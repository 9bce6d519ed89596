/**
 * The CEL planner against cel-js: every case of the CEL specification's conformance data (the simple tests
 * packaged in @bufbuild/cel-spec, as test/bench's conformance runner reads them) that cel-js checks runs
 * through the planner and through cel-js's own evaluation, and both give the same value or the same error.
 * (The ported Kubernetes library tests do the same through cel-helpers.ts.) Cases needing protocol-buffer
 * messages are left out, as in the conformance runner: Kubernetes CEL has none.
 */
import { tests as conformance } from '@bufbuild/cel-spec/testdata/conformance.js';
import { UnsignedInt } from '@marcbachmann/cel-js/evaluator';
import { describe, expect, it } from 'vitest';
import { buildCel } from '../src/compile.js';
import { celEnvironment } from '../src/env.js';
import { bothWays, sameOutcome } from './cel-differential.js';

interface RawTest {
  original: { name?: string; expr: string; bindings?: Record<string, { value?: unknown }>; container?: string; checkOnly?: boolean; typeEnv?: unknown[] };
}
interface RawSuite { name: string; suites?: RawSuite[]; tests?: RawTest[] }

class NeedsProto extends Error {}

/** A conformance `cel.expr.Value` (protobuf JSON form) as cel-js takes it. */
function toCel(v: Record<string, unknown>): unknown {
  if ('int64Value' in v) return BigInt(v['int64Value'] as string);
  if ('uint64Value' in v) return new UnsignedInt(BigInt(v['uint64Value'] as string));
  if ('doubleValue' in v) return Number(v['doubleValue']);
  if ('stringValue' in v) return v['stringValue'];
  if ('boolValue' in v) return v['boolValue'];
  if ('nullValue' in v) return null;
  if ('bytesValue' in v) return new Uint8Array(Buffer.from(v['bytesValue'] as string, 'base64'));
  if ('listValue' in v) return ((v['listValue'] as { values?: Record<string, unknown>[] }).values ?? []).map(toCel);
  if ('mapValue' in v) {
    const entries = (v['mapValue'] as { entries?: { key: Record<string, unknown>; value: Record<string, unknown> }[] }).entries ?? [];
    return new Map(entries.map((e) => [toCel(e.key), toCel(e.value)]));
  }
  throw new NeedsProto(Object.keys(v).join(','));
}

function collect(s: RawSuite, prefix: string, out: { name: string; test: RawTest }[]): void {
  for (const t of s.tests ?? []) out.push({ name: `${prefix}/${t.original.name ?? t.original.expr}`, test: t });
  for (const c of s.suites ?? []) collect(c, `${prefix}/${c.name}`, out);
}

function setup() {
  const all: { name: string; test: RawTest }[] = [];
  collect(conformance as RawSuite, '', all);
  const environment = celEnvironment();
  const cases = all.flatMap(({ name, test }) => {
    const o = test.original;
    if (o.checkOnly || o.container) return [];
    try {
      const activation = Object.fromEntries(Object.entries(o.bindings ?? {}).map(([k, b]) => [k, toCel(b.value as Record<string, unknown>)]));
      return [{ name, expression: o.expr, activation }];
    } catch (error) {
      if (error instanceof NeedsProto) return [];
      throw error;
    }
  });
  return { cases, environment };
}

describe('the CEL planner on the CEL conformance data', () => {
  it('gives the value or the error cel-js gives on every conformance case cel-js checks', () => {
    const { cases, environment } = setup();
    const differences: string[] = [];
    let compiled = 0;
    for (const c of cases) {
      const both = bothWays(c.expression, c.activation, environment);
      if (!both) continue;
      compiled++;
      if (!sameOutcome(both.plan, both.library)) differences.push(`${c.name}: ${c.expression}\n  planner ${JSON.stringify(both.plan, big)}\n  cel-js  ${JSON.stringify(both.library, big)}`);
    }
    expect(compiled).toBeGreaterThan(1000);
    expect(differences).toEqual([]);
  });

  it('plans nearly every conformance expression and leaves only optional-type macros to cel-js', () => {
    const { cases, environment } = setup();
    const fallbacks = new Set<string>();
    let compiled = 0;
    for (const c of cases) {
      let cel;
      try {
        cel = buildCel(c.expression, { environment, refuse: new Map() });
      } catch {
        continue;
      }
      compiled++;
      if (!cel.planned) fallbacks.add(c.expression);
    }
    expect(fallbacks.size / compiled).toBeLessThan(0.05);
    for (const expression of fallbacks) expect(expression).toMatch(/\.or(Value)?\(|\?\./);
  });
});

describe('the CEL planner on loop-invariant calls', () => {
  function setup() {
    const object = { spec: { containers: [{ name: 'a', memory: '1Gi' }, { name: 'b', memory: '3Gi' }, { name: 'c' }] } };
    const params = { data: { limit: '2Gi', text: 'Some Text' } };
    return { activation: { object, params } };
  }

  it('gives the values, errors and costs of computing an invariant call on every step', () => {
    const { activation } = setup();
    const expressions = [
      'object.spec.containers.all(c, !has(c.memory) || quantity(c.memory).compareTo(quantity(params.data.limit)) <= 0)',
      'object.spec.containers.filter(c, params.data.text.lowerAscii().size() > size(c.name)).size()',
      'object.spec.containers.map(c, params.data.text.lowerAscii() + c.name)',
      'object.spec.containers.exists(c, quantity(params.data.text) == quantity("1"))',
      'object.spec.containers.all(c, object.spec.containers.exists(d, d.name.upperAscii() == params.data.text.upperAscii()))',
    ];
    for (const expression of expressions) {
      const both = bothWays(expression, activation, undefined, true);
      expect(both?.planned).toBe(true);
      expect({ expression, ...both!.plan }).toEqual({ expression, ...both!.library });
      expect(both!.plan.cost).toBeGreaterThan(0);
    }
  });
});

function big(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? `${value}n` : value;
}
