/**
 * The generated back end node by node (see emit.ts): each function writes the statements that compute
 * a node into the function being built and returns the name of the local holding the value (or a literal
 * or constant name). Each mirrors the closure the planner makes for the same node (plan.ts, logic.ts,
 * loops.ts), with the same handlers, checks, order of evaluation, errors and costs. Node kinds written
 * here are those on the hot paths; anything else is the closure plan's step, called from the code.
 */
import { below } from '../view.js';
import { spend, counted, work } from '../runtime.js';
import { chargeOf } from '../units.js';
import { invariant } from './hoist.js';
import { callShape, attach, type CallNode } from './calls.js';
import { combine } from './logic.js';
import { binder, checkShape, entries, iterable, sizeOf, slot } from './loops.js';
import { mergeEntries } from './plan.js';
import { mapInsert } from '@marcbachmann/cel-js/evaluator';
import { rawRead, bindRaw, type RawRead } from './raw.js';
import { expectEvaluate, handleOf, planId, selections, type Scope } from './plan.js';
import { NotPlanned, type CelType, type ComprehensionArgs, type PlanNode } from './node.js';
import type { Emitter } from './emit.js';
import { emitChain, emitHas, plainCode } from './emit-fields.js';

export function emitNode(e: Emitter, node: PlanNode, scope: Scope): string {
  // The units of the block that starts here (units.ts), spent first, as the closures do.
  const units = chargeOf(node);
  if (units !== 0) e.line(`${e.constant(spend)}(${units});`);
  return emitInner(e, node, scope);
}

function emitInner(e: Emitter, node: PlanNode, scope: Scope): string {
  const { alternate, macro } = node.meta;
  if (alternate) return emitNode(e, alternate, scope);
  if (macro) {
    if (Array.isArray(macro['macroHasProps'])) return emitHas(e, macro['macroHasProps'] as PlanNode[], scope);
    if (typeof macro['var'] === 'string' && macro['val'] && macro['exp'] && macro['bindCtx']) return emitBind(e, macro, scope);
    throw new NotPlanned('macro');
  }
  if (node.op === 'id' || node.op === '.') {
    const raw = rawRead(e.p, node, scope);
    if (raw) return emitConverted(e, raw, scope);
  }
  const ev = (): string => e.constant(e.p.ev);
  const n = (): string => e.constant(node);
  switch (node.op) {
    case 'value': {
      expectEvaluate(node, 'evaluate');
      const value = node.args;
      return value === true || value === false || value === null ? String(value) : e.constant(value);
    }
    case 'id':
      expectEvaluate(node, 'evaluate');
      return emitId(e, node, scope);
    case '.': case '.?': {
      expectEvaluate(node, 'evaluateBinaryFirst');
      const handle = handleOf<unknown>(node);
      const [inner, field] = node.args as [PlanNode, string];
      if (node.op === '.' && (handle as { name?: string }).name === 'fieldAccess') {
        const [nodes, at] = selections(node);
        return emitChain(e, nodes, emitNode(e, at, scope), false);
      }
      const left = emitNode(e, inner, scope);
      return e.assign(`${e.constant(handle)}(${left}, ${e.constant(field)}, ${n()}, ${ev()})`);
    }
    case '[]': case '[?]':
    case '==': case '!=': case 'in': case '+': case '-': case '*': case '/': case '%':
    case '<': case '<=': case '>': case '>=': {
      expectEvaluate(node, 'evaluateBinary');
      const handle = e.constant(handleOf<unknown>(node));
      const [l, r] = node.args as [PlanNode, PlanNode];
      const left = emitNode(e, l, scope);
      const right = emitNode(e, r, scope);
      return e.assign(`${handle}(${left}, ${right}, ${n()}, ${ev()})`);
    }
    case '!_': case '-_': {
      expectEvaluate(node, 'evaluateUnary');
      const handle = e.constant(handleOf<unknown>(node));
      const operand = emitNode(e, node.args as PlanNode, scope);
      return e.assign(`${handle}(${operand}, ${n()}, ${ev()})`);
    }
    case '&&': case '||':
      expectEvaluate(node, 'evaluate');
      return emitLogical(e, node, scope, node.op === '||');
    case '?:':
      expectEvaluate(node, 'evaluate');
      return emitTernary(e, node, scope);
    case 'call': case 'rcall':
      expectEvaluate(node, 'evaluate');
      return emitHoisted(e, node, scope, () => emitCall(e, node as CallNode, scope));
    case 'list': {
      const items = node.args as PlanNode[];
      // A list with optional elements (`[?x]`): the closure plan's step.
      if (items.length > 0 && node.meta.evaluate?.name === 'evaluateOptional') return e.assign(`${e.constant(e.p.bare(node, scope))}(f)`);
      expectEvaluate(node, ...(items.length === 0 ? ['emptyList', 'evaluate'] : ['evaluate']));
      // Last to first, as cel-js evaluates a list (the last error wins).
      const values: string[] = [];
      for (let i = items.length - 1; i >= 0; i--) values[i] = emitNode(e, items[i]!, scope);
      return e.assign(`[${values.join(', ')}]`);
    }
    case 'comprehension':
      expectEvaluate(node, 'evaluate');
      return emitComprehension(e, node, scope);
    case 'accuValue': case 'accuInc': case 'accuPush':
      return emitAccu(e, node, scope);
    case 'accuSet': case 'accuMerge':
      return emitAccuMap(e, node, scope);
    default:
      // Maps and anything rarer: the closure plan's step.
      return e.assign(`${e.constant(e.p.bare(node, scope))}(f)`);
  }
}

/** An unconverted read's value, converted where it is used (raw.ts `escape`). */
function emitConverted(e: Emitter, raw: RawRead, scope: Scope): string {
  if (raw.chain && raw.trie === true) return emitChain(e, raw.chain, emitRawBase(e, raw, scope), true);
  const v = raw.chain ? emitChain(e, raw.chain, emitRawBase(e, raw, scope), false) : emitRawBase(e, raw, scope);
  const conv = e.constant(below);
  if (raw.trie === true) return e.assign(`typeof ${v} === 'number' || (typeof ${v} === 'object' && ${v} !== null) ? ${conv}(${v}, true, f.conv) : ${v}`);
  return e.assign(`${conv}(${v}, ${e.constant(raw.trie)}, f.conv)`);
}

/** The slot or root an unconverted read starts from. */
export function emitRawBase(e: Emitter, raw: RawRead, scope: Scope): string {
  return raw.slot !== undefined ? e.assign(`s[${raw.slot}]`) : emitId(e, raw.root!, scope);
}

/** An unconverted read's value as it is (a comprehension's range, `has()`'s root). */
export function emitRaw(e: Emitter, raw: RawRead, scope: Scope): string {
  const base = emitRawBase(e, raw, scope);
  return raw.chain ? emitChain(e, raw.chain, base, false) : base;
}

/**
 * `type.matchesValueType(value, ev)` as code. A `dyn` type accepts every plain JSON value (cel-js's `dyn`
 * matcher answers true for them), so those are accepted without the call.
 */
function matches(e: Emitter, type: CelType, value: string): string {
  const call = `${e.constant(type)}.matchesValueType(${value}, ${e.constant(e.p.ev)})`;
  return type.kind === 'dyn' ? `(${plainCode(value, e.temp())} || ${call})` : call;
}

/** plan.ts `planId`: a bound variable's slot, or a root of the activation with its type checked. */
function emitId(e: Emitter, node: PlanNode, scope: Scope): string {
  const name = node.args as string;
  const at = scope.vars.get(name);
  if (at !== undefined) return e.assign(`s[${at}]`);
  // The closure's checks and errors, called where the value is missing or mistyped.
  const check = e.constant(planId(e.p, node, scope));
  const type = node.checkedType!;
  const v = e.assign(`f.act[${e.literal(name)}]`);
  e.line(`if (${v} === undefined || !${matches(e, type, v)}) ${v} = ${check}(f);`);
  return v;
}

function emitLogical(e: Emitter, node: PlanNode, scope: Scope, decisive: boolean): string {
  if (!node.left || !node.right) throw new NotPlanned(`${node.op} without operands`);
  const [l, r] = [node.left, node.right];
  const value = e.temp();
  const out = e.temp();
  const D = String(decisive);
  const left = e.block(() => e.line(`${value} = ${emitNode(e, l, scope)};`));
  e.line(`try {\n${left}\n} catch (error) {\n${value} = error;\n}`);
  const right = e.block(() => {
    const other = emitNode(e, r, scope);
    e.line(`if (${value} === ${String(!decisive)} && typeof ${other} === 'boolean') ${out} = ${other};`);
    e.line(`else ${out} = ${e.constant(combine)}(${D}, ${e.constant(e.p.ev)}, ${e.constant(l)}, [${value}, ${other}]);`);
  });
  e.line(`if (${value} === ${D}) ${out} = ${D};\nelse {\n${right}\n}`);
  return out;
}

function emitTernary(e: Emitter, node: PlanNode, scope: Scope): string {
  const c = node.condition;
  if (!c || !node.left || !node.right) throw new NotPlanned('?: without operands');
  const test = emitNode(e, c, scope);
  const label = c.meta.label || 'Ternary condition must be bool';
  const fail = e.constant((value: unknown) => e.p.ev.createError('invalid_condition_type', `${label}, got '${e.p.ev.debugRuntimeType(value).name}'`, c));
  const constant = (n: PlanNode, v: boolean) => n.op === 'value' && n.args === v && !n.meta.alternate && !n.meta.macro;
  if (constant(node.left, true) && constant(node.right, false)) {
    e.line(`if (${test} !== true && ${test} !== false) throw ${fail}(${test});`);
    return test;
  }
  const out = e.temp();
  const yes = e.block(() => e.line(`${out} = ${emitNode(e, node.left!, scope)};`));
  const no = e.block(() => e.line(`${out} = ${emitNode(e, node.right!, scope)};`));
  e.line(`if (${test} === true) {\n${yes}\n} else if (${test} === false) {\n${no}\n} else throw ${fail}(${test});`);
  return out;
}

function emitCall(e: Emitter, node: CallNode, scope: Scope): string {
  const shape = callShape(e.p.ev, node);
  const args: string[] = [];
  // Arguments right to left, as cel-js resolves an argument list.
  for (let i = shape.args.length - 1; i >= 0; i--) args[i] = emitNode(e, shape.args[i]!, scope);
  if (shape.kind === 'dispatch') {
    // calls.ts's inline cache, written out: the overload's own call site in the generated code.
    const [x] = args as [string];
    const cache = e.constant(shape.cache);
    const ev = e.constant(e.p.ev);
    const type = e.assign(`typeof ${x} === 'string' ? ${cache}.string : ${ev}.debugRuntimeType(${x}, ${e.constant(shape.args[0]!.checkedType)})`);
    e.line(`if (${type} !== ${cache}.type) ${cache}.lookup(${type});`);
    const last = e.assign(`${cache}.last`);
    const out = e.temp();
    e.line(`if (!${last}) ${out} = ${e.constant(shape.handle)}([${x}], ${e.constant(node)}, ${ev});\nelse try {\n${out} = ${last}.handler.call(${ev}, ${x});\n} catch (error) {\nthrow ${e.constant(attach)}(error, ${e.constant(node)});\n}`);
    return out;
  }
  if (shape.kind === 'handle') return e.assign(`${e.constant(shape.call)}([${args.join(', ')}])`);
  const out = e.temp();
  e.line(`try {\n${out} = ${e.constant(shape.fn)}.call(${[e.constant(e.p.ev), ...args].join(', ')});\n} catch (error) {\nthrow ${e.constant(attach)}(error, ${e.constant(node)});\n}`);
  return out;
}

/** hoist.ts `hoisted`: an invariant call inside a binding computed once per evaluation, its cost charged again on reuse. */
function emitHoisted(e: Emitter, node: PlanNode, scope: Scope, emit: () => string): string {
  if (!e.p.pure || scope.vars.size === 0 || !invariant(node, scope.vars)) return emit();
  const at = scope.count.n++;
  const compute = e.helper(emit);
  const memo = e.temp();
  e.line(`${memo} = s[${at}];`);
  e.line(`if (${memo} === undefined) s[${at}] = ${memo} = ${e.constant(counted)}(${compute}, f);\nelse {\nif (${memo}.units > 0) ${e.constant(spend)}(${memo}.units);\nif (${memo}.work > 0) ${e.constant(work)}(${memo}.work);\n}`);
  e.line(`if ('error' in ${memo}) throw ${memo}.error;`);
  return e.assign(`${memo}.value`);
}

function emitComprehension(e: Emitter, node: PlanNode, scope: Scope): string {
  const a = node.args as ComprehensionArgs;
  const ev = e.p.ev;
  const name2 = a.iterVar2Name;
  // A range read from an unconverted root stays unconverted; its elements are converted where used
  // (a two-variable comprehension's range is read converted: loops.ts).
  const raw = name2 === undefined ? rawRead(e.p, a.iterable, scope) : undefined;
  const rawTrie = raw && raw.trie !== true ? raw.trie : undefined;
  const each = rawTrie?.each;
  const range = rawTrie && each ? emitRaw(e, raw!, scope) : emitNode(e, a.iterable, scope);
  checkShape(a);
  const { condition, result } = a;
  const iter = slot(scope);
  const iter2 = name2 === undefined ? -1 : slot(scope);
  const accu = slot(scope);
  e.line(`${e.constant(work)}(${e.constant(sizeOf)}(${range}));`);
  // Not a container: converted first, so an error names the type a converted activation has.
  const value = rawTrie && each ? `(${range} === null || typeof ${range} !== 'object' ? ${e.constant(below)}(${range}, ${e.constant(rawTrie)}, f.conv) : ${range})` : range;
  const items = e.assign(`${e.constant(name2 === undefined ? iterable : entries)}(${e.constant(ev)}, ${value}, ${e.constant(a.iterable)})`);
  e.line(`s[${accu}] = ${emitNode(e, a.init, scope)};`);
  const vars = new Map(scope.vars).set(a.iterVarName, iter);
  if (name2 !== undefined) vars.set(name2, iter2);
  const raws = name2 === undefined ? bindRaw(scope, a.iterVarName, rawTrie && each) : bindRaw({ ...scope, raw: bindRaw(scope, a.iterVarName, undefined) }, name2, undefined);
  const inner: Scope = { vars, raw: raws, accu, count: scope.count };
  const acc = e.assign(`s[${accu}]`);
  const i = e.temp();
  const item = e.temp();
  const cond = condition ? e.constant(condition) : undefined;
  const res = e.constant(result);
  /** `value` (code) into `at`, checked against the variable's type as loops.ts `binder` does. */
  const bindTo = (name: string, type: CelType | undefined, at: number, v: string): string =>
    `if (${matches(e, type!, v)}) s[${at}] = ${v};\nelse ${e.constant(binder(ev, name, type))}(f, ${at}, ${v});`;
  let bindLine: string;
  if (name2 === undefined) bindLine = `${item} = ${items}[${i}];\n${bindTo(a.iterVarName, a.iterCtx?.iterType, iter, item)}`;
  else {
    // The element (or value) first, then the index (or key), as cel-js binds them.
    const second = e.temp();
    const first = e.temp();
    bindLine = `${item} = ${items}[${i}];\n${second} = ${item}[1];\n${bindTo(name2, a.iterCtx?.iterType2, iter2, second)}\n${first} = ${item}[0];\n${bindTo(a.iterVarName, a.iterCtx?.iterType, iter, first)}`;
  }
  const out = e.temp();
  if (a.errorsAreFatal) {
    const body = e.block(() => e.line(`${acc} = ${emitNode(e, a.step, inner)};`));
    e.line(`for (${i} = 0; ${i} < ${items}.length; ${i}++) {\n${cond ? `if (!${cond}(${acc})) break;\n` : ''}${bindLine}\n${body}\n}`);
    e.line(`${out} = ${res}(${acc});`);
    return out;
  }
  const stepValue = e.temp();
  const error = e.temp();
  const done = e.label();
  const body = e.block(() => e.line(`${stepValue} = ${emitNode(e, a.step, inner)};`));
  e.line(`${error} = undefined;`);
  e.line(`${done}: {\nfor (${i} = 0; ${i} < ${items}.length; ${i}++) {\nif (!${cond!}(${acc})) {\n${out} = ${res}(${acc});\nbreak ${done};\n}\n${bindLine}\ntry {\n${body}\n} catch (thrown) {\n${stepValue} = thrown;\n}\nif (${stepValue} instanceof Error) {\nif (${error} === undefined) ${error} = ${stepValue};\ncontinue;\n}\n${acc} = ${stepValue};\n}\nif (${error} && ${cond!}(${acc})) throw ${error};\n${out} = ${res}(${acc});\n}`);
  return out;
}

/** `cel.bind(name, value, expression)`: the value computed once and bound in a slot. */
function emitBind(e: Emitter, macro: Readonly<Record<string, unknown>>, scope: Scope): string {
  const name = macro['var'] as string;
  const value = emitNode(e, macro['val'] as PlanNode, scope);
  const bindCtx = macro['bindCtx'] as { iterType?: Parameters<typeof binder>[2] };
  const bind = binder(e.p.ev, name, bindCtx.iterType);
  const at = slot(scope);
  e.line(`${e.constant(bind)}(f, ${at}, ${value});`);
  return emitNode(e, macro['exp'] as PlanNode, { vars: new Map(scope.vars).set(name, at), raw: bindRaw(scope, name, undefined), accu: scope.accu, count: scope.count });
}

/** transformMap's and transformMapEntry's insertions (plan.ts `planAccu`): the map in the accumulator's slot. */
function emitAccuMap(e: Emitter, node: PlanNode, scope: Scope): string {
  const accu = scope.accu;
  if (accu === undefined) throw new NotPlanned('accumulator outside a comprehension');
  expectEvaluate(node, 'evaluate');
  const ev = e.constant(e.p.ev);
  const n = e.constant(node);
  if (node.op === 'accuSet') {
    const [k, v] = node.args as [PlanNode, PlanNode];
    const key = emitNode(e, k, scope);
    const value = emitNode(e, v, scope);
    return e.assign(`s[${accu}] = ${e.constant(mapInsert)}(${ev}, ${n}, s[${accu}], ${key}, ${value})`);
  }
  const map = emitNode(e, node.args as PlanNode, scope);
  return e.assign(`s[${accu}] = ${e.constant(mergeEntries)}(${ev}, ${n}, s[${accu}], ${map})`);
}

function emitAccu(e: Emitter, node: PlanNode, scope: Scope): string {
  const accu = scope.accu;
  if (accu === undefined) throw new NotPlanned('accumulator outside a comprehension');
  switch (node.op) {
    case 'accuValue':
      expectEvaluate(node, 'evaluate');
      return e.assign(`s[${accu}]`);
    case 'accuInc':
      expectEvaluate(node, 'evaluate');
      return e.assign(`s[${accu}] = s[${accu}] + 1`);
    default: {
      expectEvaluate(node, 'evaluate', 'evaluateSync');
      const list = e.assign(`s[${accu}]`);
      const item = emitNode(e, node.args as PlanNode, scope);
      e.line(`${list}.push(${item});`);
      return list;
    }
  }
}

