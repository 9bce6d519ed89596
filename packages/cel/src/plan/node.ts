/**
 * What the planner reads of cel-js 8.0.0's checked AST and evaluator. The checker leaves on each node
 * the handler it resolved (`handle`: an overload chosen at check time, or cel-js's run-time dispatch
 * through the same registry when a type is `dyn`), the checked type and, for operators, `left`/`right`.
 * The planner calls those handlers with cel-js's own evaluator, so overloads, conversions and error
 * values are cel-js's; it replaces only the tree walk, the contexts and the per-node dispatch.
 */
import type { Environment } from '@marcbachmann/cel-js';
import type { CelCache } from '../values.js';

/** A checked type (cel-js `TypeDeclaration`). */
export interface CelType {
  readonly kind: string;
  readonly name: string;
  matchesValueType(value: unknown, ev: Evaluator): boolean;
  fieldLazy(value: unknown, key: unknown, node: PlanNode, ev: Evaluator): unknown;
}

/** cel-js's evaluator: type of a value, errors with the node's position. */
export interface Evaluator {
  debugType(value: unknown): CelType;
  debugRuntimeType(value: unknown, checked?: CelType): CelType;
  createError(code: string, message: string, node?: PlanNode): Error;
  /** Registered types by name (a message type may convert a map into its class). */
  readonly objectTypes: ReadonlyMap<string, { readonly convert?: (value: unknown) => unknown }>;
}

/** A cel-js AST node after the checker ran. */
export interface PlanNode {
  readonly op: string;
  readonly args: unknown;
  readonly pos: number;
  readonly checkedType?: CelType;
  readonly left?: PlanNode;
  readonly right?: PlanNode;
  readonly condition?: PlanNode;
  readonly receiverWithArgs?: readonly PlanNode[];
  readonly handle?: (...args: never[]) => unknown;
  readonly meta: {
    readonly alternate?: PlanNode;
    readonly macro?: Readonly<Record<string, unknown>>;
    readonly evaluate?: { readonly name: string };
    readonly label?: string;
  };
}

/** The fields of a `comprehension` node's `args`. */
export interface ComprehensionArgs {
  readonly iterable: PlanNode;
  readonly iterVarName: string;
  readonly init: PlanNode;
  readonly step: PlanNode;
  readonly errorsAreFatal?: boolean;
  readonly condition?: (accu: unknown) => boolean;
  readonly result: (accu: unknown) => unknown;
  readonly iterCtx?: { readonly iterType?: CelType };
}

/**
 * One evaluation's state: the activation and the slots of the variables a comprehension or `cel.bind`
 * binds and of each comprehension's accumulator (numbered at plan time; CEL has no recursion).
 */
export interface Frame {
  readonly act: Readonly<Record<string, unknown>>;
  readonly slots: unknown[];
  /** The evaluation's conversions (containers converted whole, once each). */
  readonly conv: { readonly cache: CelCache };
}

/** A planned node: its value in a frame. */
export type Step = (frame: Frame) => unknown;

interface ParsedForCapture {
  (ctx?: Record<string, unknown>): unknown;
  ast: { evaluate: unknown };
  check(): { valid: boolean };
}

const evaluators = new WeakMap<Environment, Evaluator>();

/**
 * The environment's evaluator. cel-js keeps it private and passes it to every node it evaluates, so the
 * planner evaluates a one-node expression whose evaluation hands it back (once per environment).
 */
export function evaluatorOf(env: Environment): Evaluator {
  let ev = evaluators.get(env);
  if (!ev) {
    const probe = env.parse('true') as unknown as ParsedForCapture;
    probe.check();
    probe.ast.evaluate = (captured: Evaluator) => captured;
    ev = probe({}) as Evaluator;
    if (typeof ev?.createError !== 'function' || typeof ev.debugType !== 'function') throw new Error('cel-js evaluator not found (the pinned cel-js version changed?)');
    evaluators.set(env, ev);
  }
  return ev;
}

/** Thrown while planning a node the planner does not cover: the whole expression runs in cel-js. */
export class NotPlanned extends Error {
  override readonly name = 'NotPlanned';
}

/** The name of the evaluate function cel-js attached to a node (its operator's, or a specialised one). */
export function evaluateName(node: PlanNode): string | undefined {
  return node.meta.evaluate?.name;
}
