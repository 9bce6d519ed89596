/**
 * Mutation rules: RFC 6902 patches with templated paths and values, applied
 * on a copy-on-write view of the input (patch-apply.ts). Only containers
 * on a patched path are copied; the caller's input is never modified. A
 * missing parent of an `add` path is created (and emitted as its own `add`),
 * so the emitted patch applies cleanly to the original object.
 */
import { UNMETERED, type CostMeter } from './budget.js';
import { applyPatchOperation, PatchFault } from './patch-apply.js';
import { diffJson } from './patch-diff.js';
import { compileTemplate, TemplateSyntaxError, type CompiledTemplate, type PathResolver } from './template.js';
import { deepFreeze, describeType, escapePointerSegment, FORBIDDEN_KEYS, isPlainObject, parsePointer, toPointer } from './util/object.js';

/** An RFC 6902 operation name. */
export type PatchOp = 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';

/** One RFC 6902 operation, as emitted in a decision. */
export interface PatchOperation {
  op: PatchOp;
  path: string;
  from?: string;
  value?: unknown;
}

/**
 * Turns the JSON value of a computed mutation (a CEL `expression` of a mutate rule) into RFC 6902
 * operations relative to the mutation target, given the target as it is now (never modify it).
 * Throws an `Error` when the value cannot be applied; the rule is then not applied. Throws
 * {@link PatchTestFailed} when a test in the value fails: the rule is skipped and changes nothing.
 */
export type PatchType = (value: unknown, target: unknown) => readonly PatchOperation[];

type PathPiece = { segments: string[] } | { template: CompiledTemplate };
type ValueBuilder = (resolve: PathResolver, meter: CostMeter) => unknown;

export interface CompiledPatchOp {
  op: PatchOp;
  path: PathPiece;
  from?: PathPiece;
  value?: ValueBuilder;
}

export class PatchCompileError extends Error {
  constructor(message: string, readonly path: string) {
    super(message);
  }
}

function compilePathPiece(text: unknown, where: string): PathPiece {
  if (typeof text !== 'string') throw new PatchCompileError('must be a JSON pointer string', where);
  let template: CompiledTemplate;
  try {
    template = compileTemplate(text);
  } catch (error) {
    throw new PatchCompileError((error as Error).message, where);
  }
  if (!template.constant) return { template };
  let segments: string[];
  try {
    segments = parsePointer(text);
  } catch (error) {
    throw new PatchCompileError((error as Error).message, where);
  }
  for (const s of segments) if (FORBIDDEN_KEYS.has(s)) throw new PatchCompileError(`path segment "${s}" is not allowed: it could change object prototypes`, where);
  return { segments };
}

function compileValue(value: unknown, where: string): ValueBuilder {
  if (typeof value === 'string') {
    let t: CompiledTemplate;
    try {
      t = compileTemplate(value);
    } catch (error) {
      if (error instanceof TemplateSyntaxError) throw new PatchCompileError(error.message, where);
      throw error;
    }
    return t.constant ? () => value : (resolve, meter) => t.value(resolve, meter);
  }
  if (Array.isArray(value)) {
    const parts = value.map((v, i) => compileValue(v, `${where}/${i}`));
    if (value.every((v) => typeof v !== 'object' || v === null) && parts.every((_p, i) => typeof value[i] !== 'string' || !value[i].includes('{{'))) {
      const frozen = deepFreeze([...value]);
      return () => frozen;
    }
    return (resolve, meter) => parts.map((p) => p(resolve, meter));
  }
  if (isPlainObject(value)) {
    const keys = Object.keys(value);
    for (const k of keys) if (FORBIDDEN_KEYS.has(k)) throw new PatchCompileError(`key "${k}" is not allowed: it could change object prototypes`, `${where}/${escapePointerSegment(k)}`);
    if (!JSON.stringify(value).includes('{{')) {
      const frozen = deepFreeze(structuredCloneJson(value));
      return () => frozen;
    }
    const parts = keys.map((k) => [k, compileValue(value[k], `${where}/${escapePointerSegment(k)}`)] as const);
    return (resolve, meter) => {
      const out: Record<string, unknown> = {};
      for (const [k, p] of parts) out[k] = p(resolve, meter);
      return out;
    };
  }
  return () => value;
}

function structuredCloneJson<T>(v: T): T {
  return JSON.parse(JSON.stringify(v)) as T;
}

/** Compiles one `patch` list; throws {@link PatchCompileError} with the pointer of the bad part. */
export function compilePatch(ops: readonly unknown[], where: string): CompiledPatchOp[] {
  return ops.map((raw, i) => {
    const at = `${where}/${i}`;
    const op = raw as { op: PatchOp; path: unknown; from?: unknown; value?: unknown };
    const compiled: CompiledPatchOp = { op: op.op, path: compilePathPiece(op.path, `${at}/path`) };
    if (op.op === 'move' || op.op === 'copy') {
      if (op.from === undefined) throw new PatchCompileError(`"${op.op}" needs a "from" pointer`, at);
      compiled.from = compilePathPiece(op.from, `${at}/from`);
    } else if (op.from !== undefined) throw new PatchCompileError(`"from" is only used by move and copy`, `${at}/from`);
    if (op.op === 'add' || op.op === 'replace' || op.op === 'test') {
      if (!Object.prototype.hasOwnProperty.call(op, 'value')) throw new PatchCompileError(`"${op.op}" needs a "value"`, at);
      compiled.value = compileValue(op.value, `${at}/value`);
    } else if (op.value !== undefined) throw new PatchCompileError(`"value" is not used by ${op.op}`, `${at}/value`);
    return compiled;
  });
}

function resolvePath(piece: PathPiece, resolve: PathResolver, meter: CostMeter): string[] {
  return 'segments' in piece ? piece.segments : safeSegments(piece.template.render(resolve, meter));
}

/**
 * The RFC 6902 operations that turn JSON value `before` into `after` (fast-json-patch's `compare`):
 * `add`, `remove` and `replace` only, lists compared index by index. Neither value is modified.
 */
export function diffPatch(before: unknown, after: unknown): PatchOperation[] {
  return diffJson(before, after);
}

/** The segments of a pointer, refusing those that could reach an object prototype. */
function safeSegments(pointer: string): string[] {
  const segments = parsePointer(pointer);
  for (const s of segments) if (FORBIDDEN_KEYS.has(s)) throw new Error(`patch path segment "${s}" is not allowed`);
  return segments;
}

/**
 * A `test` operation found another value: the patch it belongs to is not applied (RFC 6902 section 5).
 * A {@link PatchType} throws it to leave the object unchanged without an error.
 */
export class PatchTestFailed extends Error {}

const OPS: ReadonlySet<string> = new Set(['add', 'remove', 'replace', 'move', 'copy', 'test']);

/**
 * A computed patch (the JSON value of a CEL mutation with patchType `JSONPatch`): a list of
 * `{op, path, from?, value?}` objects, checked field by field. Throws an `Error` naming the operation.
 */
export function jsonPatchOperations(value: unknown): PatchOperation[] {
  if (!Array.isArray(value)) throw new Error(`the expression must give a list of JSON Patch operations (got ${describeType(value)})`);
  return value.map((item, i) => {
    const at = `operation ${i}`;
    if (!isPlainObject(item)) throw new Error(`${at} must be an object with op and path (got ${describeType(item)})`);
    const { op, path, from } = item;
    if (typeof op !== 'string' || !OPS.has(op)) throw new Error(`${at}: op must be one of add, remove, replace, move, copy, test (got ${typeof op === 'string' ? `"${op}"` : describeType(op)})`);
    if (typeof path !== 'string') throw new Error(`${at}: path must be a JSON pointer string (got ${describeType(path)})`);
    const out: PatchOperation = { op: op as PatchOp, path };
    if (op === 'move' || op === 'copy') {
      if (typeof from !== 'string' || from === '') throw new Error(`${at}: "${op}" needs a "from" pointer`);
      out.from = from;
    }
    if (op === 'add' || op === 'replace' || op === 'test') {
      if (!('value' in item)) throw new Error(`${at}: "${op}" needs a value`);
      out.value = item['value'];
    }
    return out;
  });
}

const PATCH_REASONS: Record<string, string> = {
  OPERATION_PATH_UNRESOLVABLE: 'the path does not exist',
  OPERATION_FROM_UNRESOLVABLE: 'the "from" path does not exist',
  TEST_OPERATION_FAILED: 'the value there is not the one the test expects',
  OPERATION_PATH_ILLEGAL_ARRAY_INDEX: 'the array index is not a number',
  OPERATION_VALUE_OUT_OF_BOUNDS: 'the array index is out of bounds',
  OPERATION_VALUE_REQUIRED: 'the operation needs a value',
  OPERATION_VALUE_CANNOT_CONTAIN_UNDEFINED: 'the value contains undefined',
  OPERATION_PATH_CANNOT_ADD: 'the path cannot be added to',
};

/** One line naming the operation, its path and why it failed (never the document itself). */
function patchFailure(op: PatchOperation, error: unknown): string {
  const name = (error as { name?: string }).name ?? '';
  const reason = PATCH_REASONS[name] ?? String((error as Error).message ?? error).split('\n')[0];
  return `cannot ${op.op} at ${op.path || '/'}${op.from !== undefined ? ` from ${op.from}` : ''}: ${reason}`;
}

/**
 * A document being patched copy-on-write. `root` is the whole input;
 * `target` is the pointer (as segments) that patch paths are relative to.
 */
export class CowDocument {
  private owned = new WeakSet<object>();

  constructor(public root: Record<string, unknown>, private readonly target: readonly string[]) {}

  /** Starts an atomic unit: containers copied from now on are private to it. */
  begin(): Record<string, unknown> {
    this.owned = new WeakSet<object>();
    return this.root;
  }

  rollback(saved: Record<string, unknown>): void {
    this.root = saved;
    this.owned = new WeakSet<object>();
  }

  /** Makes every container on `segments` (absolute) a private copy; creates missing ones when `create`. */
  private prepare(segments: readonly string[], create: boolean, emit: PatchOperation[], meter: CostMeter): void {
    if (!this.owned.has(this.root)) {
      this.root = { ...this.root };
      this.owned.add(this.root);
    }
    let parent: Record<string, unknown> | unknown[] = this.root;
    for (let i = 0; i < segments.length - 1; i++) {
      const key = segments[i]!;
      const holder = parent as Record<string, unknown>;
      let child = Object.prototype.hasOwnProperty.call(holder, key) ? holder[key] : undefined;
      if (Array.isArray(parent) && key === '-') return;
      if (child === undefined || child === null) {
        if (!create) return;
        const next = segments[i + 1];
        child = next === '-' || next === '0' ? [] : {};
        this.owned.add(child as object);
        holder[key] = child;
        if (i >= this.target.length) emit.push({ op: 'add', path: toPointer(segments.slice(this.target.length, i + 1)), value: Array.isArray(child) ? [] : {} });
      } else if (typeof child === 'object' && !this.owned.has(child)) {
        if (Array.isArray(child)) meter.spend(child.length);
        child = Array.isArray(child) ? [...child] : { ...(child as Record<string, unknown>) };
        this.owned.add(child as object);
        holder[key] = child;
      }
      if (typeof child !== 'object' || child === null) return;
      parent = child as Record<string, unknown> | unknown[];
    }
  }

  /**
   * Applies one compiled operation; emitted operations are appended to `emit`.
   * Spends 1 unit per operation and 1 per element of each list it copies. Throws on failure.
   */
  apply(op: CompiledPatchOp, resolve: PathResolver, emit: PatchOperation[], meter: CostMeter = UNMETERED): void {
    const rel = resolvePath(op.path, resolve, meter);
    const out: PatchOperation = { op: op.op, path: toPointer(rel) };
    const relFrom = op.from ? resolvePath(op.from, resolve, meter) : undefined;
    if (relFrom) out.from = toPointer(relFrom);
    if (op.value) out.value = op.value(resolve, meter);
    this.applyAt(out, rel, relFrom, { emit, meter, create: true });
  }

  /**
   * Applies one operation (paths relative to the target) and appends it to `emit`. `create`: a missing
   * parent of an `add`/`copy`/`move` path is created (verdict's patches); false: RFC 6902 as written,
   * a missing parent fails. Throws {@link PatchTestFailed} when a `test` fails, an `Error` otherwise.
   */
  applyOperation(out: PatchOperation, emit: PatchOperation[], meter: CostMeter, create: boolean): void {
    this.applyAt(out, safeSegments(out.path), out.from === undefined ? undefined : safeSegments(out.from), { emit, meter, create });
  }

  private applyAt(out: PatchOperation, rel: readonly string[], relFrom: readonly string[] | undefined, how: { emit: PatchOperation[]; meter: CostMeter; create: boolean }): void {
    const { emit, meter, create } = how;
    meter.spend(1);
    const abs = [...this.target, ...rel];
    const from = relFrom === undefined ? undefined : [...this.target, ...relFrom];
    if (out.op !== 'test') {
      this.prepare(abs, create && (out.op === 'add' || out.op === 'copy' || out.op === 'move'), emit, meter);
      if (from && out.op === 'move') this.prepare(from, false, emit, meter);
    }
    try {
      this.root = applyPatchOperation(this.root, out, { path: abs, from }, meter) as Record<string, unknown>;
    } catch (error) {
      if (!(error instanceof PatchFault)) throw error;
      if (error.reason === 'TEST_OPERATION_FAILED') throw new PatchTestFailed(patchFailure(out, error));
      throw new Error(patchFailure(out, error));
    }
    emit.push(out);
  }

  /** The mutation target as it is now. */
  current(): unknown {
    let cur: unknown = this.root;
    for (const s of this.target) cur = cur === null || cur === undefined ? undefined : (cur as Record<string, unknown>)[s];
    return cur;
  }
}
