/**
 * Completion for policy YAML from core's policy JSON Schema: keys and enum
 * values where the cursor is, per document kind (the schema's `if kind`
 * branches), the parameters schema of the constraint's own template for
 * `parameters`, and the match vocabulary of the chosen adapter's dialect.
 *
 * Hand-written rather than codemirror-json-schema: that library reads one
 * YAML document (policy files hold several, of different kinds) and needs a
 * valid parse, which text being typed rarely is.
 */
import type { Completion, CompletionContext, CompletionResult, CompletionSource } from '@codemirror/autocomplete';
import type { Extension } from '@codemirror/state';
import { hoverTooltip } from '@codemirror/view';
import { parseAllDocuments } from 'yaml';
import { cursorContext, type CursorContext, type PathSegment } from './yaml-path.js';

type Schema = Record<string, unknown>;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function deref(root: Schema, schema: unknown): Schema {
  let current = isObject(schema) ? schema : {};
  for (let depth = 0; typeof current['$ref'] === 'string' && depth < 20; depth++) {
    const ref = current['$ref'].replace(/^#\//, '').split('/');
    let target: unknown = root;
    for (const part of ref) target = isObject(target) ? target[part] : undefined;
    const { $ref: _ref, ...rest } = current;
    current = { ...(isObject(target) ? target : {}), ...rest };
  }
  return current;
}

/** A small `if` test: const, enum, not, required and properties (enough for the schema's `if kind` branches). */
function satisfies(root: Schema, schema: unknown, value: unknown): boolean {
  const s = deref(root, schema);
  if ('const' in s && s['const'] !== value) return false;
  if (Array.isArray(s['enum']) && !s['enum'].includes(value)) return false;
  if ('not' in s && satisfies(root, s['not'], value)) return false;
  if (Array.isArray(s['required']) && !(isObject(value) && s['required'].every((k) => typeof k === 'string' && k in value))) return false;
  if (isObject(s['properties']) && isObject(value)) {
    for (const [key, sub] of Object.entries(s['properties'])) if (key in value && !satisfies(root, sub, value[key])) return false;
  }
  return true;
}

/** The schemas that apply to `value` at one level: the schema, its allOf/anyOf/oneOf parts, and the `then`/`else` its `if`s pick. */
function branches(root: Schema, schema: unknown, value: unknown, depth = 0): Schema[] {
  const s = deref(root, schema);
  const out = [s];
  if (depth > 8) return out;
  if ('if' in s) {
    const pick = satisfies(root, s['if'], value) ? s['then'] : s['else'];
    if (pick !== undefined) out.push(...branches(root, pick, value, depth + 1));
  }
  for (const key of ['allOf', 'anyOf', 'oneOf']) {
    const parts = s[key];
    if (Array.isArray(parts)) for (const part of parts) out.push(...branches(root, part, value, depth + 1));
  }
  return out;
}

function child(root: Schema, schemas: Schema[], segment: PathSegment): Schema[] {
  const out: unknown[] = [];
  for (const s of schemas) {
    if (segment === '*') {
      if (s['items'] !== undefined) out.push(s['items']);
    } else if (isObject(s['properties']) && segment in s['properties']) out.push(s['properties'][segment]);
    else if (isObject(s['additionalProperties'])) out.push(s['additionalProperties']);
  }
  return out.map((sub) => deref(root, sub));
}

function valueAt(value: unknown, segment: PathSegment): unknown {
  if (segment === '*') return Array.isArray(value) ? value[value.length - 1] : undefined;
  return isObject(value) ? value[segment] : undefined;
}

/** What the completion needs to know besides the text. */
export interface CompletionSetup {
  schema: Schema;
  /** Match keys of the chosen adapter's dialect, offered in `match` blocks with core's keys. */
  matchKeys: () => readonly string[];
}

const CORE_MATCH_KEYS = ['labels', 'fields', 'when', 'all', 'any', 'not'];

function parametersSchemaFor(documents: unknown[], kind: unknown, doc: unknown): unknown {
  if (kind === 'Policy') return isObject(doc) && isObject(doc['spec']) ? doc['spec']['parametersSchema'] : undefined;
  const template = documents.find((d) => isObject(d) && d['kind'] === 'PolicyTemplate' && isObject(d['spec']) && d['spec']['kind'] === kind);
  return isObject(template) && isObject(template['spec']) ? template['spec']['parametersSchema'] : undefined;
}

function describe(schema: Schema): string | undefined {
  return typeof schema['description'] === 'string' ? schema['description'] : undefined;
}

const parseAll = (text: string) => parseAllDocuments(text).flatMap((d) => (Array.isArray(d) ? [] : [d.toJS({ maxAliasCount: 100 }) as unknown]));

/** The schemas that apply at the cursor's path, in the document (and kind) holding it; `documents` are every parsed document of the text. */
function schemasAt(setup: CompletionSetup, text: string, cursor: CursorContext): { schemas: Schema[]; documents: unknown[] } {
  const documents = parseAll(text);
  let doc: unknown;
  try {
    doc = parseAll(cursor.documentText)[0];
  } catch {
    doc = undefined;
  }
  const kind = isObject(doc) ? doc['kind'] : /^kind:\s*(\S+)/m.exec(cursor.documentText)?.[1];
  const root = setup.schema;
  let schemas = branches(root, root, isObject(doc) ? doc : { kind });
  let value: unknown = doc;
  cursor.path.forEach((segment, i) => {
    // Under `parameters`, the constraint's own template's parametersSchema applies.
    const inParameters = segment === 'parameters' && cursor.path[0] === 'spec' && (i === 1 || (i === 3 && cursor.path[1] === 'parameterSelection'));
    const next = inParameters ? [deref(root, parametersSchemaFor(documents, kind, doc) ?? {})] : child(root, schemas, segment);
    value = valueAt(value, segment);
    schemas = next.flatMap((s) => branches(root, s, value));
  });
  return { schemas, documents };
}

/** Hover on a key of the policies editor: its description from the schema (or the template's parametersSchema). */
export function policyHover(setup: CompletionSetup): Extension {
  return hoverTooltip((view, pos) => {
    const line = view.state.doc.lineAt(pos);
    const key = /^(\s*(?:-\s+)*)([\w.$/-]+):(\s|$)/.exec(line.text);
    if (!key) return null;
    const from = line.from + (key[1] ?? '').length;
    const to = from + (key[2] ?? '').length;
    if (pos < from || pos > to) return null;
    const text = view.state.doc.toString();
    const cursor = cursorContext(text, to);
    if (!cursor || cursor.position !== 'key') return null;
    const { schemas } = schemasAt(setup, text, cursor);
    const description = child(setup.schema, schemas, key[2] ?? '').map(describe).find((d) => d !== undefined);
    if (!description) return null;
    return {
      pos: from, end: to, above: true,
      create: () => {
        const dom = document.createElement('div');
        dom.className = 'cm-schema-hover';
        dom.textContent = description;
        return { dom };
      },
    };
  });
}

/** The CodeMirror completion source for the policies editor. */
export function policyCompletion(setup: CompletionSetup): CompletionSource {
  return (context: CompletionContext): CompletionResult | null => {
    const text = context.state.doc.toString();
    const cursor = cursorContext(text, context.pos);
    if (!cursor || (!context.explicit && cursor.prefix === '' && cursor.position === 'key')) return null;
    const { schemas, documents } = schemasAt(setup, text, cursor);
    const root = setup.schema;
    const keyPath = cursor.path;
    const options: Completion[] = [];
    if (cursor.position === 'key') {
      const seen = new Set(cursor.siblings);
      for (const s of schemas) {
        if (!isObject(s['properties'])) continue;
        for (const [key, sub] of Object.entries(s['properties'])) {
          if (seen.has(key)) continue;
          seen.add(key);
          const info = describe(deref(root, sub));
          options.push({ label: key, type: 'property', apply: `${key}: `, ...(info ? { info } : {}) });
        }
      }
      if (keyPath[keyPath.length - 1] === 'match') {
        for (const key of [...CORE_MATCH_KEYS, ...setup.matchKeys()]) {
          if (!seen.has(key)) options.push({ label: key, type: 'keyword', apply: `${key}: `, detail: CORE_MATCH_KEYS.includes(key) ? 'core selector' : 'adapter match' });
          seen.add(key);
        }
      }
    } else {
      const values = new Set<string>();
      for (const s of schemas) {
        if (Array.isArray(s['enum'])) s['enum'].forEach((v) => values.add(String(v)));
        if ('const' in s) values.add(String(s['const']));
        if (s['type'] === 'boolean') ['true', 'false'].forEach((v) => values.add(v));
      }
      if (keyPath.length === 1 && keyPath[0] === 'kind') {
        ['Policy', 'PolicyTemplate'].forEach((v) => values.add(v));
        for (const d of documents) if (isObject(d) && d['kind'] === 'PolicyTemplate' && isObject(d['spec']) && typeof d['spec']['kind'] === 'string') values.add(d['spec']['kind']);
      }
      if (keyPath.length === 1 && keyPath[0] === 'apiVersion') values.add('verdict.dev/v1');
      values.forEach((v) => options.push({ label: v, type: 'enum' }));
    }
    if (options.length === 0) return null;
    return { from: cursor.from, options, validFor: /^[\w.$/-]*$/ };
  };
}
