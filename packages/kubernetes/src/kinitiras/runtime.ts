/**
 * What runs kinitiras' rules inside core's evaluation. A translated policy's
 * CEL sees one name, `kinitiras` (the request as kinitiras' webhook decodes
 * it); its mutate rules are `kinitiras.step("<key>")` with the patch type
 * `KinitirasOverriders`, which computes the overrider's operations from the
 * object as earlier rules left it and applies them as the API server's JSON
 * Patch library does; its validate rules are `kinitiras.valid("<key>")` with
 * `kinitiras.reason("<key>")` as the message.
 *
 * CUE runs asynchronously (cue.ts): a rule that needs a CUE result not yet
 * known records the request and fails; the webhook then runs the recorded
 * requests and evaluates the review again, until nothing is missing.
 */
import type { CelFunction, CelProfile, PatchOperation, PolicySet } from '@verdict/core';
import type { Inventory } from '../inventory.js';
import { apiServerJsonPatch } from '../map/json-patch.js';
import { isObject, metadataOf, str } from '../read.js';
import { cueKey, CueResults, resolveCueOptions, sharedCueRunner, type CueOptions, type CueRequest } from './cue.js';
import { originOperation } from './origin.js';
import { decodedObject, namespaceOf } from './select.js';
import { compileOverrideTemplate, compileValidateTemplate, type OverrideTemplate, type ValidateTemplate } from './templates.js';
import type { KinitirasPolicy, OverrideRule, ValidateRule } from './types.js';

type Json = Record<string, unknown>;

/** The name of the patch type of kinitiras' overriders. */
export const KINITIRAS_PATCH_TYPE = 'KinitirasOverriders';

/** The request as kinitiras' webhook decodes it (object, or oldObject on DELETE; oldObject on UPDATE only). */
export class KinitirasRequest {
  readonly operation: string;
  readonly object: Json;
  readonly oldObject: Json | null;
  readonly inventory: Inventory | undefined;
  /** Validation results of this request, by rule key. */
  readonly results = new Map<string, { valid: boolean; reason: string }>();
  private readonly namespace: string;

  constructor(input: Readonly<Json>) {
    this.operation = str(input['operation']);
    this.object = decodedObject(input) ?? {};
    const old = input['oldObject'];
    this.oldObject = this.operation === 'UPDATE' && isObject(old) ? old : null;
    this.inventory = input['inventory'] as Inventory | undefined;
    this.namespace = namespaceOf(input, this.object, 'mutate');
  }

  /** The object as the mutating webhook hands it to the policies: with the request's namespace when it has none. */
  withNamespace(object: Json): Json {
    const metadata = metadataOf(object);
    if (this.namespace === '' || str(metadata?.['namespace']) !== '') return object;
    return { ...object, metadata: { ...metadata, namespace: this.namespace } };
  }
}

/** One overrider of a rule, in kinitiras' order (renderedCue or template, cue, origin, plaintext). */
export interface OverrideStep {
  kind: 'renderedCue' | 'template' | 'cue' | 'origin' | 'plaintext';
  policy: KinitirasPolicy;
  rule: OverrideRule;
  template?: OverrideTemplate;
}

/** One validate rule. */
export interface ValidateStep {
  policy: KinitirasPolicy;
  rule: ValidateRule;
  template?: ValidateTemplate;
}

/** Thrown by a rule whose CUE result is not known yet (the review is evaluated again once it is). */
export class CuePending extends Error {}

/** The rules of one policy set, and the CUE results and requests of its evaluations. */
export class KinitirasRuntime {
  readonly steps = new Map<string, OverrideStep>();
  readonly validations = new Map<string, ValidateStep>();
  /** The kinitiras policies of the set, for the answer (validate ones in kinitiras' order). */
  readonly policies: KinitirasPolicy[] = [];
  /** The generated templates, whose CEL sees {@link KinitirasRuntime.profile}. */
  readonly templates = new WeakSet<object>();
  private handoff: KinitirasRequest | undefined;
  private readonly results = new CueResults();
  private pending = new Map<string, CueRequest>();
  private stalled = false;

  private readonly cueOptions: Required<CueOptions>;

  /** Throws `AdmissionError` `INVALID_OPTIONS` for bad {@link CueOptions}. */
  constructor(cue?: CueOptions) {
    this.cueOptions = resolveCueOptions(cue);
  }

  addOverride(key: string, step: OverrideStep): void {
    if (step.kind === 'template') step.template = compileOverrideTemplate(step.rule.overriders.template!);
    this.steps.set(key, step);
  }

  addValidation(key: string, step: ValidateStep): void {
    if (step.rule.template && step.rule.renderedCue === '') step.template = compileValidateTemplate(step.rule.template);
    this.validations.set(key, step);
  }

  /** Most evaluations of one review: each finds at least one more CUE result than the one before. */
  get rounds(): number {
    return this.steps.size + this.validations.size + 1;
  }

  /** Starts a round of evaluations: forgets the CUE requests of the last one. */
  begin(): void {
    this.pending = new Map();
    this.stalled = false;
  }

  /** Runs the CUE requests the last round recorded (together, in the process's CUE workers); `undefined` when there were none. */
  settle(): Promise<void> | undefined {
    if (this.pending.size === 0) return undefined;
    const requests = [...this.pending.entries()];
    this.pending = new Map();
    const { timeoutMs, workers } = this.cueOptions;
    const runner = sharedCueRunner(workers);
    return Promise.all(requests.map(async ([key, request]) => this.results.set(key, await runner.evaluate(request, timeoutMs)))).then(() => undefined);
  }

  /** The value of a CUE evaluation, when known; records it and throws {@link CuePending} otherwise. */
  private cue(request: CueRequest, mutation: boolean): unknown {
    const key = cueKey(request);
    const known = this.results.get(key);
    if (known) {
      if (!known.ok) throw new Error(known.error);
      return known.value;
    }
    // After a missing mutation result the object is not the final one: later requests would be wasted.
    if (!this.stalled) this.pending.set(key, request);
    if (mutation) this.stalled = true;
    throw new CuePending('waiting for CUE (the review is evaluated again when CUE has answered)');
  }

  /** `kinitiras.step(key)`: hands the request to the patch type core calls right after. */
  step(request: KinitirasRequest, key: string): string {
    this.handoff = request;
    return key;
  }

  /** The patch type: the operations of overrider `key` on `target`, as RFC 6902 operations that apply strictly. */
  readonly patchType = (value: unknown, target: unknown): readonly PatchOperation[] => {
    const request = this.handoff;
    this.handoff = undefined;
    const step = typeof value === 'string' ? this.steps.get(value) : undefined;
    if (!request || !step) throw new Error('a kinitiras overrider ran outside its policy');
    const object = isObject(target) ? target : {};
    const ops = this.overriderOps(step, object, request);
    try {
      return apiServerJsonPatch(ops, object);
    } catch (error) {
      // A failed test is an error in kinitiras (evanphx/json-patch's Apply), not a skipped patch.
      throw new Error((error as Error).message.replace(/^JSON Patch: /, ''), { cause: error });
    }
  };

  private overriderOps(step: OverrideStep, object: Json, request: KinitirasRequest): unknown[] {
    const { overriders } = step.rule;
    switch (step.kind) {
      case 'plaintext':
        return overriders.plaintext.map((p) => ({ op: p.op, path: p.path, value: p.value }));
      case 'origin': {
        // Each origin operation is computed from the object as it is before the rule's origin overriders (upstream computes them all first).
        return (overriders.origin ?? []).map((o) => originOperation(object, o));
      }
      case 'cue':
        return cuePatches(this.cue({ source: overriders.cue, params: [{ name: 'object', value: request.withNamespace(object) }], output: 'patches' }, true));
      case 'renderedCue': {
        const data = { object: request.withNamespace(object), oldObject: request.oldObject ?? {}, extraParams: step.template?.extraParams(request.withNamespace(object), request.inventory) ?? overrideExtra(overriders.template, object, request) };
        return cuePatches(this.cue({ source: overriders.renderedCue, params: [{ name: 'data', value: data }], output: 'patches' }, true));
      }
      case 'template':
        return step.template!.operations(request.withNamespace(object), request.oldObject, request.inventory);
    }
  }

  /** `kinitiras.valid(key)` and `kinitiras.reason(key)`: the rule's result for the request (computed once). */
  validate(request: KinitirasRequest, key: string): { valid: boolean; reason: string } {
    let result = request.results.get(key);
    if (!result) {
      result = this.validateOnce(request, key);
      request.results.set(key, result);
    }
    return result;
  }

  private validateOnce(request: KinitirasRequest, key: string): { valid: boolean; reason: string } {
    const step = this.validations.get(key);
    if (!step) throw new Error(`no kinitiras validate rule "${key}"`);
    const { rule } = step;
    if (rule.operations.length > 0 && !rule.operations.includes(request.operation)) return { valid: true, reason: '' };
    const allow = isObject(rule.template) && isObject(rule.template['condition']) && rule.template['condition']['affectMode'] === 'allow';
    if (rule.template) {
      let result: { valid: boolean; reason: string };
      if (rule.renderedCue !== '') {
        const extraParams = validateExtra(rule.template, request);
        const data = { object: request.object, oldObject: request.oldObject, extraParams };
        result = validateResult(this.cue({ source: rule.renderedCue, params: [{ name: 'data', value: data }], output: 'validate' }, false));
      } else result = step.template!.evaluate(request.object, request.oldObject, request.inventory);
      // affectMode allow: only a hit is allowed (kinitiras inverts valid, keeping the reason).
      if (allow) result = { valid: !result.valid, reason: result.reason };
      if (!result.valid) return result;
    }
    if (rule.cue !== '') {
      const params = [{ name: 'object', value: request.object as unknown }];
      if (request.oldObject) params.push({ name: 'oldObject', value: request.oldObject });
      const result = validateResult(this.cue({ source: rule.cue, params, output: 'validate' }, false));
      if (!result.valid) return result;
    }
    return { valid: true, reason: '' };
  }

  /** The CEL profile of translated kinitiras policies. */
  profile(): CelProfile {
    return {
      names: ['kinitiras'],
      literalMessages: true,
      firstFailureOnly: true,
      failureMessage: (failed) => {
        const m = failed.messageExpression;
        return m && 'value' in m && typeof m.value === 'string' ? m.value : failed.message ?? '';
      },
      extensions: { types: [{ name: 'kinitiras.Request', type: KinitirasRequest }], functions: this.functions },
      activation: (input) => ({ kinitiras: new KinitirasRequest(input) }),
    };
  }

  private readonly functions: readonly CelFunction[] = [
    { signature: 'kinitiras.Request.step(string): string', handler: (r: KinitirasRequest, key: string) => this.step(r, key) },
    { signature: 'kinitiras.Request.valid(string): bool', handler: (r: KinitirasRequest, key: string) => this.validate(r, key).valid },
    { signature: 'kinitiras.Request.reason(string): string', handler: (r: KinitirasRequest, key: string) => this.validate(r, key).reason },
  ];
}

/** kinitiras decodes `patches` into `[]overrideOption` (op, path, value): anything else is an error. */
function cuePatches(value: unknown): unknown[] {
  if (!Array.isArray(value)) throw new Error(`cue: patches must be a list of JSON Patch operations (got ${value === null ? 'null' : typeof value})`);
  return value.map((item) => {
    if (!isObject(item)) throw new Error('cue: each patch must be an object with op, path and value');
    const op = item['op'] ?? '';
    const path = item['path'] ?? '';
    if (typeof op !== 'string' || typeof path !== 'string') throw new Error('cue: op and path of a patch must be strings');
    // overrideOption's value is omitempty: a null value is left out.
    return item['value'] === undefined || item['value'] === null ? { op, path } : { op, path, value: item['value'] };
  });
}

/** kinitiras decodes `validate` into `{reason string, valid bool}`, starting from `valid: true`. */
function validateResult(value: unknown): { valid: boolean; reason: string } {
  if (!isObject(value)) throw new Error(`cue: validate must be a struct with valid and reason (got ${value === null ? 'null' : typeof value})`);
  const valid = value['valid'] ?? true;
  const reason = value['reason'] ?? '';
  if (typeof valid !== 'boolean') throw new Error('cue: validate.valid must be a bool');
  if (typeof reason !== 'string') throw new Error('cue: validate.reason must be a string');
  return { valid, reason };
}

/** `extraParams` of an override template's rendered CUE (BuildCueParamsViaOverridePolicy). */
function overrideExtra(template: Json | undefined, object: Json, request: KinitirasRequest): Json {
  return template ? compileOverrideTemplate(template).extraParams(request.withNamespace(object), request.inventory) : {};
}

/** `extraParams` of a validate template's rendered CUE (BuildCueParamsViaValidatePolicy). */
function validateExtra(template: Json, request: KinitirasRequest): Json {
  return compileValidateTemplate(template).extraParams(request.object, request.inventory);
}

const runtimes = new WeakMap<PolicySet, KinitirasRuntime>();

/** Remembers the kinitiras rules of `set`. */
export function registerKinitiras(set: PolicySet, runtime: KinitirasRuntime): void {
  if (runtime.steps.size > 0 || runtime.validations.size > 0) runtimes.set(set, runtime);
}

/** The kinitiras rules of `set`, if it has some. */
export function kinitirasOf(set: PolicySet | undefined): KinitirasRuntime | undefined {
  return set ? runtimes.get(set) : undefined;
}
