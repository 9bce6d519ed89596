/**
 * Field selection on `dyn` values, the planner's hottest path (`object.spec.containers`, `has(c.a.b)`).
 * For a plain JSON object holding a plain JSON value, the answer is the one cel-js's handlers give
 * (`fieldAccess`, the map type's `fieldLazy`), computed without its type lookups; anything else (maps,
 * messages, missing keys, unsupported values) goes through cel-js's handler, errors included.
 */
import { below } from '../view.js';
import type { Evaluator, PlanNode, Step } from './node.js';

const hasOwn = Object.hasOwn;

/** A value whose cel-js type lookup cannot fail (the `dyn` type accepts it as it is). */
export function plain(v: unknown): boolean {
  switch (typeof v) {
    case 'string': case 'bigint': case 'number': case 'boolean':
      return true;
    case 'object': {
      if (v === null) return true;
      const c = (v as { constructor?: unknown }).constructor;
      return c === Object || c === Array || c === undefined || c === Map || c === Set;
    }
    default:
      return false;
  }
}

type Access = (left: unknown, key: unknown, node: PlanNode, ev: Evaluator) => unknown;

/**
 * A chain of field selections on `dyn` values (`c.resources.limits.memory`), inner first: each node's handler
 * is cel-js's `fieldAccess`. The chain starts from `base`'s value, or from a slot's when `base` is its number;
 * with `leaf`, its value is converted as a value read whole from unconverted JSON (plan/raw.ts). One closure
 * for the whole chain.
 */
export function dynChain(nodes: readonly PlanNode[], ev: Evaluator, base: Step | number, leaf = false): Step {
  const keys = nodes.map((node) => (node.args as [PlanNode, string])[1]);
  const handles = nodes.map((node) => node.handle as unknown as Access);
  const n = keys.length;
  const slot = typeof base === 'number' ? base : -1;
  const start = typeof base === 'number' ? undefined : base;
  return (f) => {
    let v = start ? start(f) : f.slots[slot];
    for (let i = 0; i < n; i++) {
      const key = keys[i]!;
      if (v !== null && typeof v === 'object') {
        const c = (v as { constructor?: unknown }).constructor;
        if (c === Object || c === undefined) {
          const next = hasOwn(v, key) ? (v as Record<string, unknown>)[key] : undefined;
          if (next !== undefined && plain(next)) {
            v = next;
            continue;
          }
        }
      }
      v = handles[i]!(v, key, nodes[i]!, ev);
    }
    return leaf && (typeof v === 'number' || (typeof v === 'object' && v !== null)) ? below(v, true, f.conv) : v;
  };
}

/**
 * One step of `has()`: the field's value or undefined when absent (cel-js: `debugType(obj).fieldLazy`).
 */
export function lazyField(obj: unknown, key: string | undefined, node: PlanNode, ev: Evaluator): unknown {
  if (obj !== null && typeof obj === 'object') {
    const c = (obj as { constructor?: unknown }).constructor;
    if (c === Object || c === undefined) {
      const v = hasOwn(obj, key!) ? (obj as Record<string, unknown>)[key!] : undefined;
      if (v === undefined || plain(v)) return v;
    }
  }
  return ev.debugType(obj).fieldLazy(obj, key, node, ev);
}
