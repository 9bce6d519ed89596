/**
 * Mutation rules: RFC 6902 patches with templated paths and values, applied
 * with fast-json-patch on a copy-on-write view of the input. Only containers
 * on a patched path are copied; the caller's input is never modified. A
 * missing parent of an `add` path is created (and emitted as its own `add`),
 * so the emitted patch applies cleanly to the original object.
 */
import jsonpatch from 'fast-json-patch';
import { UNMETERED, type CostMeter } from './budget.js';
import { compileTemplate, TemplateSyntaxError, type CompiledTemplate, type PathResolver } from './template.js';
import { deepFreeze, escapePointerSegment, FORBIDDEN_KEYS, isPlainObject, parsePointer, toPointer } from './util/object.js';

/** An RFC 6902 operation name. */
export type PatchOp = 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';

/** One RFC 6902 operation, as emitted in a decision. */
export interface PatchOperation {
  op: PatchOp;
  path: string;
  from?: string;
  value?: unknown;
}

type PathPiece = { segments: string[] } | { template: CompiledTemplate };
type ValueBuilder = (resolve: PathResolver) => unknown;

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
    return t.constant ? () => value : (resolve) => t.value(resolve);
  }
  if (Array.isArray(value)) {
    const parts = value.map((v, i) => compileValue(v, `${where}/${i}`));
    if (value.every((v) => typeof v !== 'object' || v === null) && parts.every((_p, i) => typeof value[i] !== 'string' || !value[i].includes('{{'))) {
      const frozen = deepFreeze([...value]);
      return () => frozen;
    }
    return (resolve) => parts.map((p) => p(resolve));
  }
  if (isPlainObject(value)) {
    const keys = Object.keys(value);
    for (const k of keys) if (FORBIDDEN_KEYS.has(k)) throw new PatchCompileError(`key "${k}" is not allowed: it could change object prototypes`, `${where}/${escapePointerSegment(k)}`);
    if (!JSON.stringify(value).includes('{{')) {
      const frozen = deepFreeze(structuredCloneJson(value));
      return () => frozen;
    }
    const parts = keys.map((k) => [k, compileValue(value[k], `${where}/${escapePointerSegment(k)}`)] as const);
    return (resolve) => {
      const out: Record<string, unknown> = {};
      for (const [k, p] of parts) out[k] = p(resolve);
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

function resolvePath(piece: PathPiece, resolve: PathResolver): string[] {
  if ('segments' in piece) return piece.segments;
  const segments = parsePointer(piece.template.render(resolve));
  for (const s of segments) if (FORBIDDEN_KEYS.has(s)) throw new Error(`patch path segment "${s}" is not allowed`);
  return segments;
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
    meter.spend(1);
    const rel = resolvePath(op.path, resolve);
    const abs = [...this.target, ...rel];
    const out: PatchOperation = { op: op.op, path: toPointer(rel) };
    let from: string[] | undefined;
    if (op.from) {
      const relFrom = resolvePath(op.from, resolve);
      from = [...this.target, ...relFrom];
      out.from = toPointer(relFrom);
    }
    if (op.value) out.value = op.value(resolve);
    if (op.op !== 'test') {
      this.prepare(abs, op.op === 'add' || op.op === 'copy' || op.op === 'move', emit, meter);
      if (from && op.op === 'move') this.prepare(from, false, emit, meter);
    }
    let result: ReturnType<typeof jsonpatch.applyOperation>;
    try {
      result = jsonpatch.applyOperation(
        this.root,
        { op: op.op, path: toPointer(abs), ...(from ? { from: toPointer(from) } : {}), ...(op.value ? { value: out.value } : {}) } as Parameters<typeof jsonpatch.applyOperation>[1],
        true, // validate: RFC 6902 errors (remove/replace of a missing path, …) instead of silent no-ops
        true, // mutate in place: every container on the path is already a private copy
        true, // refuse __proto__ / constructor segments
      );
    } catch (error) {
      throw new Error(patchFailure(out, error));
    }
    if (abs.length === 0) this.root = result.newDocument as Record<string, unknown>;
    emit.push(out);
  }

  /** The mutation target as it is now. */
  current(): unknown {
    let cur: unknown = this.root;
    for (const s of this.target) cur = cur === null || cur === undefined ? undefined : (cur as Record<string, unknown>)[s];
    return cur;
  }
}
