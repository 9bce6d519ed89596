/**
 * Checks the parameters a template's rules read against its `parametersSchema`:
 * reading a name the schema does not declare is a load problem with a
 * did-you-mean. A schema opts out where it allows undeclared names
 * (`additionalProperties: true`, no `properties`,
 * `x-kubernetes-preserve-unknown-fields`); nested reads are checked as deep
 * as the schema declares properties.
 */
import type { ParameterRead } from './logic/reads.js';
import { compileRegex } from './patterns/regex.js';
import { isPlainObject, type JsonObject } from './util/object.js';
import { closest } from './util/suggest.js';

export interface UnknownParameter {
  /** JSON pointer of the reading expression. */
  at: string;
  message: string;
}

type Step = { open: true } | { open: false; children: unknown[]; known: string[] };

/** Resolves a local `$ref` (`#/definitions/x`, `#/$defs/x`); `undefined` for anything else. */
function resolveRef(root: JsonObject, ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  let cur: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    cur = isPlainObject(cur) && Object.hasOwn(cur, key) ? cur[key] : undefined;
  }
  return cur;
}

/** A node and the subschemas that apply with it (allOf/anyOf/oneOf, local $ref); `undefined` marks an open one. */
function branches(root: JsonObject, node: unknown, depth = 0): Array<JsonObject | undefined> {
  if (!isPlainObject(node) || depth > 16) return [undefined];
  const out: Array<JsonObject | undefined> = [node];
  if (typeof node['$ref'] === 'string') out.push(...branches(root, resolveRef(root, node['$ref']), depth + 1));
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
    const list = node[key];
    if (Array.isArray(list)) for (const sub of list) out.push(...branches(root, sub, depth + 1));
  }
  return out;
}

function patternMatches(pattern: string, key: string): boolean {
  try {
    return compileRegex(pattern).test(key);
  } catch {
    return true; // a pattern we cannot read does not make a read an error
  }
}

/** What the schema says about one more segment below `nodes`. */
function step(root: JsonObject, nodes: readonly unknown[], segment: string): Step {
  const children: unknown[] = [];
  const known: string[] = [];
  let declaresNames = false;
  for (const node of nodes.flatMap((n) => branches(root, n))) {
    if (!node || node['x-kubernetes-preserve-unknown-fields'] === true || node['additionalProperties'] === true) return { open: true };
    const properties = node['properties'];
    const patterns = node['patternProperties'];
    const items = node['items'];
    if (isPlainObject(properties)) {
      declaresNames = true;
      known.push(...Object.keys(properties));
      if (Object.hasOwn(properties, segment)) children.push(properties[segment]);
    }
    if (isPlainObject(patterns)) {
      declaresNames = true;
      for (const [pattern, sub] of Object.entries(patterns)) if (patternMatches(pattern, segment)) children.push(sub);
    }
    if (isPlainObject(node['additionalProperties'])) {
      declaresNames = true;
      children.push(node['additionalProperties']);
    }
    if (items !== undefined) {
      declaresNames = true;
      if (segment === 'length') return { open: true };
      if (/^(0|[1-9][0-9]*)$/.test(segment)) children.push(Array.isArray(items) ? items[Number(segment)] : items);
    }
  }
  if (!declaresNames) return { open: true };
  return { open: false, children, known: [...new Set(known)] };
}

/** The closest declared name: by edit distance, or a name that starts the other (`blocked` for `blockedImages`). */
export function suggestion(segment: string, known: readonly string[]): string {
  const lower = segment.toLowerCase();
  const hit = closest(segment, known) ?? known.find((k) => k.length >= 3 && (lower.startsWith(k.toLowerCase()) || k.toLowerCase().startsWith(lower)));
  return hit === undefined ? '' : `; did you mean "${hit}"?`;
}

/** Where a path first leaves what `schema` declares: the segment's index and the names declared there; `undefined` when it does not. */
function firstUndeclared(schema: JsonObject, path: readonly string[]): { index: number; known: string[] } | undefined {
  let nodes: unknown[] = [schema];
  for (let i = 0; i < path.length; i++) {
    const next = step(schema, nodes, path[i]!);
    if (next.open) return undefined;
    if (next.children.length === 0) return { index: i, known: next.known };
    nodes = next.children;
  }
  return undefined;
}

/** A read that leaves what a schema declares: the segment it leaves at, the segments above it, and the names declared there. */
export interface UndeclaredRead<R> {
  readonly read: R;
  readonly segment: string;
  readonly above: readonly string[];
  readonly known: readonly string[];
}

/**
 * The reads that leave what `schema` declares, each distinct read once (the same path read by the same
 * expression counts once). The walk parameter and input checks share; each words its own message.
 */
export function undeclaredReads<R extends { readonly path: readonly string[]; readonly at: string }>(schema: JsonObject, reads: readonly R[]): Array<UndeclaredRead<R>> {
  const seen = new Set<string>();
  const out: Array<UndeclaredRead<R>> = [];
  for (const read of reads) {
    const key = `${read.at}\u0000${read.path.join('\u0000')}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const found = firstUndeclared(schema, read.path);
    if (found) out.push({ read, segment: read.path[found.index]!, above: read.path.slice(0, found.index), known: found.known });
  }
  return out;
}

/** Checks every read; one issue per read of an undeclared name. */
export function checkParameterReads(schema: unknown, reads: readonly ParameterRead[]): UnknownParameter[] {
  if (!isPlainObject(schema)) return [];
  const issues: UnknownParameter[] = [];
  for (const { read, segment, above, known } of undeclaredReads(schema, reads)) {
    const under = above.length === 0 ? '' : ` under parameters.${above.join('.')}`;
    const declared = known.length ? ` (declared: ${known.join(', ')})` : '';
    issues.push({
      at: read.at,
      message: `reads parameters.${read.path.join('.')}, but parametersSchema declares no "${segment}"${under}${suggestion(segment, known)}${declared}; ` +
        'declare it in parametersSchema, or set additionalProperties: true there to allow names it does not list',
    });
  }
  return issues;
}

/** A key of given parameters that the schema does not declare. */
export interface UnknownParameterKey {
  /** JSON pointer of the key inside the parameters. */
  path: string;
  message: string;
}

const escapePointer = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * Checks the keys of parameters (a default or an override entry) against the
 * schema, with the rule reads follow: a name the schema does not declare is
 * a problem with a did-you-mean, unless the schema allows undeclared names
 * there. Linear in the size of `value`, with an explicit stack (no recursion).
 */
export function checkParameterKeys(schema: unknown, value: unknown): UnknownParameterKey[] {
  if (!isPlainObject(schema)) return [];
  const issues: UnknownParameterKey[] = [];
  const stack: Array<{ value: unknown; nodes: unknown[]; path: string; dotted: string }> = [{ value, nodes: [schema], path: '', dotted: '' }];
  while (stack.length > 0) {
    const { value: here, nodes, path, dotted } = stack.pop()!;
    const keys = isPlainObject(here) ? Object.keys(here) : Array.isArray(here) ? here.map((_, i) => String(i)) : [];
    for (const key of keys) {
      const next = step(schema, nodes, key);
      if (next.open) continue;
      const name = dotted ? `${dotted}.${key}` : key;
      if (next.children.length === 0) {
        const under = dotted ? ` under parameters.${dotted}` : '';
        const declared = next.known.length ? ` (declared: ${next.known.join(', ')})` : '';
        issues.push({
          path: `${path}/${escapePointer(key)}`,
          message: `sets parameters.${name}, but parametersSchema declares no "${key}"${under}${suggestion(key, next.known)}${declared}; ` +
            'declare it in parametersSchema, or set additionalProperties: true there to allow names it does not list',
        });
        continue;
      }
      stack.push({ value: (here as Record<string, unknown>)[key], nodes: next.children, path: `${path}/${escapePointer(key)}`, dotted: name });
    }
  }
  return issues.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
