/**
 * The CEL environment verdict compiles expressions in: @marcbachmann/cel-js with optional types, the
 * Kubernetes libraries (lib/*.ts) and any functions an adapter adds. Building an environment is costly,
 * so the base one is built once per process and an adapter's functions get one clone per distinct set.
 */
import { Environment } from '@marcbachmann/cel-js';
import { DECLINE } from './ast.js';
import { boundTypeLookups, sizeUnits } from './cost.js';
import { fail, spend, work } from './runtime.js';
import { evaluatorOf } from './plan/node.js';
import { KUBERNETES_LIBRARIES, type CelLibrary, type Override } from './lib/index.js';

/**
 * A CEL function an adapter adds (Kyverno's `image()`, `json`, …). `signature` uses cel-js's form:
 * `name(string): bool` for a global function, `string.name(int): string` for a method.
 * The handler gets CEL values (int as `bigint`, maps as objects or `Map`s) and returns one.
 */
export interface CelFunction {
  readonly signature: string;
  readonly handler: (...args: never[]) => unknown;
  /**
   * The API server's units one call costs, from its arguments (the receiver first, for a method) and its result
   * (default: 1, cel-go's cost of a function it has no estimate for; a negative figure counts as 0, NaN or anything not a
   * number is an evaluation error). verdict also charges its own work for every
   * call: the size of each argument (before the call) and of the result (after it), a string or bytes one unit per
   * ten characters, a list one per element, a map one per entry. Declare a cost for a function whose work is not
   * linear in what it takes and gives.
   */
  readonly cost?: (args: readonly unknown[], result: unknown) => number;
}

/**
 * An added function's handler. It charges the API server's units ({@link CelFunction.cost}, or cel-go's one unit for a
 * function without an estimate) and verdict's work: the size of each argument before the call and of the result after.
 */
function metered(f: CelFunction): (...args: never[]) => unknown {
  const handler = f.handler as (this: unknown, ...args: unknown[]) => unknown;
  const cost = f.cost;
  return function (this: unknown, ...args: unknown[]) {
    let size = 0;
    for (let i = 0; i < args.length; i++) size += sizeUnits(args[i]);
    work(size);
    if (!cost) spend(1);
    const out = handler.apply(this, args);
    work(sizeUnits(out));
    if (cost) {
      // A NaN spent would leave the meter unable to run out (NaN is never below zero).
      const units = cost(args, out);
      if (typeof units !== 'number' || Number.isNaN(units)) fail(`the cost of ${f.signature} must be a number of units, but it gave ${String(units)}`);
      spend(Math.max(0, units));
    }
    return out;
  } as never;
}

/** A type an adapter's functions take or return (cel-js `registerType`): instances of `type` are values of `name`. */
export interface CelType {
  /** The type's CEL name, used in function signatures (e.g. `kyverno.Image`). */
  readonly name: string;
  /** The class whose instances are values of the type. */
  readonly type: abstract new (...args: never[]) => unknown;
}

/** A named value every expression sees (cel-js `registerConstant`), e.g. Kyverno's `json` namespace. */
export interface CelConstant {
  /** The identifier expressions use (e.g. `json`). */
  readonly name: string;
  /** Its CEL type name (a {@link CelType}'s `name`, or a built-in type). */
  readonly type: string;
  /** The value the identifier stands for. */
  readonly value: unknown;
}

/**
 * A replacement of a built-in function at its call sites (e.g. Kyverno's `orValue` on a value that is not
 * optional). Gets `[receiver, ...args]` for a method; returns the result, or `undefined` to let the
 * built-in run.
 */
export type CelOverride = (values: readonly unknown[]) => unknown;

/** What an adapter adds to the environment. */
export interface CelExtensions {
  readonly functions?: readonly CelFunction[];
  readonly types?: readonly CelType[];
  readonly constants?: readonly CelConstant[];
  /** Built-ins replaced, by `name/arity` (a global function) or `.name/arity` (a method). */
  readonly overrides?: Readonly<Record<string, CelOverride>>;
}

export interface CelEnvironment {
  readonly env: Environment;
  /** Library implementations that replace cel-js's built-in ones, by `name/arity` (methods `.name/arity`). */
  readonly overrides: ReadonlyMap<string, Override>;
  /** Only verdict's and cel-js's own functions, all pure (no adapter function): a call's value depends on its arguments only. */
  readonly pure: boolean;
  /** Names of the adapter's functions, which charge their own cost ({@link CelFunction.cost}) in the API server's units. */
  readonly costed: ReadonlySet<string>;
}

let base: CelEnvironment | undefined;
const withExtensions = new Map<string, CelEnvironment>();

function build(libraries: readonly CelLibrary[], extra: CelExtensions): CelEnvironment {
  // Kubernetes checks list and map literals for homogeneous types but lets dyn() unify with anything; cel-js's
  // check refuses [dyn("a"), 1], so verdict does not check them (more permissive; see docs/concepts/cel.md).
  const env = new Environment({ unlistedVariablesAreDyn: true, enableOptionalTypes: true, homogeneousAggregateLiterals: false });
  const overrides = new Map<string, Override>();
  const own = new Set((extra.functions ?? []).map((f) => /^([A-Za-z_][\w]*)\(/.exec(f.signature)?.[1]).filter((n) => n !== undefined));
  for (const lib of libraries) {
    // An adapter's function of the same name replaces the library (Kyverno's `image()` returns its own type).
    if (lib.globals?.some((name) => own.has(name))) continue;
    lib.register(env);
    for (const [key, fn] of Object.entries(lib.overrides ?? {})) {
      const earlier = overrides.get(key);
      // Two libraries may replace the same name for different receiver types: the first that applies wins.
      overrides.set(key, earlier ? (values) => {
        const out = earlier(values);
        return out === DECLINE ? fn(values) : out;
      } : fn);
    }
  }
  for (const [key, fn] of Object.entries(extra.overrides ?? {})) {
    const earlier = overrides.get(key);
    overrides.set(key, (values) => {
      const out = fn(values);
      return out !== undefined ? out : earlier ? earlier(values) : DECLINE;
    });
  }
  for (const t of extra.types ?? []) env.registerType(t.name, t.type as never);
  for (const c of extra.constants ?? []) env.registerConstant(c.name, c.type, c.value as never);
  for (const f of extra.functions ?? []) env.registerFunction(f.signature, metered(f) as never);
  const pure = (extra.functions ?? []).length === 0 && Object.keys(extra.overrides ?? {}).length === 0;
  boundTypeLookups(evaluatorOf(env));
  return { env, overrides, pure, costed: own.size > 0 ? new Set(names(extra.functions ?? [])) : NONE };
}

const NONE: ReadonlySet<string> = new Set();

/** The names of functions by their signatures (`name(…)`, `type.name(…)`). */
function names(functions: readonly CelFunction[]): string[] {
  return functions.map((f) => /([A-Za-z_]\w*)\(/.exec(f.signature)?.[1]).filter((n): n is string => n !== undefined);
}

/** The objects an environment was built from, compared by identity to reuse a cached one. */
function identities(extra: CelExtensions): unknown[] {
  return [...(extra.types ?? []).map((t) => t.type), ...(extra.constants ?? []).map((c) => c.value), ...(extra.functions ?? []).flatMap((f) => [f.handler, f.cost]), ...Object.values(extra.overrides ?? {})];
}

/** The environment with the Kubernetes libraries and, when given, an adapter's additions (cached per set). */
export function celEnvironment(extra: CelExtensions = {}): CelEnvironment {
  const { functions = [], types = [], constants = [], overrides = {} } = extra;
  const overridden = Object.keys(overrides);
  if (functions.length === 0 && types.length === 0 && constants.length === 0 && overridden.length === 0) return (base ??= build(KUBERNETES_LIBRARIES, {}));
  const key = [...types.map((t) => `type ${t.name}`), ...constants.map((c) => `const ${c.name}: ${c.type}`), ...functions.map((f) => f.signature), ...overridden.map((o) => `override ${o}`)].join('\n');
  const ids = identities(extra);
  let env = withExtensions.get(key);
  if (!env || ids.some((x, i) => IDENTITIES.get(env!)?.[i] !== x)) {
    env = build(KUBERNETES_LIBRARIES, extra);
    IDENTITIES.set(env, ids);
    if (withExtensions.size > 32) withExtensions.clear();
    withExtensions.set(key, env);
  }
  return env;
}

const IDENTITIES = new WeakMap<CelEnvironment, readonly unknown[]>();
