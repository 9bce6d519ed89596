/**
 * Load-time checks of a type-checked expression that the Kubernetes API server makes when a policy is
 * created (cel-go's validators as environment/base.go enables them), so verdict refuses what it refuses,
 * at the same place:
 *
 * - with a Kubernetes version: every function, method, macro and syntax must exist in that version's
 *   environment (versions.ts); list and map literals must be homogeneous (cel-go's
 *   ValidateHomogeneousAggregateLiterals: each element of the type of the first, literals inside a
 *   `format` call's arguments excepted); ordering comparisons across int, uint and double need 1.28;
 * - always (Kubernetes from 1.29, and verdict's own documents): a `duration(…)` or `timestamp(…)` of a
 *   literal must evaluate (ValidateDurationLiterals, ValidateTimestampLiterals). Regex literals are checked
 *   by compile.ts with RE2 (ValidateRegexLiterals).
 *
 * One difference is deliberate: Kubernetes knows the OpenAPI type of every field, verdict does not (an
 * input value is `dyn`), so an element of type `dyn` is never a mismatch here: `[object.a, 'x']` loads
 * where the API server might know `object.a` is an int and refuse it.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { isNode, type Node } from './ast.js';
import { CelCompileError } from './compile-error.js';
import {
  CROSS_TYPE_GATE, GLOBAL_GATES, LITERAL_VALIDATORS_SINCE, METHOD_GATES, METHOD_GATES_ANY_RECEIVER, NAMESPACE_GATES,
  EXISTS_ONE_GATE, OPTIONAL_SYNTAX_GATE, TWO_VAR_GATE, TWO_VAR_MACROS, type Gate,
} from './versions.js';

interface CheckedType {
  readonly type: string;
  readonly name: string;
  readonly hasDynType?: boolean;
  readonly hasPlaceholderType?: boolean;
}

type Checked = Node & { checkedType?: CheckedType; meta: Node['meta'] & { alternate?: Node } };

const NUMERIC = new Set(['int', 'uint', 'double']);
const ORDERING = new Set(['<', '<=', '>', '>=']);

function typeOf(node: unknown): CheckedType | undefined {
  return (node as Checked | undefined)?.checkedType;
}

/** Whether two literal elements agree: the same type, or one verdict cannot know (dyn, an unresolved type parameter). */
function equivalent(a: CheckedType | undefined, b: CheckedType | undefined): boolean {
  if (!a || !b || a.type === b.type) return true;
  return Boolean(a.hasDynType || b.hasDynType || a.hasPlaceholderType || b.hasPlaceholderType);
}

/** An element's type for the homogeneity check: `dyn(…)` written out is the type dyn, known to both sides. */
function literalType(e: Checked): CheckedType | undefined {
  if (e.op === 'call' && (e.args as [string])[0] === 'dyn') return { type: 'dyn', name: 'dyn' };
  return typeOf(e);
}

export interface ValidateOptions {
  /** The Kubernetes minor version to hold the expression to; undefined: verdict's full environment. */
  readonly version: number | undefined;
  /** Names bound by the environment as namespaces (optional, sets, format, …), not variables. */
  readonly env: Environment;
}

function refuse(what: string, gate: Gate, version: number, pos: number): never {
  const where = gate.since === Number.POSITIVE_INFINITY
    ? `it is ${gate.library}`
    : `it arrived with ${gate.library}`;
  throw new CelCompileError(`${what} is not available in Kubernetes 1.${version}'s CEL environment: ${where}`, pos);
}

/** Throws a {@link CelCompileError} at the first node the API server would refuse when the policy is created. */
export function validateCel(root: Node, options: ValidateOptions): void {
  const { version, env } = options;
  const gated = version !== undefined;
  const allows = (gate: Gate | undefined) => gate === undefined || !gated || gate.since <= version;
  const seen = new Set<object>();

  const literal = (fn: 'duration' | 'timestamp', arg: Checked): void => {
    if (gated && version < LITERAL_VALIDATORS_SINCE) return;
    if (arg.op !== 'value' || (typeof arg.args !== 'string' && typeof arg.args !== 'bigint')) return;
    const text = typeof arg.args === 'string' ? JSON.stringify(arg.args) : String(arg.args);
    try {
      env.evaluate(`${fn}(${text})`);
    } catch (error) {
      const e = error as { summary?: string; message?: string };
      throw new CelCompileError(`invalid ${fn} argument: ${String(e.summary ?? e.message).split('\n')[0]}`, arg.pos);
    }
  };

  const homogeneous = (elements: readonly Checked[]): void => {
    let first: CheckedType | undefined;
    for (const e of elements) {
      const t = literalType(e);
      if (!first) {
        first = t;
        continue;
      }
      if (!equivalent(first, t)) throw new CelCompileError(`expected type '${first.type}' but found '${t!.type}' (list and map literals must have elements of one type)`, e.pos);
    }
  };

  // Children first: the innermost use is reported (`ip(…)` before the `.family()` called on it).
  const visit = (node: Checked, inFormat: boolean): void => {
    if (seen.has(node)) return;
    seen.add(node);
    const macro = node.meta.macro;
    if (macro) for (const [key, value] of Object.entries(macro)) if (key !== 'ast' && key !== 'macroHasProps') visitAll(value, false);
    const formatArgs = node.op === 'rcall' ? (node.args as [string])[0] === 'format' : (node.op === 'list' || node.op === 'map') && inFormat;
    visitAll(node.args, formatArgs);
    if (node.meta.alternate) visit(node.meta.alternate as Checked, false);
    check(node, inFormat);
  };
  const check = (node: Checked, inFormat: boolean): void => {
    switch (node.op) {
      case 'id':
        // The type of optional values is an identifier of the optional types library.
        if (node.args === 'optional_type' && !allows(OPTIONAL_SYNTAX_GATE)) refuse('optional_type', OPTIONAL_SYNTAX_GATE, version!, node.pos);
        break;
      case 'call': {
        const [name, args] = node.args as [string, Checked[]];
        const gate = GLOBAL_GATES.get(name);
        if (!allows(gate)) refuse(`${name}()`, gate!, version!, node.pos);
        if ((name === 'duration' || name === 'timestamp') && args.length === 1) literal(name, args[0]!);
        break;
      }
      case 'rcall': {
        const [name, receiver, args] = node.args as [string, Checked, Checked[]];
        if (receiver.op === 'id' && typeof receiver.args === 'string' && env.hasVariable(receiver.args)) {
          const qualified = `${receiver.args}.${name}`;
          const gate = NAMESPACE_GATES.get(qualified) ?? NAMESPACE_GATES.get(`${receiver.args}.*`);
          if (!allows(gate)) refuse(`${qualified}()`, gate!, version!, node.pos);
        } else if (gated) {
          const macroArity = TWO_VAR_MACROS.get(name);
          if (TWO_VAR_MACROS.has(name) && (macroArity === undefined || macroArity === args.length) && !allows(TWO_VAR_GATE)) {
            // `existsOne(x, p)` has one variable: it is cel-go's camel-case exists_one (cel-go v0.22, which Kubernetes 1.32 ships).
            if (name === 'existsOne' && args.length === 2) refuse('existsOne()', EXISTS_ONE_GATE, version, node.pos);
            refuse(`${name}() with two variables`, TWO_VAR_GATE, version, node.pos);
          }
          const t = typeOf(receiver);
          const kind = !t || t.name === 'dyn' ? undefined : t.name.replace(/<.*$/, '');
          const gate = kind !== undefined ? METHOD_GATES.get(kind)?.get(name) : METHOD_GATES_ANY_RECEIVER.get(name);
          if (!allows(gate)) refuse(`${kind ?? 'dyn'}.${name}()`, gate!, version, node.pos);
        }
        break;
      }
      case '.?': case '[?]':
        if (!allows(OPTIONAL_SYNTAX_GATE)) refuse(`"${node.op === '.?' ? '.?' : '[?'}" (optional selection)`, OPTIONAL_SYNTAX_GATE, version!, node.pos);
        break;
      case 'list': case 'map': {
        // Optional entries (`[?x]`, `{?'k': v}`, cel-js's `optionalIndices`) are optional syntax; their
        // values are optionals, so the other entries' types are compared among themselves.
        const optional = (node as { optionalIndices?: readonly number[] }).optionalIndices ?? [];
        if (optional.length > 0 && !allows(OPTIONAL_SYNTAX_GATE)) refuse('an optional entry', OPTIONAL_SYNTAX_GATE, version!, node.pos);
        if (!gated || inFormat) break;
        if (node.op === 'list') homogeneous((node.args as Checked[]).filter((_, i) => !optional.includes(i)));
        else {
          const entries = (node.args as [Checked, Checked][]).filter((_, i) => !optional.includes(i));
          homogeneous(entries.map((e) => e[0]));
          homogeneous(entries.map((e) => e[1]));
        }
        break;
      }
      default:
        if (ORDERING.has(node.op) && gated && !allows(CROSS_TYPE_GATE)) {
          const [l, r] = (node.args as Checked[]).map(typeOf);
          if (l && r && NUMERIC.has(l.type) && NUMERIC.has(r.type) && l.type !== r.type) refuse(`"${l.type} ${node.op} ${r.type}"`, CROSS_TYPE_GATE, version, node.pos);
        }
        if (/\?/.test(node.op) && node.op !== '?:' && !allows(OPTIONAL_SYNTAX_GATE)) refuse('an optional entry', OPTIONAL_SYNTAX_GATE, version!, node.pos);
    }
  };
  // Elements of a list or map literal written as a `format` argument keep the exemption, as in cel-go.
  const visitAll = (x: unknown, inFormat: boolean): void => {
    if (isNode(x)) visit(x as Checked, inFormat);
    else if (Array.isArray(x)) for (const y of x) visitAll(y, inFormat);
  };
  visit(root as Checked, false);
}
