/**
 * Compiles json-logic rules into closures once, at load time. Evaluation then
 * costs a few closure calls instead of a tree walk with key lookups.
 */
import { UNMETERED } from '../budget.js';
import { escapePointerSegment, isPlainObject, parsePathNotation, preview } from '../util/object.js';
import { didYouMean } from '../util/suggest.js';
import { compileAnd, compileIf, compileIteration, compileOr, EAGER, evalArgs, ITERATION_OPS, spentText, withExtras } from './builtins.js';
import { CONSTANTS, constant, EXTENSIONS, isConstant } from './extensions.js';
import { inputRead, parameterRead, type ParameterRead } from './reads.js';
import { makeRootReader, makeWalker, pathExists, rootExists, rootObject, type Fn, type Scope } from './scope.js';

export type Mode = 'root' | 'item';

/** A compile error with the JSON pointer of the offending expression. */
export class LogicError extends Error {
  constructor(message: string, readonly path: string) {
    super(message);
  }
}

/** A dynamic glob/regex pattern read from parameters: compiled at load time for each parameter set. */
export interface PatternSite {
  kind: 'glob' | 'regex';
  pattern: Fn;
  flags?: Fn;
}

const SPECIAL = ['var', 'missing', 'missing_some', 'if', '?:', 'and', 'or', 'input', 'exists', 'ref', 'cel', ...ITERATION_OPS];
/** Every operation name the rule language knows. */
export const OPERATION_NAMES: readonly string[] = [...new Set([...SPECIAL, ...Object.keys(EAGER), ...Object.keys(EXTENSIONS)])].sort();

function isLogic(node: unknown): node is Record<string, unknown> {
  return isPlainObject(node) && Object.keys(node).length === 1;
}

type DynamicVar = (path: unknown, notFound: unknown, data: unknown, scope: Scope) => unknown;

/** json-logic-js `var` with a path known only at run time. */
const DYNAMIC_VAR: Record<Mode, DynamicVar> = {
  root: (path, notFound, _data, scope) =>
    path === undefined || path === '' || path === null ? rootObject(scope) : makeRootReader(spentText(String(path), scope).split('.'))(scope, notFound),
  item: (path, notFound, data, scope) =>
    path === undefined || path === '' || path === null ? data : makeWalker(spentText(String(path), scope).split('.'))(data, notFound),
};

/** Compiles `{"cel": "<expression>"}` (set by the template's CEL context); throws {@link LogicError}. */
export type CelHook = (expression: unknown, mode: Mode, at: string) => Fn;

export class LogicCompiler {
  readonly patternSites: PatternSite[] = [];
  /** The CEL rule language, where the document's context provides it. */
  cel: CelHook | undefined;
  /**
   * Every `parameters.<path>` the compiled rules read with a path written out
   * (root-scope `var`, `input`, `exists`, `missing`, `get` on a parameter), for
   * the load-time check against `parametersSchema`. Other rule languages
   * compiled for the same template push their reads here too.
   */
  readonly parameterReads: ParameterRead[] = [];
  /**
   * Every other root-scope path written out (`job.image`, `object.spec`), for
   * the load-time check against an adapter's input shape (`inputShape`).
   */
  readonly inputReads: ParameterRead[] = [];
  private readonly compiled = new Map<string, Fn>();
  private readonly compiling = new Set<string>();

  /**
   * @param definitions named sub-expressions usable as `{"ref": "name"}` or `{"ref": ["name", arg]}`
   * @param definitionsWhere JSON pointer of the definitions block, for error messages
   */
  constructor(
    private readonly definitions: Readonly<Record<string, unknown>> = {},
    private readonly definitionsWhere = '/spec/definitions',
  ) {}

  compile(node: unknown, mode: Mode, where: string): Fn {
    if (Array.isArray(node)) {
      const fns = node.map((n, i) => this.compile(n, mode, `${where}/${i}`));
      if (fns.every(isConstant)) return constant(fns.map((f) => CONSTANTS.get(f)));
      return (d, s) => evalArgs(fns, d, s);
    }
    if (!isLogic(node)) return constant(node);
    const op = Object.keys(node)[0]!;
    const raw = node[op];
    const list: unknown[] = Array.isArray(raw) ? raw : [raw];
    const at = `${where}/${escapePointerSegment(op)}`;
    const argWhere = (i: number) => (Array.isArray(raw) ? `${at}/${i}` : at);
    const args = () => list.map((n, i) => this.compile(n, mode, argWhere(i)));

    switch (op) {
      case 'var': {
        const compiled = args();
        if (mode === 'root' && isConstant(compiled[0])) this.noteRead(CONSTANTS.get(compiled[0]!), at);
        return withExtras(this.compileVar(compiled, mode), compiled, 2);
      }
      case 'missing':
      case 'missing_some': {
        const compiled = args();
        if (mode === 'root') this.noteMissingReads(op, compiled, at);
        return this.compileMissing(op, compiled, mode);
      }
      case 'if':
      case '?:':
        return compileIf(args());
      case 'and':
        return compileAnd(args());
      case 'or':
        return compileOr(args());
      case 'input':
        return this.compileInput(list, at);
      case 'exists':
        return this.compileExists(list, mode, at);
      case 'ref':
        return this.compileRef(list, mode, at);
      case 'cel':
        if (!this.cel) throw new LogicError('CEL expressions are not available here', at);
        return this.cel(raw, mode, at);
    }
    if (ITERATION_OPS.has(op)) {
      const source = this.compile(list[0], mode, argWhere(0));
      const body = this.compile(list[1], 'item', argWhere(1));
      const initial = op === 'reduce' && list[2] !== undefined ? this.compile(list[2], mode, argWhere(2)) : undefined;
      return compileIteration(op, source, body, initial);
    }
    // Own properties only: names every object inherits (toString, constructor, …) are not operations.
    const make = Object.hasOwn(EAGER, op) ? EAGER[op] : Object.hasOwn(EXTENSIONS, op) ? EXTENSIONS[op] : undefined;
    if (!make) {
      throw new LogicError(`unknown operation "${op}"${didYouMean(op, OPERATION_NAMES)}. An object with one key is read as an operation; to write a literal object give it a different number of keys`, at);
    }
    const compiledArgs = args();
    if (op === 'get') this.noteGetRead(list, compiledArgs, mode, at);
    if (mode === 'root' && (op === 'glob' || op === 'regex') && !isConstant(compiledArgs[0])) {
      const site: PatternSite = { kind: op, pattern: compiledArgs[0]! };
      if (op === 'regex' && compiledArgs[2]) site.flags = compiledArgs[2];
      this.patternSites.push(site);
    }
    let fn: Fn;
    try {
      fn = make(compiledArgs, list);
    } catch (error) {
      throw new LogicError(`"${op}": ${(error as Error).message}`, at);
    }
    // Fold pure operations over constant arguments (e.g. {"quantity": "16Gi"}).
    if (compiledArgs.every(isConstant)) {
      try {
        return constant(fn(undefined, FOLD_SCOPE));
      } catch {
        return fn;
      }
    }
    return fn;
  }

  /** Records a read of a written-out root path (a dotted string): of the parameters, or of the input. */
  private noteRead(path: unknown, at: string, extra: readonly string[] = []): void {
    if (typeof path !== 'string') return;
    this.noteSegments([...path.split('.'), ...extra], at);
  }

  /** Files a root-scope read under the parameters or the input. */
  private noteSegments(segments: readonly string[], at: string): void {
    const parameter = parameterRead(segments, at);
    if (parameter) {
      this.parameterReads.push(parameter);
      return;
    }
    const input = inputRead(segments, at);
    if (input) this.inputReads.push(input);
  }

  /** `missing` / `missing_some` with keys written out. */
  private noteMissingReads(op: string, args: readonly Fn[], at: string): void {
    if (!args.every(isConstant)) return;
    const values = args.map((a) => CONSTANTS.get(a));
    const keys = op === 'missing' ? (Array.isArray(values[0]) ? values[0] : values) : values[1];
    if (Array.isArray(keys)) for (const key of keys) this.noteRead(Array.isArray(key) ? key[0] : key, at);
    else this.noteRead(keys, at);
  }

  /** `{"get": [{"var": "parameters.x"}, "key"]}` reads `parameters.x.key`. */
  private noteGetRead(list: readonly unknown[], args: readonly Fn[], mode: Mode, at: string): void {
    const source = list[0];
    if (!isLogic(source) || !isConstant(args[1])) return;
    const op = Object.keys(source)[0]!;
    if (op !== 'input' && !(op === 'var' && mode === 'root')) return;
    const raw = source[op];
    const path = Array.isArray(raw) ? raw[0] : raw;
    const key = CONSTANTS.get(args[1]!);
    const segments = Array.isArray(key) ? key.map(String) : [String(key)];
    if (typeof path === 'string' && path !== '') this.noteRead(path, at, segments);
  }

  private compileVar(args: Fn[], mode: Mode): Fn {
    const [pathFn, defaultFn] = args;
    const notFoundOf = (d: unknown, s: Scope): unknown => {
      const v = defaultFn ? defaultFn(d, s) : undefined;
      return v === undefined ? null : v;
    };
    if (pathFn === undefined || isConstant(pathFn)) {
      const path = pathFn ? CONSTANTS.get(pathFn) : undefined;
      if (path === undefined || path === '' || path === null) return mode === 'root' ? (_d, s) => rootObject(s) : (d) => d;
      const segments = String(path).split('.');
      const constNotFound = defaultFn === undefined ? null : isConstant(defaultFn) ? (CONSTANTS.get(defaultFn) ?? null) : undefined;
      if (mode === 'root') {
        const read = makeRootReader(segments);
        return constNotFound !== undefined ? (_d, s) => read(s, constNotFound) : (d, s) => read(s, notFoundOf(d, s));
      }
      const walk = makeWalker(segments);
      return constNotFound !== undefined ? (d) => walk(d, constNotFound) : (d, s) => walk(d, notFoundOf(d, s));
    }
    const dynamicVar = DYNAMIC_VAR[mode];
    return (d, s) => dynamicVar(pathFn(d, s), notFoundOf(d, s), d, s);
  }

  private compileMissing(op: string, args: Fn[], mode: Mode): Fn {
    const dynamicVar = DYNAMIC_VAR[mode];
    const missing = (keys: readonly unknown[], d: unknown, s: Scope): unknown[] => {
      s.meter.spend(keys.length);
      const out: unknown[] = [];
      for (const key of keys) {
        // json-logic-js reads each key as {"var": key}: a list key is a path and a default.
        const value = Array.isArray(key) ? dynamicVar(key[0], key[1] === undefined ? null : key[1], d, s) : dynamicVar(key, null, d, s);
        if (value === null || value === '') out.push(key);
      }
      return out;
    };
    if (op === 'missing') {
      return (d, s) => {
        const values = evalArgs(args, d, s);
        return missing(Array.isArray(values[0]) ? values[0] : values, d, s);
      };
    }
    return (d, s) => {
      const [need, options] = evalArgs(args, d, s) as [number, unknown[]];
      const areMissing = missing(Array.isArray(options) ? options : [options], d, s);
      return options.length - areMissing.length >= need ? [] : areMissing;
    };
  }

  private compileInput(list: unknown[], at: string): Fn {
    const segments = this.constantPath(list[0], 'input', at);
    this.noteSegments(segments, at);
    const dflt = list[1] === undefined ? undefined : this.compile(list[1], 'root', `${at}/1`);
    const read = makeRootReader(segments);
    if (!dflt) return (_d, s) => read(s, null);
    return (d, s) => {
      const v = read(s, undefined);
      return v === undefined ? dflt(d, s) : v;
    };
  }

  private compileExists(list: unknown[], mode: Mode, at: string): Fn {
    const segments = this.constantPath(list[0], 'exists', at);
    if (mode === 'root') this.noteSegments(segments, at);
    return mode === 'root' ? (_d, s) => rootExists(s, segments) : (d) => pathExists(d, segments);
  }

  private constantPath(value: unknown, op: string, at: string): string[] {
    if (isLogic(value)) throw new LogicError(`"${op}" takes a path written out (a dotted string or a list of segments), not an expression`, at);
    try {
      return typeof value === 'string' && !value.startsWith('/') ? (value === '' ? [] : value.split('.')) : parsePathNotation(value);
    } catch (error) {
      throw new LogicError(`"${op}": ${(error as Error).message}`, at);
    }
  }

  private compileRef(list: unknown[], mode: Mode, at: string): Fn {
    const name = list[0];
    if (typeof name !== 'string') throw new LogicError(`"ref" takes the name of a definition (got ${preview(name)})`, at);
    if (!Object.prototype.hasOwnProperty.call(this.definitions, name)) {
      const known = Object.keys(this.definitions);
      throw new LogicError(`"ref" names an unknown definition "${name}"${didYouMean(name, known)}${known.length ? '' : '; define it under spec.definitions'}`, at);
    }
    if (list.length < 2) return this.definition(name, mode, at);
    const argFn = this.compile(list[1], mode, `${at}/1`);
    const body = this.definition(name, 'item', at);
    return (d, s) => body(argFn(d, s), s);
  }

  /** Compiles a definition lazily, once per mode, rejecting definitions that refer to themselves. */
  private definition(name: string, mode: Mode, at: string): Fn {
    const key = `${mode}:${name}`;
    const done = this.compiled.get(key);
    if (done) return done;
    if (this.compiling.has(key)) throw new LogicError(`definition "${name}" refers to itself (directly or through other definitions); recursion is not allowed`, at);
    this.compiling.add(key);
    try {
      const fn = this.compile(this.definitions[name], mode, `${this.definitionsWhere}/${escapePointerSegment(name)}`);
      this.compiled.set(key, fn);
      return fn;
    } finally {
      this.compiling.delete(key);
    }
  }
}

const FOLD_SCOPE: Scope = { input: undefined, parameters: undefined, element: undefined, hasElement: false, overlay: false, meter: UNMETERED };

/** A compiled json-logic expression for direct use: `apply(data)` like json-logic-js `apply(rule, data)`. */
export interface CompiledLogic {
  apply(data?: unknown): unknown;
}

/**
 * Compiles one json-logic expression with verdict's operations. `definitions`
 * enables `ref`. Throws {@link LogicError} (with a JSON pointer) for an unknown
 * operation or a malformed argument.
 */
export function compileLogic(logic: unknown, options: { definitions?: Readonly<Record<string, unknown>> } = {}): CompiledLogic {
  const fn = new LogicCompiler(options.definitions ?? {}, '/definitions').compile(logic, 'root', '');
  return {
    apply: (data?: unknown) => fn(data, { input: data, parameters: undefined, element: undefined, hasElement: false, overlay: false, meter: UNMETERED }),
  };
}
