/**
 * A progress line on stderr for long runs: shown only when stderr is a
 * terminal and the run has lasted a second, redrawn at most ten times a
 * second, erased when the run ends (so it never mixes with the report).
 */
import type { Io } from '../io.js';

const DELAY_MS = 1000;
const EVERY_MS = 100;

export interface Progress {
  update(text: string): void;
  done(): void;
}

export function progressLine(io: Io, now: () => number = () => performance.now()): Progress {
  if (io.stderr.isTTY !== true) return { update() {}, done() {} };
  const started = now();
  let last = -Infinity;
  let shown = false;
  return {
    update(text) {
      const t = now();
      if (t - started < DELAY_MS || t - last < EVERY_MS) return;
      last = t;
      shown = true;
      io.stderr.write(`\r\u001b[K${text}`);
    },
    done() {
      if (shown) io.stderr.write('\r\u001b[K');
      shown = false;
    },
  };
}
