/**
 * Runs one CEL expression both ways, through verdict's planner and through cel-js's own tree-walking
 * evaluation of the same checked expression, and compares the outcomes: the same value
 * (bigints, doubles incl. NaN and -0, Maps, typed values by class and text) or the same error (class,
 * code and summary), and the same cost spent from the meter. Used by the conformance differential test and the fuzz test.
 */
import { isDeepStrictEqual } from 'node:util';
import { buildCel, CelCompileError, type CompiledCel } from '../src/compile.js';
import { given, view } from '../src/view.js';
import { celEnvironment, type CelEnvironment } from '../src/env.js';
import { convertedUnits, withMeter } from '../src/runtime.js';
import { CelBudget } from '../src/meter.js';
import type { UnitModel } from '../src/units.js';

/**
 * A run's value or error, and the cost units it spent (when measured): `cost` in the API server's units,
 * `work` in verdict's own units but converting input to CEL values, `converted` on that.
 */
export type Outcome = ({ readonly value: unknown } | { readonly error: string }) & { readonly cost?: number; readonly work?: number; readonly converted?: number };

/** What running `run` gives: its value, or a description of its error. */
export function outcome(run: () => unknown): Outcome {
  try {
    return { value: run() };
  } catch (thrown) {
    const e = thrown as Error & { code?: string; summary?: string };
    return { error: `${e?.constructor?.name ?? typeof thrown} ${e?.code ?? ''} ${e?.summary ?? e?.message ?? String(thrown)}` };
  }
}

/** Typed values (quantities, uints, optionals…) compared by class and printed form as well. */
function canonical(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(canonical);
  if (v instanceof Map) return new Map([...v].map(([k, x]) => [canonical(k), canonical(x)]));
  if (v instanceof Uint8Array) return { bytes: [...v] };
  const proto = Object.getPrototypeOf(v) as unknown;
  if (proto === Object.prototype || proto === null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, canonical(x)]));
  const typed = v as { hasValue?: () => boolean; value?: () => unknown };
  if (v.constructor.name === 'Optional' && typed.hasValue && typed.value) return { optional: typed.hasValue() ? canonical(typed.value()) : 'none' };
  return { class: v.constructor.name, text: String(v as object), fields: Object.fromEntries(Object.entries(v).map(([k, x]) => [k, canonical(x)])) };
}

/**
 * Whether `a` (the planner's outcome) agrees with `b` (cel-js's): the same value or error and the same cost,
 * and at most `b`'s units for conversion. They legitimately differ there: cel-js's activation is converted
 * before the run along every path the expression may read, the planner converts where it reads, so a branch
 * not taken converts nothing. (Given CEL values rather than JSON, cel-js converts nothing at all; the
 * planner's conversion of values already converted is then not measured.)
 */
export function sameOutcome(a: Outcome, b: Outcome): boolean {
  if (a.cost !== b.cost || a.work !== b.work) return false;
  if (a.converted !== undefined && b.converted !== undefined && a.converted > b.converted) return false;
  if ('error' in a || 'error' in b) return 'error' in a && 'error' in b && a.error === b.error;
  return isDeepStrictEqual(canonical(a.value), canonical(b.value));
}

export interface BothWays {
  /** Whether the planner covered the expression (false: both runs are cel-js, trivially equal). */
  readonly planned: boolean;
  /**
   * The planner's outcome. The planner has two back ends (generated code, closures), both run: when they
   * differ, this is an error outcome naming both, so that it differs from cel-js's outcome too.
   */
  readonly plan: Outcome;
  readonly library: Outcome;
}

/**
 * Compiles `expression` (undefined when it does not check) and runs it with `activation` both ways. With
 * `json`, the activation is JSON and each run gets it as verdict's rules do: cel-js converted (`view`), the
 * planner its roots unconverted (it converts where it reads); otherwise the activation is CEL values.
 */
export function bothWays(expression: string, activation: Readonly<Record<string, unknown>>, environment: CelEnvironment = celEnvironment(), json = false, units?: UnitModel): BothWays | undefined {
  let planned;
  let closures;
  let library;
  try {
    const model = units ? { units } : {};
    planned = buildCel(expression, { environment, refuse: new Map(), ...model });
    closures = buildCel(expression, { environment, refuse: new Map(), plan: 'closures', ...model });
    library = buildCel(expression, { environment, refuse: new Map(), plan: false, ...model });
  } catch (error) {
    if (error instanceof CelCompileError) return undefined;
    throw error;
  }
  const as = (cel: CompiledCel, conversions: { cache: Map<object, unknown> }) => (json
    ? Object.fromEntries(Object.entries(activation).map(([k, v]) => [k, cel.raw.has(k) ? given(v) : view(v, cel.paths.get(k) ?? true, conversions)]))
    : activation);
  const run = (cel: CompiledCel): Outcome => {
    const conversions = { cache: new Map<object, unknown>() };
    const meter = new CelBudget(Number.MAX_SAFE_INTEGER);
    const before = convertedUnits();
    // The activation is converted inside the meter, as verdict's rules do it: conversion is charged.
    const out = outcome(() => withMeter(meter, () => cel.run(as(cel, conversions), conversions)));
    const converted = convertedUnits() - before;
    return { ...out, cost: meter.cost, work: meter.worked - converted, ...(json ? { converted } : {}) };
  };
  if (planned.planned && planned.backend !== 'generated') throw new Error(`not generated: ${expression}`);
  const plan = run(planned);
  const closurePlan = run(closures);
  const agree = sameOutcome(plan, closurePlan) && plan.converted === closurePlan.converted;
  return { planned: planned.planned, plan: agree ? plan : { error: `the back ends differ: generated ${show(plan)}, closures ${show(closurePlan)}` }, library: run(library) };
}

function show(o: Outcome): string {
  return JSON.stringify(o, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));
}
