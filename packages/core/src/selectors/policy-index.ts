/**
 * Selects the policies that can match an input without testing every
 * selector. Each policy is filed under one necessary condition "value at path
 * ∈ values" (the rarest one it has); policies without such a condition are
 * always tested. Lookup reads each indexed path once per input.
 */
import { getPath } from '../util/object.js';
import type { IndexHint } from './types.js';

interface Bucketed<T> {
  path: readonly string[];
  buckets: Map<string, T[]>;
}

export interface Indexable {
  readonly ordinal: number;
}

const SEP = '\u0000';

function keyOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

export class PolicyIndex<T extends Indexable> {
  private readonly indexed: Bucketed<T>[] = [];
  private readonly always: T[];
  /** Number of policies filed under a condition (the rest are always tested). */
  readonly indexedCount: number;

  constructor(items: ReadonlyArray<{ item: T; hints: readonly IndexHint[] }>) {
    const frequency = new Map<string, number>();
    for (const { hints } of items) {
      for (const h of hints) {
        const p = h.path.join(SEP);
        for (const v of h.values) frequency.set(p + SEP + SEP + v, (frequency.get(p + SEP + SEP + v) ?? 0) + 1);
      }
    }
    const byPath = new Map<string, Bucketed<T>>();
    const always: T[] = [];
    for (const { item, hints } of items) {
      let best: IndexHint | undefined;
      let bestCost = Infinity;
      for (const h of hints) {
        if (h.values.length === 0) continue;
        const p = h.path.join(SEP);
        let cost = 0;
        for (const v of h.values) cost += frequency.get(p + SEP + SEP + v) ?? 0;
        if (cost < bestCost) {
          best = h;
          bestCost = cost;
        }
      }
      if (!best) {
        always.push(item);
        continue;
      }
      const p = best.path.join(SEP);
      let entry = byPath.get(p);
      if (!entry) {
        entry = { path: best.path, buckets: new Map() };
        byPath.set(p, entry);
        this.indexed.push(entry);
      }
      for (const v of new Set(best.values)) {
        const list = entry.buckets.get(v);
        if (list) list.push(item);
        else entry.buckets.set(v, [item]);
      }
    }
    this.always = always.sort((a, b) => a.ordinal - b.ordinal);
    this.indexedCount = items.length - always.length;
  }

  /** Policies that may match `input`, in policy order (each bucket is sorted, so lists are merged linearly). */
  candidates(input: unknown): readonly T[] {
    if (this.indexed.length === 0) return this.always;
    let result: readonly T[] | undefined;
    for (let e = 0; e < this.indexed.length; e++) {
      const entry = this.indexed[e]!;
      const value = getPath(input, entry.path);
      if (Array.isArray(value)) {
        for (const element of value) {
          const k = keyOf(element);
          const list = k === undefined ? undefined : entry.buckets.get(k);
          if (list) result = result ? merge(result, list) : list;
        }
      } else {
        const k = keyOf(value);
        const list = k === undefined ? undefined : entry.buckets.get(k);
        if (list) result = result ? merge(result, list) : list;
      }
    }
    if (!result) return this.always;
    return this.always.length ? merge(result, this.always) : result;
  }
}

/** Merges two lists sorted by ordinal, dropping duplicates. */
function merge<T extends Indexable>(a: readonly T[], b: readonly T[]): T[] {
  const out: T[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i]!;
    const y = b[j]!;
    if (x.ordinal < y.ordinal) {
      out.push(x);
      i++;
    } else if (y.ordinal < x.ordinal) {
      out.push(y);
      j++;
    } else {
      out.push(x);
      i++;
      j++;
    }
  }
  while (i < a.length) out.push(a[i++]!);
  while (j < b.length) out.push(b[j++]!);
  return out;
}
