/**
 * The RFC 6902 operations that turn one JSON value into another: fast-json-patch's `compare`, operation for
 * operation and in its order (keys walked from the last, a changed container entered where it is met, then
 * the keys added), without its recursion (values may nest as deep as the API server accepts, or deeper)
 * and copying values with an explicit stack instead of `JSON.parse(JSON.stringify(…))`.
 */
import type { PatchOperation } from './mutate.js';
import { deepClone, escapePointerSegment, type JsonObject } from './util/object.js';

const hasOwn = Object.prototype.hasOwnProperty;

/** One pair of containers being compared: the next old key to look at (from the last) and whether one was removed. */
interface Frame {
  before: JsonObject | unknown[];
  after: JsonObject | unknown[];
  path: string;
  oldKeys: string[];
  next: number;
  deleted: boolean;
}

const keysOf = (v: object): string[] => (Array.isArray(v) ? v.map((_x, i) => String(i)) : Object.keys(v));
const isObjectLike = (v: unknown): v is JsonObject | unknown[] => typeof v === 'object' && v !== null;

function frame(before: JsonObject | unknown[], after: JsonObject | unknown[], path: string): Frame {
  const oldKeys = keysOf(before);
  return { before, after, path, oldKeys, next: oldKeys.length - 1, deleted: false };
}

/** The operations that turn `before` into `after` (neither is modified; values in operations are copies). */
export function diffJson(before: unknown, after: unknown): PatchOperation[] {
  const out: PatchOperation[] = [];
  if (before === after || !isObjectLike(before) || !isObjectLike(after)) return out;
  const stack: Frame[] = [frame(before, after, '')];
  while (stack.length > 0) {
    const f = stack[stack.length - 1]!;
    const mirror = f.before as JsonObject;
    const obj = f.after as JsonObject;
    if (f.next >= 0) {
      const key = f.oldKeys[f.next--]!;
      const oldVal = mirror[key];
      const at = `${f.path}/${escapePointerSegment(key)}`;
      if (hasOwn.call(obj, key) && !(obj[key] === undefined && oldVal !== undefined && !Array.isArray(obj))) {
        const newVal = obj[key];
        if (isObjectLike(oldVal) && isObjectLike(newVal) && Array.isArray(oldVal) === Array.isArray(newVal)) {
          if (oldVal !== newVal) stack.push(frame(oldVal, newVal, at));
        } else if (oldVal !== newVal) out.push({ op: 'replace', path: at, value: deepClone(newVal) });
      } else if (Array.isArray(mirror) === Array.isArray(obj)) {
        out.push({ op: 'remove', path: at });
        f.deleted = true;
      } else out.push({ op: 'replace', path: f.path, value: obj });
      continue;
    }
    stack.pop();
    const newKeys = keysOf(obj);
    if (!f.deleted && newKeys.length === f.oldKeys.length) continue;
    for (const key of newKeys) {
      if (!hasOwn.call(mirror, key) && obj[key] !== undefined) out.push({ op: 'add', path: `${f.path}/${escapePointerSegment(key)}`, value: deepClone(obj[key]) });
    }
  }
  return out;
}
