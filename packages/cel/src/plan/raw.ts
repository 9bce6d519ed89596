/**
 * Unconverted roots. cel-js needs its activation converted before a run (integral JSON numbers to ints
 * along every path the expression reads: `view`), which walks those paths once more than the expression
 * does. A planned expression takes its roots as given instead and converts where it reads: a chain of
 * field selections from a root (or from a comprehension variable ranging over a root's list) reads the
 * JSON as is, and its value is converted with the paths read below that point (`below`, the function
 * `view` uses), so every value the expression uses is the one it would see in a converted activation.
 * `has()` and comprehension ranges read presence and elements only, which conversion does not change.
 */
import type { PathTrie } from '../compile.js';
import { below } from '../view.js';
import { dynChain } from './fields.js';
import { NotPlanned, type Frame, type PlanNode, type Step } from './node.js';
import { planId, selections, type Planner, type Scope } from './plan.js';

/** A step giving an unconverted value, and the paths the expression reads below it. */
export interface Raw {
  readonly step: Step;
  readonly trie: PathTrie;
  /** The slot the value is in (a bound variable), if it is one. */
  readonly slot?: number;
  /** The value already converted, when the read does that in the same step. */
  readonly converted?: Step;
}

/** The value converted where it is used. */
export function escape(raw: Raw): Step {
  const { step, trie } = raw;
  if (raw.converted) return raw.converted;
  // Only numbers and containers convert: a string or a bool read whole is used as it is.
  if (trie === true) {
    return (f) => {
      const v = step(f);
      return typeof v === 'number' || (typeof v === 'object' && v !== null) ? below(v, true, f.conv) : v;
    };
  }
  return (f) => below(step(f), trie, f.conv);
}

/**
 * What an unconverted read is, before it is planned: a bound variable's slot or a root read from the
 * activation (`root`, an `id` node), perhaps followed by a chain of `dyn` field selections, and the paths
 * the expression reads below its value.
 */
export interface RawRead {
  readonly trie: PathTrie;
  readonly slot?: number;
  readonly root?: PlanNode;
  /** Field selections below the slot or root, innermost first. */
  readonly chain?: readonly PlanNode[];
}

/** `node` as an unconverted read (a root, a variable bound to a root's elements, a field chain below one), or undefined. */
export function rawRead(p: Planner, node: PlanNode, scope: Scope): RawRead | undefined {
  if (node.meta.alternate || node.meta.macro) return undefined;
  if (node.op === 'id') {
    const name = node.args as string;
    const slot = scope.vars.get(name);
    if (slot !== undefined) {
      const trie = scope.raw.get(name);
      return trie === undefined ? undefined : { trie, slot };
    }
    const trie = p.roots.get(name);
    return trie === undefined ? undefined : { trie, root: node };
  }
  if (node.op !== '.') return undefined;
  const [nodes, at] = selections(node);
  if (nodes.length === 0) return undefined;
  const base = rawRead(p, at, scope);
  if (!base) return undefined;
  let trie = base.trie;
  const keys = nodes.map((n) => (n.args as [PlanNode, string])[1]);
  for (const key of keys) {
    // Below a value read whole, the converted value is read (the chain is planned as usual).
    if (trie === true) return undefined;
    const i = trie.keys.indexOf(key);
    if (i < 0) throw new NotPlanned(`a read of "${key}" outside the analysed paths`);
    trie = trie.subs[i]!;
  }
  return { ...base, trie, chain: nodes };
}

/** `node` as an unconverted read, planned (see {@link rawRead}), or undefined. */
export function planRaw(p: Planner, node: PlanNode, scope: Scope): Raw | undefined {
  const read = rawRead(p, node, scope);
  if (!read) return undefined;
  const { trie, slot, root, chain } = read;
  const base = slot !== undefined ? (f: Frame) => f.slots[slot] : planId(p, root!, scope);
  if (!chain) return slot !== undefined ? { step: base, trie, slot } : { step: base, trie };
  const from = slot ?? base;
  return { step: dynChain(chain, p.ev, from), trie, ...(trie === true ? { converted: dynChain(chain, p.ev, from, true) } : {}) };
}

/** The scope with `name` bound in `slot`, unconverted with `trie` below it, or converted (`undefined`). */
export function bindRaw(scope: Scope, name: string, trie: PathTrie | undefined): ReadonlyMap<string, PathTrie> {
  const raw = new Map(scope.raw);
  if (trie === undefined) raw.delete(name);
  else raw.set(name, trie);
  return raw;
}
