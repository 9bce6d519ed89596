/**
 * Compiles one CEL expression at load time: parse, type-check, analyse (free names, parameter reads,
 * refused names) and instrument (cost meter, verdict's library functions). Errors carry the offset in
 * the expression so load problems can point at the column.
 */
import { closest } from './suggest.js';
import { analyse, type Node } from './ast.js';
import type { CelEnvironment } from './env.js';
import { compileRegex } from './regex.js';
import { work } from './runtime.js';
import { API_SERVER_UNITS, assignUnits, type UnitModel } from './units.js';
import { chargesItself } from './cost.js';
import { COSTED_FUNCTIONS } from './lib/costed.js';
import { planCel, type Backend, type Plan } from './plan/plan.js';
import type { PlanNode } from './plan/node.js';
import type { CelCache } from './values.js';

import { CelCompileError } from './compile-error.js';
import { validateCel } from './validate.js';
import { dottedNames, resolveQualifiedNames } from './qualified.js';
import { uncheck } from './unchecked.js';

export { CelCompileError };

export interface CelCompileOptions {
  readonly environment: CelEnvironment;
  /** The only free names allowed besides `variables` (an adapter's profile); undefined: any name. */
  readonly names?: readonly string[];
  /** `names` is the whole list: `variables` (the admission policies' root) is not added (compileCel's `variables` option). */
  readonly onlyNames?: boolean;
  /** Names (variables or functions) refused at load time, with the reason. */
  readonly refuse: ReadonlyMap<string, string>;
  /** The result type the expression must have (`dyn` is accepted and checked at run time). */
  readonly expect?: 'bool' | 'string';
  /**
   * Plan the expression (default true: generated code where the runtime allows it, else closures); `closures`:
   * closures only; false: cel-js evaluates it (the planner's tests compare all three).
   */
  readonly plan?: boolean | 'closures';
  /**
   * The Kubernetes minor version (`30` for 1.30) whose CEL environment the expression must fit (versions.ts,
   * validate.ts); undefined: verdict's full environment.
   */
  readonly version?: number;
  /**
   * Type-check the expression (default true, as the API server does); false: cel-spec's unchecked mode
   * (unchecked.ts), evaluated by cel-js.
   */
  readonly check?: boolean;
  /** How the API server's cost units are counted (units.ts; default: the API server's own program options). */
  readonly units?: UnitModel;
}

/** A compiled expression. `run` evaluates it against an activation (free name → CEL value). */
export interface CompiledCel {
  readonly expression: string;
  /** Free names the expression reads. */
  readonly roots: readonly string[];
  /** Per root: a trie of the constant paths read below it, or `'whole'` (see {@link PathTrie}). */
  readonly paths: ReadonlyMap<string, PathTrie>;
  /** Roots only passed through (the result, or compared with null): given unconverted (see `Facts.passed`). */
  readonly passed: ReadonlySet<string>;
  /** Constant `params.x.y` / `parameters.x.y` reads (segments after the root). */
  readonly parameterReads: readonly (readonly string[])[];
  /** The checked result type (`bool`, `string`, `dyn`, …). */
  readonly type: string;
  /** Whether the planner compiled the expression (false: cel-js evaluates it; see plan/plan.ts). */
  readonly planned: boolean;
  /** How the planned expression runs (undefined when cel-js evaluates it). */
  readonly backend: Backend | undefined;
  /**
   * Roots `run` takes as JSON, unconverted (a planned expression converts what it reads: plan/raw.ts);
   * every other root is given converted (`view`).
   */
  readonly raw: ReadonlySet<string>;
  /** Evaluates; `conversions` caches containers converted whole during this evaluation. */
  run(activation: Readonly<Record<string, unknown>>, conversions?: { readonly cache: CelCache }): unknown;
}

interface Parsed {
  (ctx?: Record<string, unknown>): unknown;
  ast: Node;
  check(): { valid: boolean; type?: string; error?: Error & { range?: { start: number }; summary?: string } };
}

const ALWAYS = ['variables'];

/** The constant paths read below a root: `true` where a value is read whole. */
export type PathTrie = true | PathNode;

/** The keys read below a value (in arrays, so the per-request walk allocates no iterator). */
export interface PathNode {
  /** What is read below every element of a list (a comprehension's range), if anything. */
  readonly each: PathTrie | undefined;
  readonly keys: readonly string[];
  /** `subs[i]` is what is read below `keys[i]`. */
  readonly subs: readonly PathTrie[];
}

type Building = Map<string, true | Building>;

function node(map: Building): PathNode {
  const keys: string[] = [];
  const subs: PathTrie[] = [];
  for (const [key, sub] of map) {
    if (key === '*' || key === '') continue;
    keys.push(key);
    subs.push(sub === true ? true : node(sub));
  }
  const each = map.get('*');
  return { each: each === undefined || each === true ? each : node(each), keys, subs };
}

/** Everything `a` or `b` reads. */
export function mergeTries(a: PathTrie | undefined, b: PathTrie): PathTrie {
  if (a === undefined) return b;
  if (a === true || b === true) return true;
  const keys = [...a.keys];
  const subs = [...a.subs];
  b.keys.forEach((key, i) => {
    const at = keys.indexOf(key);
    if (at < 0) {
      keys.push(key);
      subs.push(b.subs[i]!);
    } else subs[at] = mergeTries(subs[at], b.subs[i]!);
  });
  const each = a.each === undefined ? b.each : b.each === undefined ? a.each : mergeTries(a.each, b.each);
  return { each, keys, subs };
}

function trie(paths: string[][] | 'whole' | undefined): PathTrie {
  if (paths === undefined || paths === 'whole') return true;
  const root: Building = new Map();
  for (const path of paths) {
    let at: Building = root;
    for (let i = 0; i < path.length; i++) {
      const seg = path[i]!;
      const next = at.get(seg);
      if (next === true) break;
      if (i === path.length - 1) at.set(seg, true);
      else if (next) at = next;
      else {
        const fresh: Building = new Map();
        at.set(seg, fresh);
        at = fresh;
      }
    }
  }
  return node(root);
}

export function buildCel(expression: string, options: CelCompileOptions): CompiledCel {
  if (typeof expression !== 'string') throw new CelCompileError(`a CEL expression must be a string (got ${expression === null ? 'null' : typeof expression})`, undefined);
  if (expression.trim() === '') throw new CelCompileError('the CEL expression is empty', undefined);
  let parsed: Parsed;
  try {
    parsed = options.environment.env.parse(expression) as unknown as Parsed;
  } catch (error) {
    throw fromLibrary(error);
  }
  // Dotted names among the declared ones are variables of their own (`a.b.c` reads `a.b`, then field `c`).
  const dotted = dottedNames(options.names);
  if (dotted) resolveQualifiedNames(parsed.ast, dotted);
  const unchecked = options.check === false;
  if (unchecked) uncheck(parsed.ast);
  const checked = parsed.check();
  const facts = analyse(parsed.ast, options.environment.overrides, unchecked);
  // Namespaces the environment defines (optional, strings, sets, cel, …) are not read from the activation.
  for (const name of [...facts.roots.keys()]) if (options.environment.env.hasVariable(name)) facts.roots.delete(name);
  for (const [name, pos] of [...facts.roots, ...facts.calls]) {
    const refused = options.refuse.get(name);
    if (refused !== undefined) throw new CelCompileError(refused, pos);
  }
  if (options.names) {
    const allowed = options.onlyNames ? options.names : [...options.names, ...ALWAYS];
    for (const [name, pos] of facts.roots) {
      if (allowed.includes(name)) continue;
      const near = closest(name, allowed);
      throw new CelCompileError(`undeclared reference to "${name}"${near ? ` (did you mean "${near}"?)` : ''}; the names available here are ${allowed.join(', ')}`, pos);
    }
  }
  // Before the type error: a function the version lacks is named as such (cel-js may not know it either).
  if (options.version !== undefined) validateCel(parsed.ast, { version: options.version, env: options.environment.env });
  if (!checked.valid) throw unknownNamespace(checked.error, facts.calls, facts.roots) ?? fromLibrary(checked.error);
  if (options.version === undefined) validateCel(parsed.ast, { version: undefined, env: options.environment.env });
  // A constant pattern RE2 cannot run is a load error, as the API server refuses it when the policy is created.
  for (const { pattern, pos } of facts.patterns) {
    try {
      compileRegex(pattern);
    } catch (error) {
      throw new CelCompileError((error as Error).message, pos);
    }
  }
  // The API server's cost units of each block (after the checker chose handlers and analyse() metered them).
  const costed = options.environment.costed;
  assignUnits(parsed.ast, {
    model: options.units ?? API_SERVER_UNITS,
    source: expression,
    costed: (name, node) => COSTED_FUNCTIONS.has(name) || costed.has(name) || chargesItself(node.handle),
  });
  const type = checked.type ?? 'dyn';
  if (options.expect && type !== options.expect && type !== 'dyn') {
    throw new CelCompileError(`the expression must evaluate to a ${options.expect}, but it gives ${type}`, 0);
  }
  const paths = new Map([...facts.roots.keys()].map((r) => [r, trie(facts.paths.get(r))]));
  // Roots passed through stay as given; `variables` holds values already converted.
  const rawRoots = new Map([...paths].filter(([name]) => name !== 'variables' && !facts.passed.has(name)));
  const planned = options.plan === false || unchecked ? undefined : planCel(parsed.ast as unknown as PlanNode, options.environment.env, { roots: rawRoots, pure: options.environment.pure, ...(options.plan === 'closures' ? { backend: 'closures' as const } : {}) });
  const plan: Plan | undefined = planned?.run;
  return {
    expression,
    roots: [...facts.roots.keys()],
    paths,
    raw: new Set(plan ? rawRoots.keys() : []),
    passed: facts.passed,
    parameterReads: facts.parameterReads,
    type,
    planned: plan !== undefined,
    backend: planned?.backend,
    // One unit of verdict's work per evaluation (cel-go charges none): any number of evaluations is bounded by the budget.
    run: plan ? (activation, conversions) => {
      work(1);
      return plan(activation, conversions);
    } : (activation) => {
      work(1);
      return parsed(activation as Record<string, unknown>);
    },
  };
}

/**
 * `lists.range(3)` where the environment has no `lists` namespace: cel-js takes `lists` for a variable of type
 * `dyn` and finds no method `range` on it. Name the namespace as unknown instead of the overload.
 */
function unknownNamespace(error: unknown, calls: ReadonlyMap<string, number>, roots: ReadonlyMap<string, number>): CelCompileError | undefined {
  const method = /no matching overload for 'dyn\.(\w+)\(/.exec((error as Error | undefined)?.message ?? '')?.[1];
  if (method === undefined) return undefined;
  for (const [qualified, pos] of calls) {
    const dot = qualified.indexOf('.');
    if (dot < 0 || qualified.slice(dot + 1) !== method || !roots.has(qualified.slice(0, dot))) continue;
    const namespace = qualified.slice(0, dot);
    return new CelCompileError(`unknown function "${qualified}": this CEL environment has no "${namespace}" namespace (nor a "${method}" method on a value of type dyn)`, pos);
  }
  return undefined;
}

function fromLibrary(error: unknown): CelCompileError {
  const e = error as (Error & { range?: { start: number }; summary?: string }) | undefined;
  const summary = celGoOverloadMessage(e?.summary ?? e?.message ?? 'invalid expression');
  return new CelCompileError(lowerFirst(summary), e?.range?.start);
}

/**
 * cel-js's "found no matching overload for 'isIP(net.CIDR)'" in cel-go's words, which the API server returns:
 * "found no matching overload for 'isIP' applied to '(net.CIDR)'" (a method: "applied to 'string.(int)'").
 */
function celGoOverloadMessage(text: string): string {
  return text.replace(/found no matching overload for '(?:([^'(]*?)\.)?([\w]+)\(([^']*)\)'/, (_m, receiver: string | undefined, name: string, args: string) => {
    const go = (types: string) => types.replace(/</g, '(').replace(/>/g, ')');
    return `found no matching overload for '${name}' applied to '${receiver ? `${go(receiver)}.` : ''}(${go(args)})'`;
  });
}

function lowerFirst(text: string): string {
  return text.length > 1 && /^[A-Z][a-z]/.test(text) ? text[0]!.toLowerCase() + text.slice(1) : text;
}

/** The expression with a caret under `offset`, for load problems: `at column 12 of the expression:\n  expr\n  ^`. */
export function pointAt(expression: string, offset: number | undefined): string {
  if (offset === undefined) return `\n  ${firstLines(expression)}`;
  let line = 1;
  let start = 0;
  for (let i = 0; i < offset && i < expression.length; i++) {
    if (expression[i] === '\n') {
      line++;
      start = i + 1;
    }
  }
  const end = expression.indexOf('\n', start);
  const text = expression.slice(start, end < 0 ? undefined : end);
  const column = offset - start + 1;
  const where = line > 1 ? `line ${line}, column ${column}` : `column ${column}`;
  return ` (at ${where} of the expression):\n  ${text}\n  ${' '.repeat(column - 1)}^`;
}

function firstLines(expression: string): string {
  const lines = expression.split('\n');
  return lines.length > 3 ? `${lines.slice(0, 3).join('\n  ')}\n  …` : lines.join('\n  ');
}
