/**
 * The planner's second back end: one JavaScript function per planned expression, compiled with
 * `new Function` at load. The closure plan (plan.ts) calls a closure per node, and each closure's code is
 * shared by every node of its kind, so a field read there is a keyed read whose inline cache sees every
 * object and key of every expression (megamorphic). The generated function reads `c["resources"]` at
 * its own site, with its own cache, and runs the plan without a call per node. It does node for node
 * what the closures do (emit-nodes.ts mirrors plan.ts, loops.ts, logic.ts, fields.ts, raw.ts and
 * hoist.ts): the same handlers, checks, order of evaluation, errors and costs; node kinds it does not
 * generate are the closure plan's steps, called from the generated code.
 *
 * Safety of the generated source: it is built from fixed code templates and names this module makes
 * (`t3`, `k5`, `L7`, `h2`, slot numbers); the only text from the expression in it is a field name, as a
 * string literal produced by `JSON.stringify` (a JavaScript string literal for any string). Every other
 * value (constants, handlers, nodes, paths) is passed in through the constants array, never as text.
 *
 * Where code generation is unavailable (a Content-Security-Policy without `unsafe-eval`, Cloudflare
 * Workers), {@link canGenerate} is false, checked once, and expressions run as closures.
 */
import type { PlanNode, Step } from './node.js';
import type { Planner, Scope } from './plan.js';
import { emitNode } from './emit-nodes.js';

let available: boolean | undefined;

/** Whether this runtime compiles code from text (checked once). */
export function canGenerate(): boolean {
  if (available === undefined) {
    try {
      available = (new Function('return 1') as () => unknown)() === 1;
    } catch {
      available = false;
    }
  }
  return available;
}

/** One function's code being built: its statements and the temporaries they use. */
interface Body {
  lines: string[];
  temps: string[];
}

/** The source of a generated plan, built node by node (see emit-nodes.ts). */
export class Emitter {
  readonly #consts: unknown[] = [];
  readonly #names = new Map<unknown, string>();
  readonly #helpers: string[] = [];
  #body: Body = { lines: [], temps: [] };
  #next = 0;

  constructor(readonly p: Planner) {}

  /** The name under which the generated code reads `value` (passed in, never written into the source). */
  constant(value: unknown): string {
    // Numbers are not shared: a Map takes 0 and -0 for the same key.
    let name = typeof value === 'number' ? undefined : this.#names.get(value);
    if (name === undefined) {
      name = `k${this.#consts.length}`;
      this.#consts.push(value);
      this.#names.set(value, name);
    }
    return name;
  }

  /** A field name as a string literal (the only text of an expression in the source). */
  literal(key: string): string {
    return JSON.stringify(key);
  }

  /** A fresh local variable of the function being built. */
  temp(): string {
    const name = `t${this.#next++}`;
    this.#body.temps.push(name);
    return name;
  }

  /** A fresh statement label. */
  label(): string {
    return `L${this.#next++}`;
  }

  line(code: string): void {
    this.#body.lines.push(code);
  }

  /** `code`'s value in a fresh local variable, whose name is returned. */
  assign(code: string): string {
    const t = this.temp();
    this.line(`${t} = ${code};`);
    return t;
  }

  /** The statements `emit` writes, as a block's text (they go into the current function, not its body). */
  block(emit: () => void): string {
    const outer = this.#body.lines;
    this.#body.lines = [];
    try {
      emit();
      return this.#body.lines.join('\n');
    } finally {
      this.#body.lines = outer;
    }
  }

  /** A separate function `(f) => value` of the frame; returns its name. */
  helper(emit: () => string): string {
    const outer = this.#body;
    this.#body = { lines: [], temps: [] };
    try {
      const value = emit();
      const name = `h${this.#next++}`;
      this.#helpers.push(functionText(name, this.#body, value));
      return name;
    } finally {
      this.#body = outer;
    }
  }

  /** Compiles the function whose value is `value` (emitted into the current body). */
  compile(value: string): Step {
    const source = [
      '"use strict";',
      ...this.#consts.map((_, i) => `const k${i} = k[${i}];`),
      ...this.#helpers,
      `return ${functionText('plan', this.#body, value)};`,
    ].join('\n');
    return (new Function('k', source) as (k: readonly unknown[]) => Step)(this.#consts);
  }
}

function functionText(name: string, body: Body, value: string): string {
  const temps = body.temps.length > 0 ? `let ${body.temps.join(', ')};\n` : '';
  return `function ${name}(f) {\nconst s = f.slots;\n${temps}${body.lines.join('\n')}\nreturn ${value};\n}`;
}

/** The expression at `root` as one generated function (throws `NotPlanned` where the closure plan would). */
export function generate(p: Planner, root: PlanNode, scope: Scope): Step {
  const e = new Emitter(p);
  return e.compile(emitNode(e, root, scope));
}

