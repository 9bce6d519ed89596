/**
 * The CEL specification's conformance data (the simple tests of cel-spec, as @bufbuild/cel-spec packages
 * them) run through verdict's CEL: each case is compiled in verdict's default environment (the newest
 * Kubernetes one) and evaluated with its bindings as CEL values, and the result is compared by type and
 * value (an `int` 1 is not a `double` 1.0). A case expecting an error passes when compiling or evaluating
 * fails. Cases that need protocol-buffer messages (message literals, message-typed bindings or results:
 * timestamps and durations are `google.protobuf` messages in the data, wrappers, enums, a container) are counted
 * apart: Kubernetes CEL has none.
 *
 * Used by cel-conformance.test.ts (the known failures must not grow, docs/concepts/cel.md's table must
 * match) and by cel-conformance-update.ts (rewrites both).
 */
import { tests as conformance } from '@bufbuild/cel-spec/testdata/conformance.js';
import { UnsignedInt } from '@marcbachmann/cel-js/evaluator';
import { buildCel } from '../src/compile.js';
import { celEnvironment } from '../src/env.js';
import { withMeter } from '../src/runtime.js';
import { UNMETERED } from '../src/meter.js';

interface RawTest {
  original: {
    name?: string;
    expr: string;
    value?: Record<string, unknown>;
    typedResult?: { result?: Record<string, unknown> };
    evalError?: unknown;
    bindings?: Record<string, { value?: Record<string, unknown> }>;
    container?: string;
    checkOnly?: boolean;
    disableCheck?: boolean;
    typeEnv?: { name: string }[];
  };
}
interface RawSuite { name: string; suites?: RawSuite[]; tests?: RawTest[] }

class NeedsProto extends Error {}

/** A conformance `cel.expr.Value` (protobuf JSON form) as a CEL value of cel-js. */
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
  if ('typeValue' in v) return { type: v['typeValue'] };
  throw new NeedsProto(Object.keys(v).join(','));
}

/** A CEL value in a comparable form that keeps its type: `{int: "1"}` is not `{double: 1}`. */
function canonical(v: unknown): unknown {
  switch (typeof v) {
    case 'bigint': return { int: String(v) };
    case 'number': return { double: Object.is(v, -0) ? 0 : Number.isNaN(v) ? 'NaN' : Number.isFinite(v) ? v : String(v) };
    case 'string': case 'boolean': return v;
    default: break;
  }
  if (v === null || v === undefined) return null;
  if (v instanceof UnsignedInt) return { uint: String(v.valueOf()) };
  if (v instanceof Uint8Array) return { bytes: [...v] };
  if (Array.isArray(v)) return { list: v.map(canonical) };
  if (v instanceof Map) return { map: [...v].map(([k, x]) => [canonical(k), canonical(x)]).sort(byJson) };
  const proto = Object.getPrototypeOf(v) as unknown;
  if (proto === Object.prototype || proto === null) {
    const record = v as Record<string, unknown>;
    if (Object.keys(record).length === 1 && typeof record['type'] === 'string') return { type: record['type'] };
    return { map: Object.entries(record).map(([k, x]) => [k, canonical(x)]).sort(byJson) };
  }
  const typed = v as { name?: unknown; constructor: { name: string } };
  if (typed.constructor.name === 'Type' && typeof typed.name === 'string') return { type: typed.name === 'null' ? 'null_type' : typed.name };
  return { other: `${typed.constructor.name} ${String(v)}` };
}

function byJson(a: unknown, b: unknown): number {
  const x = JSON.stringify(a);
  const y = JSON.stringify(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** One conformance case. */
export interface ConformanceCase {
  /** `file/section/name`, unique. */
  readonly name: string;
  readonly file: string;
  readonly expression: string;
  /** Whether the case reads or gives a `uint`, `bytes` or `type` value (JSON has none of them). */
  readonly exotic: boolean;
  readonly bindings: Readonly<Record<string, unknown>>;
  /** The expected canonical value, or `'error'`. */
  readonly expected: unknown;
  /** The variables the case declares (its `type_env`), if it declares any: the only free names it may read. */
  readonly declared: readonly string[] | undefined;
  /** Whether cel-spec runs the case without the type checker (`disable_check`). */
  readonly unchecked: boolean;
}

/** A file of the data: its cases and how many were left out for needing protocol-buffer messages. */
export interface ConformanceFile {
  readonly file: string;
  readonly cases: readonly ConformanceCase[];
  readonly proto: number;
}

/** Message types and wrappers in the expression's text (`google.protobuf.Int32Value{value: 1}`, `TestAllTypes{}`). */
const MESSAGES = /\bgoogle\.protobuf\.|\bTestAllTypes\b|\bNestedTestAllTypes\b|\bcel\.expr\.conformance\b/;
const EXOTIC_TEXT = /\b\d+u\b|\b0x[0-9a-fA-F]+u\b|\buint\b|\bbytes\b|\b[bB]["']|\btype\b/;
const EXOTIC_DATA = /"(uint64Value|bytesValue|typeValue)"/;

function collect(s: RawSuite, prefix: string, out: { name: string; test: RawTest }[]): void {
  for (const t of s.tests ?? []) out.push({ name: `${prefix}/${t.original.name ?? t.original.expr}`, test: t });
  for (const c of s.suites ?? []) collect(c, `${prefix}/${c.name}`, out);
}

let files: ConformanceFile[] | undefined;

/** Every file of the simple tests, in the data's order. */
export function conformanceFiles(): readonly ConformanceFile[] {
  if (files) return files;
  files = [];
  for (const suite of (conformance as RawSuite).suites ?? []) {
    const raw: { name: string; test: RawTest }[] = [];
    collect(suite, suite.name, raw);
    const cases: ConformanceCase[] = [];
    let proto = 0;
    const seen = new Map<string, number>();
    for (const { name, test } of raw) {
      const o = test.original;
      if (o.checkOnly || o.container || MESSAGES.test(o.expr)) {
        proto++;
        continue;
      }
      try {
        const bindings = Object.fromEntries(Object.entries(o.bindings ?? {}).map(([k, b]) => [k, toCel(b.value ?? {})]));
        const value = o.value ?? o.typedResult?.result;
        const expected = o.evalError ? 'error' : value === undefined ? true : canonical(toCel(value));
        const n = (seen.get(name) ?? 0) + 1;
        seen.set(name, n);
        cases.push({
          name: n > 1 ? `${name} (${n})` : name,
          file: suite.name,
          expression: o.expr,
          exotic: EXOTIC_TEXT.test(o.expr) || EXOTIC_DATA.test(JSON.stringify([o.bindings ?? {}, value ?? null])),
          bindings,
          expected,
          declared: o.typeEnv?.map((d) => d.name),
          unchecked: o.disableCheck === true,
        });
      } catch (error) {
        if (!(error instanceof NeedsProto)) throw error;
        proto++;
      }
    }
    files.push({ file: suite.name, cases, proto });
  }
  return files;
}

/** What running a case gave: `pass`, or why it failed. */
export type CaseOutcome = { readonly pass: true } | { readonly pass: false; readonly why: string };

function firstLine(error: unknown): string {
  const e = error as Error & { summary?: string };
  return String(e?.summary ?? e?.message ?? error).split('\n')[0]!.slice(0, 160);
}

/**
 * Runs one case through verdict's CEL (compile in the default environment, then evaluate), as cel-spec
 * declares it: with its declared variables (`type_env`), and unchecked when it says `disable_check`.
 */
export function runCase(c: ConformanceCase): CaseOutcome {
  let compiled;
  try {
    compiled = buildCel(c.expression, { environment: celEnvironment(), refuse: new Map(), ...(c.declared ? { names: c.declared, onlyNames: true } : {}), check: !c.unchecked });
  } catch (error) {
    return c.expected === 'error' ? { pass: true } : { pass: false, why: `load error: ${firstLine(error)}` };
  }
  let actual: unknown;
  try {
    actual = canonical(withMeter(UNMETERED, () => compiled.run(c.bindings)));
  } catch (error) {
    return c.expected === 'error' ? { pass: true } : { pass: false, why: `error: ${firstLine(error)}` };
  }
  if (c.expected === 'error') return { pass: false, why: `expected an error, got ${JSON.stringify(actual).slice(0, 120)}` };
  return JSON.stringify(actual) === JSON.stringify(c.expected)
    ? { pass: true }
    : { pass: false, why: `expected ${JSON.stringify(c.expected).slice(0, 100)}, got ${JSON.stringify(actual).slice(0, 100)}` };
}

/** The outcome of every case, by name. */
export function runConformance(): Map<string, CaseOutcome & { readonly case: ConformanceCase }> {
  const out = new Map<string, CaseOutcome & { readonly case: ConformanceCase }>();
  for (const file of conformanceFiles()) for (const c of file.cases) out.set(c.name, { ...runCase(c), case: c });
  return out;
}

/**
 * Files of cel-go extensions the Kubernetes API server does not enable (environment/base.go): their
 * functions are unknown in Kubernetes' CEL, so verdict refusing them is right; they are listed apart.
 */
export const OUTSIDE_KUBERNETES: Readonly<Record<string, string>> = {
  bindings_ext: 'ext.Bindings, cel.bind (not enabled by Kubernetes; verdict\'s own documents have it)',
  block_ext: 'cel.block (not enabled by Kubernetes)',
  encoders_ext: 'ext.Encoders (not enabled by Kubernetes)',
  math_ext: 'ext.Math (not enabled by Kubernetes)',
};

/** The headline figures: cases of Kubernetes' CEL (files outside it excepted), and those with no uint, bytes or type value. */
export function conformanceTotals(outcomes: ReadonlyMap<string, CaseOutcome>): { all: number; passed: number; plain: number; plainPassed: number } {
  let all = 0;
  let passed = 0;
  let plain = 0;
  let plainPassed = 0;
  for (const file of conformanceFiles()) {
    if (OUTSIDE_KUBERNETES[file.file]) continue;
    for (const c of file.cases) {
      const ok = outcomes.get(c.name)?.pass === true;
      all++;
      if (ok) passed++;
      if (!c.exotic) {
        plain++;
        if (ok) plainPassed++;
      }
    }
  }
  return { all, passed, plain, plainPassed };
}

/** The Markdown table of docs/concepts/cel.md's conformance section, from the outcomes. */
export function conformanceTable(outcomes: ReadonlyMap<string, CaseOutcome>): string {
  const rows = ['| file | cases (+ needing messages) | pass | cases without uint, bytes, type | pass |', '|---|---:|---:|---:|---:|'];
  const percent = (n: number, d: number) => (d === 0 ? '' : ` (${(Math.floor((1000 * n) / d) / 10).toFixed(1)}%)`);
  const apart: string[] = [];
  for (const file of conformanceFiles()) {
    const pass = file.cases.filter((c) => outcomes.get(c.name)?.pass).length;
    const simple = file.cases.filter((c) => !c.exotic);
    const simplePass = simple.filter((c) => outcomes.get(c.name)?.pass).length;
    const row = `| ${file.file} | ${file.cases.length}${file.proto ? ` (+${file.proto})` : ''} | ${pass} | ${simple.length} | ${simplePass} |`;
    if (OUTSIDE_KUBERNETES[file.file]) apart.push(`| ${file.file}: ${OUTSIDE_KUBERNETES[file.file]} | ${file.cases.length}${file.proto ? ` (+${file.proto})` : ''} | ${pass} | ${simple.length} | ${simplePass} |`);
    else rows.push(row);
  }
  const t = conformanceTotals(outcomes);
  rows.push(`| **Kubernetes' CEL** | ${t.all} | **${t.passed}**${percent(t.passed, t.all)} | ${t.plain} | **${t.plainPassed}**${percent(t.plainPassed, t.plain)} |`);
  return [...rows, ...apart].join('\n');
}

/** Where the table sits in docs/concepts/cel.md. */
export const TABLE_START = '<!-- conformance table: written by `pnpm run cel-conformance`; do not edit -->';
export const TABLE_END = '<!-- end of the conformance table -->';
