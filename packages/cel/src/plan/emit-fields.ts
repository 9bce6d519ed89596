/**
 * Field chains and `has()` in generated code (see emit.ts): fields.ts's `dynChain` and loops.ts's
 * `planHas` with the field name written at each read, so that each read has an inline cache of its own.
 * The checks are those of the closures: a plain JSON object (constructor `Object`, or none), an own
 * property, a plain JSON value; anything else goes to cel-js's handler.
 */
import { below } from '../view.js';
import { lazyField } from './fields.js';
import { rawRead } from './raw.js';
import type { Scope } from './plan.js';
import { NotPlanned, type PlanNode } from './node.js';
import type { Emitter } from './emit.js';
import { emitNode, emitRaw } from './emit-nodes.js';

/**
 * fields.ts `plain(value)` written out (the same checks; `c` is a scratch local): a value whose cel-js type
 * lookup cannot fail.
 */
export function plainCode(value: string, c: string): string {
  return `(typeof ${value} === 'object' ? ${value} === null || (${c} = ${value}.constructor) === Object || ${c} === Array || ${c} === undefined || ${c} === Map || ${c} === Set : typeof ${value} === 'string' || typeof ${value} === 'number' || typeof ${value} === 'boolean' || typeof ${value} === 'bigint')`;
}

/**
 * The fast test that `v[key]` is an own property's value or undefined, without a lookup call: `v`'s
 * prototype is `Object.prototype` itself and `key` names nothing there. V8 folds both tests once the
 * `constructor` read before them has checked `v`'s map, so the read costs what an object property read
 * costs. Where it does not hold, the closures' test (`Object.hasOwn`) follows.
 */
function ownRead(e: Emitter, v: string, key: string, c: string): string {
  return `${v} !== null && typeof ${v} === 'object' && (${c} = ${v}.constructor) === Object && ${e.constant(Object.getPrototypeOf)}(${v}) === ${e.constant(Object.prototype)} && !(${key} in ${e.constant(Object.prototype)})`;
}

function keyOf(node: PlanNode): string {
  const key = (node.args as [PlanNode, unknown])[1];
  if (typeof key !== 'string') throw new NotPlanned('a field name that is not a string');
  return key;
}

/** fields.ts `dynChain`: the selections `nodes` (innermost first) from `base`, converted at the end with `leaf`. */
export function emitChain(e: Emitter, nodes: readonly PlanNode[], base: string, leaf: boolean): string {
  const v = e.assign(base);
  const c = e.temp();
  const n = e.temp();
  const hasOwn = e.constant(Object.hasOwn);
  const ev = e.constant(e.p.ev);
  for (const node of nodes) {
    const key = e.literal(keyOf(node));
    const handle = e.constant(node.handle);
    e.line(`if (${ownRead(e, v, key, c)} && (${n} = ${v}[${key}]) !== undefined && ${plainCode(n, c)}) ${v} = ${n};\nelse if (${v} !== null && typeof ${v} === 'object' && ((${c} = ${v}.constructor) === Object || ${c} === undefined) && ${hasOwn}(${v}, ${key}) && (${n} = ${v}[${key}]) !== undefined && ${plainCode(n, c)}) ${v} = ${n};\nelse ${v} = ${handle}(${v}, ${key}, ${e.constant(node)}, ${ev});`);
  }
  if (leaf) e.line(`if (typeof ${v} === 'number' || (typeof ${v} === 'object' && ${v} !== null)) ${v} = ${e.constant(below)}(${v}, true, f.conv);`);
  return v;
}

/** loops.ts `planHas`: the chain's root evaluated, then each field looked up lazily. */
export function emitHas(e: Emitter, nodes: readonly PlanNode[], scope: Scope): string {
  if (nodes.length < 2) throw new NotPlanned('has() shape');
  const ev = e.p.ev;
  // Presence does not depend on conversion: an unconverted root is read as it is.
  const last = nodes[nodes.length - 1]!;
  const raw = rawRead(e.p, last, scope);
  const root = raw ? emitRaw(e, raw, scope) : emitNode(e, last, scope);
  const fields = nodes.slice(0, -1).reverse();
  for (const n of fields) if (n.op !== '.' && n.op !== '.?') throw new NotPlanned('has() shape');
  const o = e.assign(root);
  const c = e.temp();
  const n = e.temp();
  const out = e.temp();
  const done = e.label();
  const hasOwn = e.constant(Object.hasOwn);
  const lazy = e.constant(lazyField);
  const lines = fields.map((field, j) => {
    const name = keyOf(field);
    const key = e.literal(name);
    // Where a missing field ends has() with false rather than an error (the last field, or from the first `.?` on).
    const lenient = j === fields.length - 1 || fields.slice(0, j + 1).some((m) => m.op === '.?');
    const missing = lenient ? `${out} = false;\nbreak ${done};` : `throw ${e.constant(() => ev.createError('no_such_key', `No such key: ${name}`, field))}();`;
    return `if (${ownRead(e, o, key, c)} && ((${n} = ${o}[${key}]) === undefined || ${plainCode(n, c)})) ${o} = ${n};\nelse if (${o} !== null && typeof ${o} === 'object' && ((${c} = ${o}.constructor) === Object || ${c} === undefined) && ((${n} = ${hasOwn}(${o}, ${key}) ? ${o}[${key}] : undefined) === undefined || ${plainCode(n, c)})) ${o} = ${n};\nelse ${o} = ${lazy}(${o}, ${key}, ${e.constant(field)}, ${e.constant(ev)});\nif (${o} === undefined) {\n${missing}\n}`;
  });
  e.line(`${done}: {\n${lines.join('\n')}\n${out} = true;\n}`);
  return out;
}
