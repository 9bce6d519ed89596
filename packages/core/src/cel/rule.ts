/**
 * CEL expressions as rules: each compiled expression becomes the same closure json-logic compiles to
 * (`Fn = (data, scope) => unknown`), so selection, parameterSelection, merge, traces and budgets do not
 * care which language a rule is written in. The activation holds only the names an expression reads,
 * converted from JSON once per policy evaluation; `variables` are computed lazily, once each.
 */
import type { Fn, Scope } from '../logic/scope.js';
import { ownGet } from '../util/object.js';
import { buildCel, type CompiledCel, type PathTrie } from './compile.js';
import type { CelOptions } from './context.js';
import type { CelEnvironment } from './env.js';
import { withMeter } from './runtime.js';
import { fromCel, toCel, celTypeName, type CelCache } from './values.js';

/** How an adapter names what CEL sees in the rules of one template. */
export interface CelProfile {
  /** The only free names expressions may use (besides `variables`); any other is a load error. */
  readonly names: readonly string[];
  /**
   * `message` is literal text, never a `{{ }}` template, and is trimmed (ValidatingAdmissionPolicy and
   * Gatekeeper's CEL templates: the API server never expands templates). Default false.
   */
  readonly literalMessages?: boolean;
  /**
   * Validations stop at the first that fails or errors; the rest are not evaluated (traced as skipped).
   * Kyverno's ValidatingPolicy reports one result per policy this way. Default false: every validation runs.
   */
  readonly firstFailureOnly?: boolean;
  /**
   * The message of a failed CEL validation. Default: the API server's rule (messageExpression when it gives
   * a non-empty single line, else `message`, else "failed expression: <expression>").
   */
  failureMessage?(failed: FailedValidation): string;
  /**
   * `skip`: a matchCondition that errors skips the policy (traced, no error), whatever its failurePolicy
   * (Kyverno's ValidatingPolicy with failurePolicy Ignore). Default `fail`: the error follows failurePolicy.
   */
  readonly matchConditionErrors?: 'fail' | 'skip';
  /**
   * Functions, types, constants and refused names for this template's expressions only, on top of the
   * set's `CelOptions` (e.g. Kyverno's libraries in Kyverno policies, not in ValidatingAdmissionPolicies).
   */
  readonly extensions?: Pick<CelOptions, 'functions' | 'types' | 'constants' | 'overrides' | 'refuse'>;
  /** The root values, built once per policy evaluation (per parameter set) from the input and the parameters. */
  activation(input: Readonly<Record<string, unknown>>, parameters: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>>;
}

/** What a profile's `failureMessage` gets about a CEL validation that evaluated to false. */
export interface FailedValidation {
  /** Index of the validation in the template's `validate` list. */
  readonly index: number;
  /** The validation's expression as written. */
  readonly expression: string;
  /** `message` as written; absent when there is none. */
  readonly message?: string;
  /** The outcome of `messageExpression` (its CEL value, or its error's message); absent when there is none. */
  readonly messageExpression?: { readonly value: unknown } | { readonly error: string };
}

/** Everything CEL rules of one template unit compile against. */
export interface CelContext {
  readonly environment: CelEnvironment;
  readonly profile: CelProfile | undefined;
  readonly refuse: ReadonlyMap<string, string>;
  /** `spec.variables`, in order, compiled. */
  readonly variables: Map<string, CompiledCel>;
}

/** Per-scope CEL state: conversions, the profile's activation and computed variables of one evaluation. */
class State {
  readonly cache: CelCache = new Map();
  readonly values = new Map<string, unknown>();
  readonly computing = new Set<string>();
  activation: Readonly<Record<string, unknown>> | undefined;
  variables: object | undefined;
  constructor(readonly input: unknown, readonly parameters: unknown) {}
}

const STATES = new WeakMap<Scope, State>();
const ROOT: Item = { data: undefined, item: false };

function stateOf(scope: Scope): State {
  let state = STATES.get(scope);
  if (!state || state.input !== scope.input || state.parameters !== scope.parameters) {
    state = new State(scope.input, scope.parameters);
    STATES.set(scope, state);
  }
  return state;
}

/** The values of the variables computed so far in this scope (JSON), for the trace. */
export function computedVariables(scope: Scope): Record<string, unknown> | undefined {
  const state = STATES.get(scope);
  if (!state || state.values.size === 0) return undefined;
  const out: Record<string, unknown> = {};
  for (const [k, v] of state.values) out[k] = fromCel(v);
  return out;
}

function variablesOf(ctx: CelContext, scope: Scope, state: State): object {
  if (state.variables) return state.variables;
  const compute = (name: string): unknown => {
    if (state.values.has(name)) return state.values.get(name);
    const compiled = ctx.variables.get(name)!;
    if (state.computing.has(name)) throw new Error(`variable "${name}" refers to itself`);
    state.computing.add(name);
    try {
      const value = compiled.run(activation(ctx, compiled, scope, ROOT));
      state.values.set(name, value);
      return value;
    } catch (error) {
      throw new Error(`variables.${name}: ${(error as Error).message}`, { cause: error });
    } finally {
      state.computing.delete(name);
    }
  };
  state.variables = new Proxy({}, {
    get: (_t, key) => (key === 'constructor' ? Object : typeof key === 'string' && ctx.variables.has(key) ? compute(key) : undefined),
    getOwnPropertyDescriptor: (_t, key) => (typeof key === 'string' && ctx.variables.has(key) ? { value: compute(key), writable: false, enumerable: true, configurable: true } : undefined),
    has: (_t, key) => typeof key === 'string' && ctx.variables.has(key),
    ownKeys: () => [...ctx.variables.keys()],
  });
  return state.variables;
}

/** The current item of a json-logic iteration, for `{cel}` inside `all`/`some`/…: CEL sees it as `item`. */
interface Item {
  readonly data: unknown;
  readonly item: boolean;
}

function rootValue(ctx: CelContext, name: string, scope: Scope, at: Item & { state: State }): unknown {
  if (name === 'element' && scope.hasElement) return scope.element;
  if (at.item && name === 'item') return at.data;
  if (name === 'input' && !ctx.profile) return scope.input;
  if (ctx.profile) {
    at.state.activation ??= ctx.profile.activation(scope.input as Record<string, unknown>, (scope.parameters ?? {}) as Record<string, unknown>);
    return ownGet(at.state.activation, name);
  }
  if (name === 'parameters' || name === 'params') return scope.parameters;
  return ownGet(scope.input, name);
}

/**
 * The value CEL sees for a root. Only the paths the expression reads are converted (integral numbers to
 * ints), copy-on-write: a rule reading `object.spec.containers[*].resources.limits.memory` allocates
 * nothing when those are strings, and the rest of the object is never visited. `'*'` stands for every
 * element of a list (a comprehension's range). Frozen values (parameters) convert whole, once per process.
 */
export function view(value: unknown, paths: PathTrie, cache: CelCache): unknown {
  if (paths === true || typeof value === 'number') return toCel(value, cache);
  if (value === null || typeof value !== 'object') return value;
  if (Object.isFrozen(value)) return toCel(value, cache);
  if (Array.isArray(value)) {
    const each = paths.get('*');
    if (!each) return value;
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const next = view(item, each, cache);
      if (next !== item) (copy ??= value.slice())[i] = next;
    }
    return copy ?? value;
  }
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return toCel(value, cache);
  let copy: Record<string, unknown> | undefined;
  for (const [key, sub] of paths) {
    if (key === '*' || key === '') continue;
    const item = ownGet(value, key);
    if (item === undefined) continue;
    const next = view(item, sub, cache);
    if (next !== item) (copy ??= { ...(value as Record<string, unknown>) })[key] = next;
  }
  return copy ?? value;
}

function activation(ctx: CelContext, compiled: CompiledCel, scope: Scope, at: Item): Record<string, unknown> {
  const state = stateOf(scope);
  const where = { state, data: at.data, item: at.item };
  const act = Object.create(null) as Record<string, unknown>;
  const roots = compiled.roots;
  for (let i = 0; i < roots.length; i++) {
    const name = roots[i]!;
    const value = name === 'variables' ? variablesOf(ctx, scope, state) : view(rootValue(ctx, name, scope, where), compiled.paths.get(name)!, state.cache);
    if (value !== undefined) act[name] = value;
  }
  return act;
}

/** Raw CEL evaluation in a scope (values stay CEL values: bigint ints). */
export function celEvaluator(ctx: CelContext, compiled: CompiledCel, item = false): (data: unknown, scope: Scope) => unknown {
  return (data, scope) => {
    try {
      return withMeter(scope.meter, () => compiled.run(activation(ctx, compiled, scope, item ? { data, item } : ROOT)));
    } catch (error) {
      throw plain(error);
    }
  };
}

/** cel-js errors carry a multi-line source excerpt; decisions get the one-line summary. */
function plain(error: unknown): unknown {
  const summary = (error as { summary?: unknown }).summary;
  if (typeof summary !== 'string' || !(error instanceof Error) || error.message === summary) return error;
  return new Error(lowerFirst(summary), { cause: error });
}

function lowerFirst(text: string): string {
  return text.length > 1 && /^[A-Z][a-z]/.test(text) ? text[0]!.toLowerCase() + text.slice(1) : text;
}

/** A CEL expression as a rule closure: results come back as JSON values (ints as numbers). */
export function celFn(ctx: CelContext, compiled: CompiledCel, item = false): Fn {
  const run = celEvaluator(ctx, compiled, item);
  return (data, scope) => fromCel(run(data, scope));
}

/** A CEL condition (validation `expression`, matchCondition): must give a bool at run time too. */
export function celCondition(ctx: CelContext, compiled: CompiledCel): Fn {
  const run = celEvaluator(ctx, compiled);
  return (data, scope) => {
    const value = run(data, scope);
    if (typeof value !== 'boolean') throw new Error(`expression must evaluate to a bool, got ${celTypeName(value)}`);
    return value;
  };
}

/** Compiles `expression` in the context (errors: `CelCompileError`). */
export function compileInContext(ctx: CelContext, expression: string, expect?: 'bool' | 'string'): CompiledCel {
  const options = { environment: ctx.environment, refuse: ctx.refuse, ...(ctx.profile ? { names: ctx.profile.names } : {}), ...(expect ? { expect } : {}) };
  return buildCel(expression, options);
}
