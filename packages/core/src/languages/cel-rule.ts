/**
 * CEL expressions as rules: each compiled expression becomes the same closure json-logic compiles to
 * (`Fn = (data, scope) => unknown`), so selection, parameterSelection, merge, traces and budgets do not
 * care which language a rule is written in. The activation holds only the names an expression reads,
 * converted from JSON once per policy evaluation; `variables` are computed lazily, once each.
 */
import type { Fn, Scope } from '../logic/scope.js';
import { ownGet } from '../util/object.js';
import { BudgetExceeded } from '../budget.js';
import {
  Activation, API_SERVER_UNITS, buildCel, celTypeName, fromCel, given, mergeTries, view, withMeter,
  type CelCache, type CelEnvironment, type CompiledExpression, type PathTrie,
} from '@verdict/cel/internal';
import type { CelOptions } from './cel-context.js';

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
   * The API server's cost limits (ValidatingAdmissionPolicy and MutatingAdmissionPolicy): `expression`, the units
   * one expression may spend (its `PerCallLimit`, 1,000,000); `policy`, the units the validations of one policy
   * evaluation may spend together (its `RuntimeCELCostBudget`, 10,000,000). Past either, the expression or the
   * policy fails (`operation cancelled: actual cost limit exceeded`; `validation failed due to running out of
   * cost budget, no further validation rules will be run`) and its failurePolicy decides; the evaluation goes on.
   */
  readonly costLimits?: { readonly expression?: number; readonly policy?: number };
  /**
   * The expressions construct objects (MutatingAdmissionPolicy's `Object{…}` and `JSONPatch{…}`, rewritten to
   * `dyn({…})` literals): each is charged as the API server charges a construction (40 units and its fields).
   */
  readonly objectConstructions?: boolean;
  /**
   * Functions, types, constants and refused names for this template's expressions only, on top of the
   * set's `CelOptions` (e.g. Kyverno's libraries in Kyverno policies, not in ValidatingAdmissionPolicies).
   */
  readonly extensions?: Pick<CelOptions, 'functions' | 'types' | 'constants' | 'overrides' | 'refuse'>;
  /** The Kubernetes version this template's expressions must fit (see `CelOptions.kubernetesVersion`). */
  readonly kubernetesVersion?: string;
  /**
   * The root values, built once per policy evaluation (per parameter set) from the input and the parameters.
   * A name of `names` may also be a getter of the object's class (computed only when an expression reads it).
   */
  activation(input: Readonly<Record<string, unknown>>, parameters: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>>;
  /**
   * Roots the profile can build in part, by name (e.g. the admission `request`): `build(activation, fields)` gives
   * an object holding only `fields`, each as the whole root has it (absent where it has none). Used for an
   * expression that reads the root only through constant field names (`request.operation`): it cannot tell the
   * difference. Any other use of the root (whole, iterated, a dynamic key) reads the activation's value.
   */
  readonly partialRoots?: Readonly<Record<string, (activation: Readonly<Record<string, unknown>>, fields: readonly string[]) => unknown>>;
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
  /** The Kubernetes minor version expressions must fit (undefined: verdict's full environment). */
  readonly version: number | undefined;
  /** `spec.variables`, in order, compiled. */
  readonly variables: Map<string, CompiledExpression>;
  /**
   * What the unit's expressions read below `variables.<name>` (`true` for a variable read whole), filled as they
   * compile; `*` when an expression reads `variables` itself whole.
   */
  readonly variableReads: Map<string, PathTrie>;
}

/**
 * Per-scope CEL state: conversions, the profile's activation and computed variables of one evaluation.
 * The collections are made when first needed: most evaluations convert nothing and have no variables.
 */
class State {
  #cache: CelCache | undefined;
  #values: Map<string, unknown> | undefined;
  #computing: Set<string> | undefined;
  /** Variables whose value is a root passed through unconverted (the JSON itself, for the trace). */
  passed: Map<string, unknown> | undefined;
  activation: Readonly<Record<string, unknown>> | undefined;
  variables: object | undefined;
  constructor(readonly input: unknown, readonly parameters: unknown, readonly meter: object) {}
  /** Conversions of the whole evaluation (one meter per evaluation), shared by its policies: each container converts once. */
  get cache(): CelCache {
    if (this.#cache) return this.#cache;
    let cache = CONVERSIONS.get(this.meter);
    if (!cache) CONVERSIONS.set(this.meter, (cache = new Map()));
    return (this.#cache = cache);
  }
  get values(): Map<string, unknown> {
    return (this.#values ??= new Map());
  }
  get computing(): Set<string> {
    return (this.#computing ??= new Set());
  }
  /** The computed variables so far (none when no variable was read). */
  get computed(): ReadonlyMap<string, unknown> | undefined {
    return this.#values;
  }
}

/** The conversions of each evaluation, by its meter. */
const CONVERSIONS = new WeakMap<object, CelCache>();

/** Key of {@link CelContext.variableReads} for "every variable is read whole" (never a CEL identifier). */
const ALL_VARIABLES = '*';
const ROOT: Item = { data: undefined, item: false };

function stateOf(scope: Scope): State {
  let state = scope.cel as State | undefined;
  if (!state || state.input !== scope.input || state.parameters !== scope.parameters || state.meter !== scope.meter) {
    state = new State(scope.input, scope.parameters, scope.meter);
    scope.cel = state;
  }
  return state;
}

/** The values of the variables computed so far in this scope (JSON), for the trace. */
export function computedVariables(scope: Scope): Record<string, unknown> | undefined {
  const state = scope.cel as State | undefined;
  const values = state?.computed;
  if (!values || values.size === 0) return undefined;
  const out: Record<string, unknown> = {};
  for (const [k, v] of values) out[k] = state.passed?.has(k) ? state.passed.get(k) : fromCel(v);
  return out;
}

function runVariable(compiled: CompiledExpression, at: { act: Readonly<Record<string, unknown>>; state: State }): unknown {
  return compiled.run(at.act, at.state);
}

function variablesOf(ctx: CelContext, scope: Scope, state: State): object {
  if (state.variables) return state.variables;
  const compute = (name: string): unknown => {
    if (state.values.has(name)) return state.values.get(name);
    const compiled = ctx.variables.get(name)!;
    if (state.computing.has(name)) throw new Error(`variable "${name}" refers to itself`);
    state.computing.add(name);
    try {
      const act = activation(ctx, layoutOf(ctx, compiled), scope, ROOT);
      // With the API server's limits, a variable is a part of its own: its limit, charged to the policy, not to the reader.
      const limit = ctx.profile?.costLimits?.expression;
      let value = limit === undefined ? compiled.run(act, state) : scope.meter.beside(limit, runVariable, compiled, { act, state });
      if (isPassed(value, act, compiled)) {
        // The value is a root as given (say Gatekeeper's anyObject): convert only what the unit reads below it.
        (state.passed ??= new Map()).set(name, value);
        value = view(value, ctx.variableReads.has(ALL_VARIABLES) ? true : ctx.variableReads.get(name) ?? true, state);
      }
      state.values.set(name, value);
      return value;
    } catch (error) {
      // The evaluation's budget spent ends the evaluation, wherever it runs out (a variable's error would be the policy's).
      if (error instanceof BudgetExceeded) throw error;
      throw new Error(`variables.${name}: ${(error as Error).message}`, { cause: error });
    } finally {
      state.computing.delete(name);
    }
  };
  // cel-js asks for the descriptor before each read of variables.<name>: one per name and evaluation.
  const descriptors = new Map<string, PropertyDescriptor>();
  const describe = (name: string): PropertyDescriptor => {
    let d = descriptors.get(name);
    if (!d) descriptors.set(name, (d = { value: compute(name), writable: false, enumerable: true, configurable: true }));
    return d;
  };
  state.variables = new Proxy({}, {
    get: (_t, key) => (key === 'constructor' ? Object : typeof key === 'string' && ctx.variables.has(key) ? compute(key) : undefined),
    getOwnPropertyDescriptor: (_t, key) => (typeof key === 'string' && ctx.variables.has(key) ? describe(key) : undefined),
    has: (_t, key) => typeof key === 'string' && ctx.variables.has(key),
    ownKeys: () => [...ctx.variables.keys()],
  });
  return state.variables;
}

function isPassed(value: unknown, act: Record<string, unknown>, compiled: CompiledExpression): boolean {
  if (value === null || typeof value !== 'object') return false;
  for (const name of compiled.passed) if (act[name] === value) return true;
  return false;
}

/** The current item of a json-logic iteration, for `{cel}` inside `all`/`some`/…: CEL sees it as `item`. */
interface Item {
  readonly data: unknown;
  readonly item: boolean;
}

/** The profile's activation of this scope (built once per scope). */
function profileActivation(profile: CelProfile, scope: Scope, state: State): Readonly<Record<string, unknown>> {
  return (state.activation ??= profile.activation(scope.input as Record<string, unknown>, (scope.parameters ?? {}) as Record<string, unknown>));
}

function rootValue(ctx: CelContext, name: string, scope: Scope, state: State): unknown {
  if (name === 'element' && scope.hasElement) return scope.element;
  if (name === 'input' && !ctx.profile) return scope.input;
  // A name of the profile is read directly (its activation may give it by a getter; see `named`).
  if (ctx.profile) return ownGet(profileActivation(ctx.profile, scope, state), name);
  if (name === 'parameters' || name === 'params') return scope.parameters;
  return ownGet(scope.input, name);
}

/** How the activation gives each root of an expression: computed once per compiled expression. */
const Given = { Variables: 0, AsIs: 1, Unconverted: 2, Converted: 3 } as const;
type Given = (typeof Given)[keyof typeof Given];

interface Layout {
  readonly roots: readonly string[];
  readonly given: readonly Given[];
  readonly paths: readonly PathTrie[];
  /** Per root: whether it is one of the profile's names, read directly (the profile's activation may give it by a getter). */
  readonly named: readonly boolean[];
  /** Per root: the profile's partial builder and the fields the expression reads, when it reads only constant fields. */
  readonly partial: readonly ({ build: (activation: Readonly<Record<string, unknown>>, fields: readonly string[]) => unknown; fields: readonly string[] } | undefined)[];
}

const layouts = new WeakMap<CompiledExpression, Layout>();

/** How the activation gives each root of `compiled` (rule closures look it up once, when they are made). */
function layoutOf(ctx: CelContext, compiled: CompiledExpression): Layout {
  let layout = layouts.get(compiled);
  if (!layout) {
    const roots = compiled.roots;
    const given = roots.map((name) => (name === 'variables' ? Given.Variables : compiled.passed.has(name) ? Given.AsIs : compiled.raw.has(name) ? Given.Unconverted : Given.Converted));
    const names = new Set(ctx.profile?.names);
    names.delete('element');
    const paths = roots.map((name) => compiled.paths.get(name) ?? true);
    const partial = roots.map((name, i) => {
      const build = ctx.profile?.partialRoots && Object.hasOwn(ctx.profile.partialRoots, name) ? ctx.profile.partialRoots[name] : undefined;
      const trie = paths[i]!;
      // Only constant field names below the root: no whole read, no iteration over its keys.
      return build && names.has(name) && trie !== true && trie.each === undefined ? { build, fields: trie.keys } : undefined;
    });
    layout = { roots, given, paths, named: roots.map((name) => names.has(name)), partial };
    layouts.set(compiled, layout);
  }
  return layout;
}

function activation(ctx: CelContext, layout: Layout, scope: Scope, at: Item): Record<string, unknown> {
  const state = stateOf(scope);
  const act = new Activation();
  const { roots, given: how, paths, named, partial } = layout;
  for (let i = 0; i < roots.length; i++) {
    const name = roots[i]!;
    const kind = how[i]!;
    if (kind === Given.Variables) {
      act[name] = variablesOf(ctx, scope, state);
      continue;
    }
    const part = partial[i];
    const value = at.item && name === 'item' ? at.data
      : part ? part.build(profileActivation(ctx.profile!, scope, state), part.fields)
      : named[i] ? profileActivation(ctx.profile!, scope, state)[name] : rootValue(ctx, name, scope, state);
    const seen = kind === Given.AsIs ? value : kind === Given.Unconverted ? given(value) : view(value, paths[i]!, state);
    if (seen !== undefined) act[name] = seen;
  }
  return act;
}

/** Raw CEL evaluation in a scope (values stay CEL values: bigint ints). */
export function celEvaluator(ctx: CelContext, compiled: CompiledExpression, item = false): (data: unknown, scope: Scope) => unknown {
  const layout = layoutOf(ctx, compiled);
  const limit = ctx.profile?.costLimits?.expression;
  // Made once: a review allocates no closure per expression. The activation is built inside the meter: the
  // input it converts to CEL values is charged (values.ts), to this expression's limit as well.
  const evaluate = (scope: Scope, at: Item) => compiled.run(activation(ctx, layout, scope, at), scope.cel as State);
  const run = (scope: Scope, at: Item) => withMeter(scope.meter, evaluate, scope, at);
  if (limit !== undefined) {
    return (data, scope) => {
      try {
        return scope.meter.within(limit, run, scope, item ? { data, item } : ROOT);
      } catch (error) {
        throw plain(error);
      }
    };
  }
  return (data, scope) => {
    try {
      return run(scope, item ? { data, item } : ROOT);
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
export function celFn(ctx: CelContext, compiled: CompiledExpression, item = false): Fn {
  const run = celEvaluator(ctx, compiled, item);
  return (data, scope) => fromCel(run(data, scope));
}

/** A CEL condition (validation `expression`, matchCondition): must give a bool at run time too. */
export function celCondition(ctx: CelContext, compiled: CompiledExpression): Fn {
  const run = celEvaluator(ctx, compiled);
  return (data, scope) => {
    const value = run(data, scope);
    if (typeof value !== 'boolean') throw new Error(`expression must evaluate to a bool, got ${celTypeName(value)}`);
    return value;
  };
}

/** The API server's units where `dyn({…})` stands for an object construction (`CelProfile.objectConstructions`). */
const CONSTRUCTING = { ...API_SERVER_UNITS, constructions: true };

/** Compiles `expression` in the context (errors: `CelCompileError`). */
export function compileInContext(ctx: CelContext, expression: string, expect?: 'bool' | 'string'): CompiledExpression {
  const options = {
    environment: ctx.environment, refuse: ctx.refuse, ...(ctx.profile ? { names: ctx.profile.names } : {}), ...(expect ? { expect } : {}), ...(ctx.version === undefined ? {} : { version: ctx.version }),
    ...(ctx.profile?.objectConstructions ? { units: CONSTRUCTING } : {}),
  };
  const compiled = buildCel(expression, options);
  const reads = compiled.paths.get('variables');
  if (reads === true || reads?.each !== undefined) ctx.variableReads.set(ALL_VARIABLES, true);
  else if (reads) reads.keys.forEach((name, i) => ctx.variableReads.set(name, mergeTries(ctx.variableReads.get(name), reads.subs[i]!)));
  return compiled;
}
