/**
 * The runner of kinitiras' CUE (src/kinitiras/cue.ts): programs reused from a snapshot give what a program
 * started from nothing gives, evaluations running together each get their own answer, a runaway program is
 * stopped at its time limit (its worker replaced), and the worker's edit of a module that exports its globals.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { admissionReviewFor, createAdmissionWebhook, loadKubernetesPolicies, type AdmissionError, type CueOptions, type KubernetesObject } from '@verdict/kubernetes';
import { CueRunner, EXPORT_GLOBALS, type CueRequest } from '../src/kinitiras/cue.js';

/** The worker's edit of a module, as the worker defines it. */
const exportGlobals = new Function(`${EXPORT_GLOBALS}\nreturn exportGlobals;`)() as (bytes: Uint8Array) => Uint8Array;

const OVERRIDE = 'object: _ @tag(object)\npatches: [{op: "add", path: "/metadata/labels/copy", value: object.metadata.name}]\n';
const VALIDATE = 'object: _ @tag(object)\noldObject: _\nvalidate: {\n  if oldObject.metadata.name != _|_ {\n    valid: object.metadata.name == oldObject.metadata.name\n    reason: "renamed from \\(oldObject.metadata.name)"\n  }\n}\n';
const pod = (name: string): KubernetesObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', labels: {} } });

/** Requests of every shape the runtime makes (each output, one and two parameters), with what CUE answers. */
const requests: Array<{ request: CueRequest; want: unknown }> = Array.from({ length: 12 }, (_, i) => {
  const name = `p-${i}`;
  if (i % 3 === 0) return { request: { source: OVERRIDE, params: [{ name: 'object', value: pod(name) }], output: 'patches' }, want: { ok: true, value: [{ op: 'add', path: '/metadata/labels/copy', value: name }] } };
  if (i % 3 === 1) return { request: { source: VALIDATE, params: [{ name: 'object', value: pod(name) }, { name: 'oldObject', value: pod(i % 2 ? name : 'before') }], output: 'validate' }, want: { ok: true, value: i % 2 ? { valid: true, reason: `renamed from ${name}` } : { valid: false, reason: 'renamed from before' } } };
  return { request: { source: VALIDATE, params: [{ name: 'object', value: pod(name) }], output: 'validate' }, want: { ok: true, value: {} } };
});

describe('the CUE runner', () => {
  const runners: CueRunner[] = [];
  const runner = (workers = 1) => {
    const made = new CueRunner(workers);
    runners.push(made);
    return made;
  };
  afterAll(() => Promise.all(runners.map((r) => r.close())));

  it('gives, from a reused program, what a program started from nothing gives (results and errors)', async () => {
    const failing: CueRequest = { source: 'object: _ @tag(object)\npatches: object.metadata.nope\n', params: [{ name: 'object', value: pod('x') }], output: 'patches' };
    const expected = { ok: false, error: 'patches: undefined field nope:\n    program.cue:2:26' };
    // A new runner: the first request of each output starts its program.
    const started = async (request: CueRequest) => {
      const fresh = new CueRunner();
      try {
        return await fresh.evaluate(request);
      } finally {
        await fresh.close();
      }
    };
    expect(await started(failing)).toEqual(expected);
    // Each shape (patches; validate with one and two parameters, valid and not), each in a new worker.
    const first = [];
    for (const { request } of requests.slice(0, 5)) first.push(await started(request));
    // One runner: every request after the first of its output reuses the program, after errors too.
    const reused = runner();
    for (let round = 0; round < 2; round++) {
      for (const [i, { request, want }] of requests.entries()) {
        const got = await reused.evaluate(request);
        expect(got).toEqual(want);
        if (i < first.length) expect(got).toEqual(first[i]);
      }
      expect(await reused.evaluate(failing)).toEqual(expected);
    }
  }, 120_000);

  it('gives each of many evaluations running together its own answer', async () => {
    const pool = runner(2);
    const order = [...requests, ...requests].reverse();
    const got = await Promise.all(order.map(({ request }) => pool.evaluate(request)));
    expect(got).toEqual(order.map(({ want }) => want));
  }, 120_000);

  it('stops a runaway program at its time limit, then evaluates in a new worker', async () => {
    const limited = runner();
    expect(await limited.evaluate({ source: 'x: 1', params: [], output: 'x' })).toEqual({ ok: true, value: 1 });
    // 25 million additions: far beyond the limit.
    const runaway = 'import "list"\nx: list.Sum([for a in list.Range(0, 5000, 1) for b in list.Range(0, 5000, 1) {a * b}])\n';
    expect(await limited.evaluate({ source: runaway, params: [], output: 'x' }, 500)).toEqual({ ok: false, error: 'CUE evaluation exceeded the time limit of 500 ms' });
    expect(await limited.evaluate({ source: 'a: int\nx: a + 1', params: [{ name: 'a', value: 41 }], output: 'x' })).toEqual({ ok: true, value: 42 });
  }, 120_000);
});

describe('CUE through the webhook', () => {
  it('answers reviews running together, each with its own object', async () => {
    const webhook = createAdmissionWebhook({ policies: [{ apiVersion: 'policy.kcloudlabs.io/v1alpha1', kind: 'ClusterOverridePolicy', metadata: { name: 'copy' }, spec: { overrideRules: [{ overriders: { cue: OVERRIDE } }] } }], mutating: true });
    const names = Array.from({ length: 8 }, (_, i) => `concurrent-${i}`);
    const responses = await Promise.all(names.map((name) => webhook.review(admissionReviewFor(pod(name)))));
    expect(responses.map((r) => JSON.parse(Buffer.from(r.response.patch ?? '', 'base64').toString('utf8')) as unknown)).toEqual(names.map((name) => [{ op: 'add', path: '/metadata/labels/copy', value: name }]));
  }, 120_000);

  it('names a CUE error by its rule and the program\'s file, not by a temporary folder', async () => {
    const webhook = createAdmissionWebhook({ policies: [{ apiVersion: 'policy.kcloudlabs.io/v1alpha1', kind: 'ClusterValidatePolicy', metadata: { name: 'cue' }, spec: { validateRules: [{ cue: 'object: _ @tag(object)\nvalidate: {valid: object.nope}' }] } }] });
    const { response } = await webhook.review(admissionReviewFor(pod('p')));
    expect(response.status).toEqual({ status: 'Failure', code: 500, reason: 'InternalError', message: 'policy evaluation failed: [cue] rule "validateRules[0]" failed: validate.valid: undefined field nope:\n    program.cue:2:26' });
  }, 120_000);
});

describe('CUE options', () => {
  const RUNAWAY = 'import "list"\nobject: _ @tag(object)\nvalidate: {valid: list.Sum([for a in list.Range(0, 5000, 1) for b in list.Range(0, 5000, 1) {a * b}]) > 0}\n';
  const validating = (name: string, cue: string, options: CueOptions) =>
    createAdmissionWebhook({ policies: [{ apiVersion: 'policy.kcloudlabs.io/v1alpha1', kind: 'ClusterValidatePolicy', metadata: { name }, spec: { validateRules: [{ cue }] } }], cue: options });
  const checked = 'object: _ @tag(object)\nvalidate: {valid: object.metadata.name != "forbidden", reason: "forbidden name"}\n';

  /** Reviews by `good` while `bad`'s runaway program runs: whether each good answer came before the runaway's. */
  async function beside(workers: number, timeoutMs: number) {
    const bad = validating('runaway', RUNAWAY, { workers, timeoutMs });
    const good = validating('checked', checked, { workers });
    // Every worker started (one review per worker, together), so the comparison is not about starting one.
    await Promise.all(Array.from({ length: workers }, (_, i) => good.review(admissionReviewFor(pod(`warm-${workers}-${i}`)))));
    let runawayAnswered = false;
    const runaway = Promise.resolve(bad.review(admissionReviewFor(pod(`runaway-${workers}`)))).then((r) => {
      runawayAnswered = true;
      return r.response;
    });
    const answer = (await good.review(admissionReviewFor(pod('forbidden')))).response;
    return { answeredFirst: !runawayAnswered, answer: { allowed: answer.allowed, message: answer.status?.message }, runaway: (await runaway).status?.message };
  }

  it('with two workers, a runaway program does not delay a well-behaved one; with one, it does until its time limit', async () => {
    const denied = { allowed: false, message: expect.stringContaining('forbidden name') as unknown };
    expect(await beside(2, 4000)).toEqual({ answeredFirst: true, answer: denied, runaway: expect.stringContaining('CUE evaluation exceeded the time limit of 4000 ms') as unknown });
    expect(await beside(1, 1000)).toEqual({ answeredFirst: false, answer: denied, runaway: expect.stringContaining('CUE evaluation exceeded the time limit of 1000 ms') as unknown });
  }, 120_000);

  it('refuses a bad time limit or number of workers with INVALID_OPTIONS and the option\'s path', () => {
    const refused = (cue: unknown) => {
      try {
        validating('x', checked, cue as never);
      } catch (error) {
        return { code: (error as AdmissionError).code, path: (error as AdmissionError).path, message: (error as Error).message };
      }
      return undefined;
    };
    expect(refused({ timeoutMs: 0 })).toEqual({ code: 'INVALID_OPTIONS', path: '/cue/timeoutMs', message: 'cue.timeoutMs must be a whole number of milliseconds from 1 to 2147483647 (got 0)' });
    expect(refused({ timeoutMs: '10s' })).toMatchObject({ path: '/cue/timeoutMs', message: expect.stringContaining('(got "10s")') as unknown });
    expect(refused({ timeoutMs: 2 ** 31 })).toMatchObject({ path: '/cue/timeoutMs' });
    expect(refused({ workers: 1.5 })).toEqual({ code: 'INVALID_OPTIONS', path: '/cue/workers', message: 'cue.workers must be a whole number of workers from 1 to 16 (got 1.5)' });
    expect(refused({ workers: 17 })).toMatchObject({ path: '/cue/workers' });
    expect(refused({ worker: 2 })).toEqual({ code: 'INVALID_OPTIONS', path: '/cue/worker', message: 'cue has no option "worker" (it has timeoutMs and workers)' });
    expect(refused(5)).toMatchObject({ path: '/cue', message: 'cue must be an object {timeoutMs?, workers?} (got number)' });
    expect(refused({ timeoutMs: 500, workers: 4 })).toBeUndefined();
    const compiled = loadKubernetesPolicies('apiVersion: policy.kcloudlabs.io/v1alpha1\nkind: ClusterValidatePolicy\nmetadata: {name: x}\nspec: {validateRules: [{cue: "validate: {valid: true}"}]}\n');
    expect(() => loadKubernetesPolicies(compiled, { cue: { workers: 2 } })).toThrow(/cue cannot be added to a compiled policy set/);
    expect(() => createAdmissionWebhook({ policies: compiled, cue: { workers: 2 } })).toThrow(/cue cannot be added to a compiled policy set/);
  });
});

describe('exportGlobals', () => {
  // (module (global (mut i32) (i32.const 7)) (global i64 (i64.const 300)) (func (export "f")))
  const module = Uint8Array.from([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    0x01, 0x04, 0x01, 0x60, 0x00, 0x00, // types: () -> ()
    0x03, 0x02, 0x01, 0x00, // functions: one of type 0
    0x06, 0x0c, 0x02, 0x7f, 0x01, 0x41, 0x07, 0x0b, 0x7e, 0x00, 0x42, 0xac, 0x02, 0x0b, // globals
    0x07, 0x05, 0x01, 0x01, 0x66, 0x00, 0x00, // exports: "f"
    0x0a, 0x04, 0x01, 0x02, 0x00, 0x0b, // code
  ]);

  it('adds an export per global, keeping the module\'s own, and the values can be read and set', async () => {
    const edited = exportGlobals(module);
    // This package's TypeScript libraries do not declare WebAssembly.
    type Global = { value: number | bigint };
    const wasm = (globalThis as unknown as { WebAssembly: { instantiate(bytes: Uint8Array): Promise<{ instance: { exports: Record<string, unknown> } }> } }).WebAssembly;
    const { instance } = await wasm.instantiate(edited);
    expect(Object.keys(instance.exports)).toEqual(['f', 'verdict.global.0', 'verdict.global.1']);
    const [mutable, constant] = [instance.exports['verdict.global.0'], instance.exports['verdict.global.1']] as Global[];
    expect([mutable!.value, constant!.value]).toEqual([7, 300n]);
    mutable!.value = 9;
    expect(mutable!.value).toBe(9);
  });

  it('refuses a module without exports', () => {
    expect(() => exportGlobals(module.subarray(0, 32))).toThrow('WebAssembly module without exports');
  });
});
