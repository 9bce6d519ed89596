/**
 * Runs the CEL specification's conformance data (the simple tests, as packaged in @bufbuild/cel-spec) against
 * each candidate library and prints pass counts per test file. Tests that need protocol-buffer messages
 * (message literals, message-typed bindings or results, containers) are counted apart: Kubernetes CEL has none.
 *
 *   npx -y pnpm@10 --filter @verdict/cel run bench:conformance            # table per file
 *   npx -y pnpm@10 --filter @verdict/cel run bench:conformance --failures # plus each failing test (first 40 per library)
 */
import { tests as conformance } from '@bufbuild/cel-spec/testdata/conformance.js';
import { CANDIDATES, type Canonical, type Candidate, type Input } from './candidates.js';

interface RawTest {
  original: {
    name?: string;
    expr: string;
    value?: unknown;
    typedResult?: { result?: unknown };
    evalError?: unknown;
    bindings?: Record<string, { value?: unknown }>;
    container?: string;
    typeEnv?: unknown[];
    checkOnly?: boolean;
    disableCheck?: boolean;
  };
}
interface RawSuite { name: string; suites?: RawSuite[]; tests?: RawTest[] }

class NeedsProto extends Error {}

/** A conformance `cel.expr.Value` (protobuf JSON form) → an {@link Input}. */
function toInput(v: Record<string, unknown>): Input {
  if ('int64Value' in v) return { kind: 'int', value: BigInt(v['int64Value'] as string) };
  if ('uint64Value' in v) return { kind: 'uint', value: BigInt(v['uint64Value'] as string) };
  if ('doubleValue' in v) return { kind: 'double', value: Number(v['doubleValue']) };
  if ('stringValue' in v) return { kind: 'string', value: v['stringValue'] as string };
  if ('boolValue' in v) return { kind: 'bool', value: v['boolValue'] as boolean };
  if ('nullValue' in v) return { kind: 'null' };
  if ('bytesValue' in v) return { kind: 'bytes', value: new Uint8Array(Buffer.from(v['bytesValue'] as string, 'base64')) };
  if ('listValue' in v) return { kind: 'list', value: (((v['listValue'] as { values?: unknown[] }).values) ?? []).map((x) => toInput(x as Record<string, unknown>)) };
  if ('mapValue' in v) {
    const entries = ((v['mapValue'] as { entries?: Array<{ key: unknown; value: unknown }> }).entries) ?? [];
    return { kind: 'map', value: entries.map((e) => [toInput(e.key as Record<string, unknown>), toInput(e.value as Record<string, unknown>)]) };
  }
  throw new NeedsProto(Object.keys(v).join(','));
}

function toCanonical(v: Record<string, unknown>): Canonical {
  if ('typeValue' in v) return { type: v['typeValue'] as string };
  if ('enumValue' in v || 'objectValue' in v) throw new NeedsProto('message');
  const input = toInput(v);
  const conv = (x: Input): Canonical => {
    switch (x.kind) {
      case 'int': return { int: String(x.value) };
      case 'uint': return { uint: String(x.value) };
      case 'double': return { double: Number.isFinite(x.value) ? x.value : String(x.value) };
      case 'bytes': return { bytes: Buffer.from(x.value).toString('base64') };
      case 'null': return null;
      case 'list': return { list: x.value.map(conv) };
      case 'map': return { map: x.value.map(([k, y]) => [conv(k), conv(y)] as [Canonical, Canonical]).sort((a, b) => (JSON.stringify(a[0]) < JSON.stringify(b[0]) ? -1 : 1)) };
      default: return x.value;
    }
  };
  return conv(input);
}

/** Equal canonical values; a library with one JS number type (cel-js) is compared by numeric value. */
function same(expected: Canonical, actual: Canonical, numbersOnly: boolean): boolean {
  if (numbersOnly && expected !== null && actual !== null && typeof expected === 'object' && typeof actual === 'object') {
    const num = (c: object) => ('int' in c ? Number(c.int) : 'uint' in c ? Number(c.uint) : 'double' in c ? Number(c.double) : undefined);
    const a = num(expected);
    const b = num(actual);
    if (a !== undefined && b !== undefined) return a === b || (Number.isNaN(a) && Number.isNaN(b));
    if ('list' in expected && 'list' in actual) return expected.list.length === actual.list.length && expected.list.every((x, i) => same(x, actual.list[i]!, true));
    if ('map' in expected && 'map' in actual) return expected.map.length === actual.map.length && expected.map.every(([k, x], i) => same(k, actual.map[i]![0], true) && same(x, actual.map[i]![1], true));
  }
  return JSON.stringify(expected) === JSON.stringify(actual);
}

type Outcome = 'pass' | 'fail' | 'proto';

function runOne(c: Candidate, t: RawTest): { outcome: Outcome; why?: string } {
  const o = t.original;
  if (o.checkOnly) return { outcome: 'proto', why: 'type-check only' };
  if (o.container) return { outcome: 'proto', why: 'container' };
  let bindings: Record<string, Input>;
  let expected: Canonical | 'error';
  try {
    bindings = Object.fromEntries(Object.entries(o.bindings ?? {}).map(([k, b]) => [k, toInput(b.value as Record<string, unknown>)]));
    const value = o.value ?? o.typedResult?.result;
    expected = o.evalError ? 'error' : value === undefined ? true : toCanonical(value as Record<string, unknown>);
  } catch (error) {
    if (error instanceof NeedsProto) return { outcome: 'proto', why: 'message value' };
    throw error;
  }
  let actual: Canonical;
  try {
    actual = c.canonical(c.compile(o.expr, o.disableCheck === true)(bindings));
  } catch (error) {
    if (expected === 'error') return { outcome: 'pass' };
    return { outcome: 'fail', why: `error: ${String((error as Error).message).split('\n')[0]!.slice(0, 120)}` };
  }
  if (expected === 'error') return { outcome: 'fail', why: `expected an error, got ${JSON.stringify(actual).slice(0, 80)}` };
  return same(expected, actual, c.name === 'cel-js') ? { outcome: 'pass' } : { outcome: 'fail', why: `expected ${JSON.stringify(expected).slice(0, 80)}, got ${JSON.stringify(actual).slice(0, 80)}` };
}

function collect(s: RawSuite, prefix: string, out: Array<{ name: string; test: RawTest }>): void {
  for (const t of s.tests ?? []) out.push({ name: `${prefix}/${t.original.name ?? t.original.expr}`, test: t });
  for (const c of s.suites ?? []) collect(c, `${prefix}/${c.name}`, out);
}

export interface FileResult { file: string; total: number; proto: number; pass: Record<string, number> }

/** Pass counts per conformance file for every candidate. */
export function measureConformance(showFailures = false): FileResult[] {
  const results: FileResult[] = [];
  const shown = new Map<string, number>();
  for (const file of (conformance as RawSuite).suites ?? []) {
    const tests: Array<{ name: string; test: RawTest }> = [];
    collect(file, file.name, tests);
    if (tests.length === 0) continue;
    const row: FileResult = { file: file.name, total: tests.length, proto: 0, pass: {} };
    CANDIDATES.forEach((c, ci) => {
      let pass = 0;
      let proto = 0;
      for (const { name, test } of tests) {
        const r = runOne(c, test);
        if (r.outcome === 'pass') pass++;
        else if (r.outcome === 'proto') proto++;
        else if (showFailures && (shown.get(c.name) ?? 0) < 40) {
          shown.set(c.name, (shown.get(c.name) ?? 0) + 1);
          console.log(`  [${c.name}] ${name}: ${test.original.expr.slice(0, 80)} → ${r.why}`);
        }
      }
      row.pass[c.name] = pass;
      if (ci === 0) row.proto = proto;
    });
    results.push(row);
  }
  return results;
}

function main(): void {
  const showFailures = process.argv.includes('--failures');
  const rows = measureConformance(showFailures);
  const names = CANDIDATES.map((c) => `${c.name} ${c.version}`);
  console.log(`| file | tests (without protobuf messages) | ${names.join(' | ')} |`);
  console.log(`|---|---|${names.map(() => '---').join('|')}|`);
  const totals: Record<string, number> = {};
  let all = 0;
  for (const r of rows) {
    const n = r.total - r.proto;
    all += n;
    const cells = CANDIDATES.map((c) => {
      totals[c.name] = (totals[c.name] ?? 0) + r.pass[c.name]!;
      return String(r.pass[c.name]);
    });
    console.log(`| ${r.file} | ${n}${r.proto ? ` (+${r.proto})` : ''} | ${cells.join(' | ')} |`);
  }
  console.log(`| **all** | ${all} | ${CANDIDATES.map((c) => `**${totals[c.name]}** (${Math.round((1000 * totals[c.name]!) / all) / 10}%)`).join(' | ')} |`);
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/.*\//, ''))) main();
