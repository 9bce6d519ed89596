/**
 * The CEL environment verdict compiles expressions in: @marcbachmann/cel-js with optional types, the
 * Kubernetes libraries (lib/*.ts) and any functions an adapter adds. Building an environment is costly,
 * so the base one is built once per process and an adapter's functions get one clone per distinct set.
 */
import { Environment } from '@marcbachmann/cel-js';
import { DECLINE } from './ast.js';
import { KUBERNETES_LIBRARIES, type CelLibrary, type Override } from './lib/index.js';

/**
 * A CEL function an adapter adds (Kyverno's `image()`, `json`, …). `signature` uses cel-js's form:
 * `name(string): bool` for a global function, `string.name(int): string` for a method.
 * The handler gets CEL values (int as `bigint`, maps as objects or `Map`s) and returns one.
 */
export interface CelFunction {
  readonly signature: string;
  readonly handler: (...args: never[]) => unknown;
}

export interface CelEnvironment {
  readonly env: Environment;
  /** Library implementations that replace cel-js's built-in ones, by `name/arity` (methods `.name/arity`). */
  readonly overrides: ReadonlyMap<string, Override>;
}

let base: CelEnvironment | undefined;
const withFunctions = new Map<string, CelEnvironment>();

function build(libraries: readonly CelLibrary[], extra: readonly CelFunction[]): CelEnvironment {
  // Kubernetes checks list and map literals for homogeneous types but lets dyn() unify with anything; cel-js's
  // check refuses [dyn("a"), 1], so verdict does not check them (more permissive; see docs/concepts/cel.md).
  const env = new Environment({ unlistedVariablesAreDyn: true, enableOptionalTypes: true, homogeneousAggregateLiterals: false });
  const overrides = new Map<string, Override>();
  for (const lib of libraries) {
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
  for (const f of extra) env.registerFunction(f.signature, f.handler as never);
  return { env, overrides };
}

/** The environment with the Kubernetes libraries and, when given, an adapter's functions (cached per set). */
export function celEnvironment(functions: readonly CelFunction[] = []): CelEnvironment {
  if (functions.length === 0) return (base ??= build(KUBERNETES_LIBRARIES, []));
  const key = functions.map((f) => f.signature).join('\n');
  let env = withFunctions.get(key);
  if (!env || functions.some((f, i) => FUNCTION_HANDLERS.get(env!)?.[i] !== f.handler)) {
    env = build(KUBERNETES_LIBRARIES, functions);
    FUNCTION_HANDLERS.set(env, functions.map((f) => f.handler));
    if (withFunctions.size > 32) withFunctions.clear();
    withFunctions.set(key, env);
  }
  return env;
}

const FUNCTION_HANDLERS = new WeakMap<CelEnvironment, ReadonlyArray<CelFunction['handler']>>();
