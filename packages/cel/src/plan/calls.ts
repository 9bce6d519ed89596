/**
 * Function and method calls. cel-js's checker leaves one of two handlers on a call node: the overload it
 * resolved (its `__handle`: argument types known at load), or `callFn`, which looks the overload up on
 * every run from the arguments' run-time types. The planner calls a resolved overload's function
 * directly (no argument array), and gives a `dyn` call an inline cache: the overload found for the last
 * run-time types is reused while the types repeat (the registry does not change after load). Arguments
 * evaluate right to left and errors get the call's position, as in cel-js; any other handler (verdict's
 * library overrides, for one) is called as cel-js calls it.
 */
import { EvaluationError } from '@marcbachmann/cel-js';
import type { Planner, Scope } from './plan.js';
import { NotPlanned, type CelType, type Evaluator, type Frame, type PlanNode, type Step } from './node.js';

export type Fn = (this: Evaluator, ...args: unknown[]) => unknown;
interface Declaration {
  readonly handler: Fn & { readonly __handle?: unknown };
}
interface Candidates {
  findFunction(types: readonly CelType[], receiver?: CelType | null): Declaration | null;
}
export interface CallNode extends PlanNode {
  readonly candidates?: Candidates;
  readonly argTypes?: readonly CelType[];
}

/** cel-js's error base class (not exported): errors of that class get the call's position attached. */
const CelError = Object.getPrototypeOf(EvaluationError) as abstract new (...args: never[]) => Error & { withAst(node: PlanNode): Error };

export function attach(error: unknown, node: PlanNode): unknown {
  return error instanceof CelError ? error.withAst(node) : error;
}

/** `fn(values…)` with cel-js's error handling (`callFunctionHandler`). */
function invoke(fn: Fn, ev: Evaluator, values: readonly unknown[], node: PlanNode): unknown {
  try {
    return fn.apply(ev, values as unknown[]);
  } catch (error) {
    throw attach(error, node);
  }
}

/** Values of `steps` evaluated right to left, as cel-js resolves an argument list. */
function values(steps: readonly Step[], f: Frame): unknown[] {
  let i = steps.length;
  const out = new Array<unknown>(i);
  while (i--) out[i] = steps[i]!(f);
  return out;
}

/** A resolved overload called directly, specialised for one and two arguments. */
function direct(fn: Fn, ev: Evaluator, steps: readonly Step[], node: PlanNode): Step {
  if (steps.length === 1) {
    const [a] = steps as [Step];
    return (f) => {
      const x = a(f);
      try {
        return fn.call(ev, x);
      } catch (error) {
        throw attach(error, node);
      }
    };
  }
  if (steps.length === 2) {
    const [a, b] = steps as [Step, Step];
    return (f) => {
      const y = b(f);
      const x = a(f);
      try {
        return fn.call(ev, x, y);
      } catch (error) {
        throw attach(error, node);
      }
    };
  }
  return (f) => invoke(fn, ev, values(steps, f), node);
}

export type Handle = ((...args: unknown[]) => unknown) & { readonly __asyncFirst?: unknown; readonly __asyncBoth?: unknown };

/**
 * Whether `handle` is the resolved overload's own call (cel-js wraps it to await promised arguments when
 * an argument may be asynchronous; verdict's functions are synchronous, so the wrapper only passes values on).
 */
function isResolved(handle: Handle, resolved: Declaration | null): resolved is Declaration {
  const own = resolved?.handler.__handle as Handle | undefined;
  return own !== undefined && (handle === own || handle === own.__asyncFirst || handle === own.__asyncBoth);
}

/** Whether `node`'s handler is cel-js's run-time dispatch (`callFn`, perhaps behind the async wrapper). */
function isDispatch(handle: Handle, node: CallNode): boolean {
  return (handle.name === 'callFn' || handle.name === 'handle') && node.argTypes?.some((t) => (t as { hasDynType?: boolean }).hasDynType) === true;
}

/** The inline cache of a call with one `dyn` argument: the overload found for the last run-time type. */
export class CallCache {
  type: CelType | undefined = undefined;
  last: Declaration | null = null;
  /** @param string cel-js's string type */
  constructor(readonly candidates: Candidates, readonly string: CelType) {}
  /** Looks the overload for `type` up (the registry does not change after load). */
  lookup(type: CelType): void {
    this.last = this.candidates.findFunction([type]);
    this.type = type;
  }
}

/**
 * How a call node is made: `direct` (the resolved overload's function, called with cel-js's evaluator as
 * `this`), `dispatch` (one `dyn` argument: `call` looks the overload up, with an inline cache), or
 * `handle` (`call` is the node's handler given the argument values). Arguments are `args`, evaluated
 * right to left.
 */
export type CallShape =
  | { readonly kind: 'direct'; readonly args: readonly PlanNode[]; readonly fn: Fn }
  | { readonly kind: 'dispatch'; readonly args: readonly PlanNode[]; readonly call: (value: unknown) => unknown; readonly cache: CallCache; readonly handle: Handle }
  | { readonly kind: 'handle'; readonly args: readonly PlanNode[]; readonly call: (values: unknown[]) => unknown };

/** The shape of a function call (`call`) or method call (`rcall`) node (see {@link CallShape}). */
export function callShape(ev: Evaluator, node: CallNode): CallShape {
  const handle = node.handle as Handle | undefined;
  if (node.op === 'rcall') {
    if (typeof handle !== 'function' || !node.receiverWithArgs) throw new NotPlanned('method call without a handler');
    const args = node.receiverWithArgs;
    const receiver = args[0]!.checkedType;
    const resolved = node.candidates && node.argTypes && receiver ? node.candidates.findFunction(node.argTypes, receiver) : null;
    if (isResolved(handle, resolved)) return { kind: 'direct', args, fn: resolved.handler };
    return { kind: 'handle', args, call: (values) => handle(values, ev, node) };
  }
  if (typeof handle !== 'function') throw new NotPlanned('call without a handler');
  const args = (node.args as [string, PlanNode[]])[1];
  const resolved = node.candidates && node.argTypes ? node.candidates.findFunction(node.argTypes) : null;
  if (isResolved(handle, resolved)) return { kind: 'direct', args, fn: resolved.handler };
  if (isDispatch(handle, node) && node.candidates && args.length === 1) {
    const cache = new CallCache(node.candidates, ev.debugType(''));
    const checked = args[0]!.checkedType;
    const call = (x: unknown): unknown => {
      // A string's run-time type is string, whatever the checked type (cel-js's debugRuntimeType).
      const type = typeof x === 'string' ? cache.string : ev.debugRuntimeType(x, checked);
      if (type !== cache.type) cache.lookup(type);
      const last = cache.last;
      // No overload: cel-js's own dispatch gives its error.
      if (!last) return handle([x], node, ev);
      try {
        return last.handler.call(ev, x);
      } catch (error) {
        throw attach(error, node);
      }
    };
    return { kind: 'dispatch', args, call, cache, handle };
  }
  return { kind: 'handle', args, call: (values) => handle(values, node, ev) };
}

/** A `call` or `rcall` node planned (see {@link callShape}). */
export function planCallNode(p: Planner, node: CallNode, scope: Scope): Step {
  const shape = callShape(p.ev, node);
  const steps = shape.args.map((n) => p.plan(n, scope));
  if (shape.kind === 'direct') return direct(shape.fn, p.ev, steps, node);
  if (shape.kind === 'dispatch') {
    const call = shape.call;
    const [a] = steps as [Step];
    return (f) => call(a(f));
  }
  const call = shape.call;
  return (f) => call(values(steps, f));
}
