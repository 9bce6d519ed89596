/**
 * A lazy DFA over a {@link Program} (RE2's technique): the set of live NFA
 * instructions after each character is a DFA state, built on first use and
 * cached with its transitions, so matching costs one map lookup per character
 * once the states an input visits exist. A transition is keyed by the
 * character and by the program's assertions at the next position (a few
 * bits), because a closure depends on them. When the cache passes its limit it
 * is dropped and rebuilt as needed: every character still costs at most one
 * NFA step, so the time stays linear in the input.
 */
import type { Program } from './nfa.js';

interface State {
  readonly live: Int32Array;
  readonly accepts: boolean;
  readonly next: Map<number, State>;
}

/** Most assertions a cached program may have (the context mask is shifted into the key). */
const MAX_ASSERTIONS = 4;

export class LazyDfa {
  private states = new Map<string, State>();
  private starts = new Map<number, State>();

  /** @param maxStates states kept before the cache is dropped */
  constructor(private readonly program: Program, private readonly maxStates = 1000) {}

  private intern(live: Int32Array): State {
    const key = live.join(',');
    let state = this.states.get(key);
    if (!state) {
      if (this.states.size >= this.maxStates) {
        this.states = new Map();
        this.starts = new Map();
      }
      state = { live, accepts: this.program.accepts(live), next: new Map() };
      this.states.set(key, state);
    }
    return state;
  }

  /** Whether the whole of `text` matches. */
  test(text: string): boolean {
    const program = this.program;
    if (program.assertions > MAX_ASSERTIONS) return program.test(text);
    const unicode = program.unicode;
    const context = program.assertions > 0;
    const first = context ? program.contextAt(text, 0) : 0;
    let state = this.starts.get(first);
    if (!state) {
      state = this.intern(program.initial(text));
      this.starts.set(first, state);
    }
    for (let i = 0; i < text.length; ) {
      if (state.live.length === 0) return false;
      const code = unicode ? text.codePointAt(i)! : text.charCodeAt(i);
      i += unicode && code > 0xffff ? 2 : 1;
      const key = context ? code * 16 + program.contextAt(text, i) : code;
      let next: State | undefined = state.next.get(key);
      if (!next) {
        next = this.intern(program.advance(state.live, code, text, i));
        state.next.set(key, next);
      }
      state = next;
    }
    return state.accepts;
  }
}
