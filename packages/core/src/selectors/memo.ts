/**
 * Remembered matching and parameterSelection outcomes of one policy, per
 * selection key (see `SelectionKey`): a policy whose selectors all share one
 * key function is matched once per key, not once per evaluation. A few
 * recent keys are kept (a webhook's requests come from a handful of
 * namespaces at a time); lookups compare the key's values with `===`.
 */
import type { CompiledEntry } from '../compile-options.js';
import type { SelectorNode } from './node.js';
import type { SelectionKey } from './types.js';

/** What matching and parameterSelection gave: the failed match node, else the entry (MatchFirst) or entries (MatchAny) chosen. */
export interface SelectionOutcome {
  readonly failed: SelectorNode | undefined;
  readonly matched: CompiledEntry | readonly CompiledEntry[] | undefined;
}

interface Remembered {
  values: readonly unknown[];
  outcome: SelectionOutcome;
}

/** How many keys a policy remembers. */
const SIZE = 8;

function same(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export class SelectionMemo {
  private readonly slots: Remembered[] = [];
  private next = 0;

  constructor(readonly key: SelectionKey) {}

  recall(values: readonly unknown[]): SelectionOutcome | undefined {
    const slots = this.slots;
    for (let i = 0; i < slots.length; i++) if (same(slots[i]!.values, values)) return slots[i]!.outcome;
    return undefined;
  }

  remember(values: readonly unknown[], outcome: SelectionOutcome): void {
    const slot: Remembered = { values, outcome };
    if (this.slots.length < SIZE) this.slots.push(slot);
    else this.slots[this.next] = slot;
    this.next = (this.next + 1) % SIZE;
  }
}
