/**
 * The CEL implementations from the npm registry measured for verdict (docs/concepts/cel.md, "Why this
 * implementation"), each behind one small adapter: compile an expression once with variables of dynamic
 * type, run it with bindings, and turn its result into a canonical form the conformance data compares with.
 */
import { Environment } from '@marcbachmann/cel-js';
import { celEnv, isCelError, isCelList, isCelMap, isCelType, isCelUint, parse as bufParse, plan as bufPlan } from '@bufbuild/cel';
import { strings as bufStrings } from '@bufbuild/cel/ext';
import * as chromeCel from 'cel-js';

/** A value in a form every library's results can be compared in. */
export type Canonical =
  | null | boolean | string
  | { int: string } | { uint: string } | { double: number | string } | { bytes: string } | { type: string }
  | { list: Canonical[] } | { map: Array<[Canonical, Canonical]> } | { other: string };

/** A JS value given to a library as a binding, built from the conformance data. */
export type Input =
  | { kind: 'int'; value: bigint } | { kind: 'uint'; value: bigint } | { kind: 'double'; value: number }
  | { kind: 'string'; value: string } | { kind: 'bool'; value: boolean } | { kind: 'null' } | { kind: 'bytes'; value: Uint8Array }
  | { kind: 'list'; value: Input[] } | { kind: 'map'; value: Array<[Input, Input]> };

export interface Candidate {
  name: string;
  version: string;
  /** Compiles once; throws for syntax (and, where the library checks, type) errors unless `disableCheck`. */
  compile(expr: string, disableCheck?: boolean): (bindings: Record<string, Input>) => unknown;
  /** The library's result in canonical form; throws when the result is an error value. */
  canonical(value: unknown): Canonical;
  /** Compiles once for plain JSON bindings (an admission object), for the speed comparison. */
  compileJson(expr: string): (bindings: Record<string, unknown>) => unknown;
}

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
const sortMap = (entries: Array<[Canonical, Canonical]>) => entries.sort((a, b) => (JSON.stringify(a[0]) < JSON.stringify(b[0]) ? -1 : 1));
const dbl = (n: number): Canonical => ({ double: Number.isFinite(n) ? n : String(n) });

// ---- @marcbachmann/cel-js -------------------------------------------------------------------------
const marcEnv = new Environment({ unlistedVariablesAreDyn: true, enableOptionalTypes: true, homogeneousAggregateLiterals: false });
const { UnsignedInt } = await import('@marcbachmann/cel-js/evaluator') as unknown as { UnsignedInt: new (v: bigint) => unknown };

function marcInput(v: Input): unknown {
  switch (v.kind) {
    case 'uint': return new UnsignedInt(v.value);
    case 'null': return null;
    case 'list': return v.value.map(marcInput);
    case 'map': return new Map(v.value.map(([k, x]) => [marcInput(k), marcInput(x)]));
    default: return v.value;
  }
}

function marcCanonical(v: unknown): Canonical {
  if (v instanceof Error) throw v;
  switch (typeof v) {
    case 'bigint': return { int: String(v) };
    case 'number': return dbl(v);
    case 'string': case 'boolean': return v;
    default: break;
  }
  if (v === null) return null;
  if (v instanceof UnsignedInt) return { uint: String((v as { valueOf(): bigint }).valueOf()) };
  if (v instanceof Uint8Array) return { bytes: b64(v) };
  if (Array.isArray(v) || v instanceof Set) return { list: [...v].map(marcCanonical) };
  if (v instanceof Map) return { map: sortMap([...v].map(([k, x]) => [marcCanonical(k), marcCanonical(x)])) };
  const ctor = (v as object).constructor;
  if (ctor === Object || ctor === undefined) return { map: sortMap(Object.entries(v as object).map(([k, x]) => [k, marcCanonical(x)])) };
  if (ctor?.name === 'Type') return { type: (v as { name: string }).name };
  return { other: `${ctor?.name ?? typeof v}: ${String(v)}` };
}

export const marcbachmann: Candidate = {
  name: '@marcbachmann/cel-js',
  version: '8.0.0',
  compile(expr, disableCheck) {
    const fn = marcEnv.parse(expr);
    const checked = disableCheck ? { valid: true } : fn.check();
    if (!checked.valid) throw (checked as { error?: Error }).error ?? new Error('type check failed');
    return (bindings) => fn(Object.fromEntries(Object.entries(bindings).map(([k, x]) => [k, marcInput(x)])));
  },
  canonical: marcCanonical,
  compileJson(expr) {
    const fn = marcEnv.parse(expr);
    fn.check();
    return (bindings) => fn(bindings);
  },
};

// ---- @bufbuild/cel ---------------------------------------------------------------------------------
const bufEnv = celEnv({ funcs: bufStrings });
const { celUint } = await import('@bufbuild/cel');

function bufInput(v: Input): unknown {
  switch (v.kind) {
    case 'uint': return celUint(v.value);
    case 'null': return null;
    case 'list': return v.value.map(bufInput);
    case 'map': return new Map(v.value.map(([k, x]) => [bufInput(k), bufInput(x)]));
    default: return v.value;
  }
}

function bufCanonical(v: unknown): Canonical {
  if (isCelError(v)) throw v;
  switch (typeof v) {
    case 'bigint': return { int: String(v) };
    case 'number': return dbl(v);
    case 'string': case 'boolean': return v;
    default: break;
  }
  if (v === null) return null;
  if (isCelUint(v)) return { uint: String(v.value) };
  if (v instanceof Uint8Array) return { bytes: b64(v) };
  if (isCelList(v)) return { list: [...v].map(bufCanonical) };
  if (isCelMap(v)) return { map: sortMap([...v].map(([k, x]) => [bufCanonical(k as unknown), bufCanonical(x)])) };
  if (isCelType(v)) return { type: v.name };
  return { other: `${(v as object).constructor?.name ?? typeof v}` };
}

export const bufbuild: Candidate = {
  name: '@bufbuild/cel',
  version: '0.6.1',
  compile(expr) {
    const run = bufPlan(bufEnv, bufParse(expr));
    return (bindings) => run(Object.fromEntries(Object.entries(bindings).map(([k, x]) => [k, bufInput(x)])) as never);
  },
  canonical: bufCanonical,
  compileJson(expr) {
    const run = bufPlan(bufEnv, bufParse(expr));
    return (bindings) => run(bindings as never);
  },
};

// ---- cel-js (chromeGG) -----------------------------------------------------------------------------
function chromeInput(v: Input): unknown {
  switch (v.kind) {
    case 'int': case 'uint': return Number(v.value);
    case 'null': return null;
    case 'list': return v.value.map(chromeInput);
    case 'map': return Object.fromEntries(v.value.map(([k, x]) => [String(chromeInput(k)), chromeInput(x)]));
    default: return v.value;
  }
}

function chromeCanonical(v: unknown): Canonical {
  if (v instanceof Error) throw v;
  switch (typeof v) {
    // One JS number stands for int, uint and double alike: compared by value (see `sameValue`).
    case 'number': return Number.isInteger(v) ? { int: String(v) } : dbl(v);
    case 'string': case 'boolean': return v;
    default: break;
  }
  if (v === null) return null;
  if (v instanceof Uint8Array) return { bytes: b64(v) };
  if (Array.isArray(v)) return { list: v.map(chromeCanonical) };
  if (typeof v === 'object') return { map: sortMap(Object.entries(v).map(([k, x]) => [k, chromeCanonical(x)])) };
  return { other: typeof v };
}

export const chromegg: Candidate = {
  name: 'cel-js',
  version: '0.8.2',
  compile(expr) {
    const parsed = chromeCel.parse(expr);
    if (!parsed.isSuccess) throw new Error(`parse error: ${JSON.stringify(parsed.errors).slice(0, 200)}`);
    return (bindings) => chromeCel.evaluate(parsed.cst, Object.fromEntries(Object.entries(bindings).map(([k, x]) => [k, chromeInput(x)])) as never);
  },
  canonical: chromeCanonical,
  compileJson(expr) {
    const parsed = chromeCel.parse(expr);
    if (!parsed.isSuccess) throw new Error('parse error');
    return (bindings) => chromeCel.evaluate(parsed.cst, bindings as never);
  },
};

export const CANDIDATES: readonly Candidate[] = [marcbachmann, bufbuild, chromegg];
