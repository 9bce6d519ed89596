/**
 * `compileCel`: one CEL expression compiled in Kubernetes' CEL environment (its libraries), checked once and
 * evaluated many times. Values go in as JSON (integral numbers are CEL ints) and come out as JSON.
 */
import { CelError } from './errors.js';
import { CelBudget, UNMETERED, type CelMeter } from './meter.js';
import { buildCel, CelCompileError, pointAt } from './compile.js';
import { celEnvironment, type CelFunction } from './env.js';
import { withMeter } from './runtime.js';
import { kubernetesMinor, NEWEST_KUBERNETES_VERSION } from './versions.js';
import { Activation, given, view } from './view.js';
import { fromCel } from './values.js';

const isEnumerable = Object.prototype.propertyIsEnumerable;

/** A checked CEL expression returned by {@link compileCel}, ready to evaluate many times. */
export interface CompiledCel {
  /** The checked result type (`bool`, `string`, `int`, `dyn`, …). */
  readonly type: string;
  /**
   * Evaluates with `variables` (JSON values by name; only those the expression reads are looked up and
   * converted, the others are never touched); throws a {@link CelError} with code `EVALUATION` (or `BUDGET_EXCEEDED`) on a run-time error.
   */
  evaluate(variables?: Readonly<Record<string, unknown>>): unknown;
  /**
   * Evaluates as {@link CompiledCel.evaluate} does, and gives the evaluation's `cost` in the API server's units: what
   * cel-go's runtime cost tracker with Kubernetes' library costs counts for the same expression and input, which the
   * API server holds to 1,000,000 per expression (docs/security.md#the-cost-of-cel). `work` counts verdict's own
   * units (converting the variables to CEL values, walking lists compared), which the budget holds to the same figure.
   */
  evaluateWithCost(variables?: Readonly<Record<string, unknown>>): { readonly value: unknown; readonly cost: number; readonly work: number };
}

/** Options of {@link compileCel}. */
export interface CompileCelOptions {
  /** Functions to add (see `CelOptions.functions`). */
  functions?: readonly CelFunction[];
  /** Cost units one evaluation may spend (default: unlimited). */
  budget?: number;
  /**
   * The Kubernetes version whose CEL environment the expression must fit (`"1.30"`; default: the newest,
   * {@link NEWEST_KUBERNETES_VERSION}): a function, macro or syntax that version lacks, a mixed list or map
   * literal, an invalid duration or timestamp literal are errors, as the API server refuses them. `false`:
   * verdict's full environment (adds `cel.bind` and the image library, allows mixed literals).
   */
  kubernetesVersion?: string | false;
  /**
   * The variables the expression may read (default: any name). A name with dots (`a.b`) is one variable:
   * `a.b.c` reads the longest declared prefix (`a.b`) and selects the rest, as cel-go resolves qualified names.
   */
  variables?: readonly string[];
  /**
   * `false`: evaluate without type-checking, as cel-go evaluates an unchecked program (cel-spec's
   * `disable_check`): values are typed at run time (`1.0 == 1` is true) and a type error is an evaluation
   * error that `||`, `&&` and `?:` may absorb. Default true: the API server checks every expression.
   */
  typeCheck?: boolean;
}

/**
 * Compiles a CEL expression once. Throws a {@link CelError} with code `INVALID_INPUT` for a syntax or
 * type error (the message points at the column).
 */
export function compileCel(expression: string, options: CompileCelOptions = {}): CompiledCel {
  let compiled;
  try {
    const version = options.kubernetesVersion === false ? undefined : kubernetesMinor(options.kubernetesVersion ?? NEWEST_KUBERNETES_VERSION);
    compiled = buildCel(expression, {
      environment: celEnvironment(options.functions ? { functions: options.functions } : {}),
      refuse: new Map(),
      ...(version === undefined ? {} : { version }),
      ...(options.variables ? { names: options.variables, onlyNames: true } : {}),
      ...(options.typeCheck === false ? { check: false } : {}),
    });
  } catch (error) {
    if (error instanceof CelCompileError) throw new CelError('INVALID_INPUT', `invalid CEL expression: ${error.message}${pointAt(expression, error.offset)}`);
    throw error;
  }
  const budget = options.budget;
  // Only the names the expression reads are looked up and converted (how, decided here once): an unread variable is never touched.
  const reads = compiled.roots.map((name) => ({ name, raw: compiled.raw.has(name), path: compiled.paths.get(name) ?? true }));
  // Run inside the meter (made once: an evaluation allocates no closure): converting the variables is charged (values.ts).
  const run = (variables: Readonly<Record<string, unknown>>, conversions: { readonly cache: Map<object, unknown> }) => {
    const act = new Activation();
    for (const { name, raw, path } of reads) {
      if (!isEnumerable.call(variables, name)) continue;
      const v = variables[name];
      act[name] = raw ? given(v) : view(v, path, conversions);
    }
    return compiled.run(act, conversions);
  };
  const evaluate = (variables: Readonly<Record<string, unknown>>, meter: CelMeter): unknown => {
    if (variables === null) throw new CelError('INVALID_INPUT', 'variables must be an object of values by name (got null)');
    const conversions = { cache: new Map<object, unknown>() };
    try {
      return fromCel(withMeter(meter, run, variables, conversions));
    } catch (error) {
      if (error instanceof CelError) throw error;
      const e = error as Error & { summary?: string };
      throw new CelError('EVALUATION', e.summary ?? e.message, { cause: error });
    }
  };
  return {
    type: compiled.type,
    evaluate: (variables = {}) => evaluate(variables, budget === undefined ? UNMETERED : new CelBudget(budget)),
    evaluateWithCost(variables = {}) {
      const meter = new CelBudget(budget ?? Number.POSITIVE_INFINITY);
      const value = evaluate(variables, meter);
      return { value, cost: meter.cost, work: meter.worked };
    },
  };
}
