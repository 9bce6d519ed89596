/**
 * Reading policy files: YAML (multi-document, YAML 1.2) or JSON text into
 * documents, remembering where each came from so load problems can name a
 * line and column.
 */
import { isMap, isPair, isScalar, isSeq, LineCounter, parseAllDocuments, type Document, type Node } from 'yaml';
import { PolicyLoadError, type Problem } from './errors.js';
import { parsePointer } from './util/object.js';

/** A policy document as loaded: a plain object in the Kubernetes resource style. */
export type PolicyDocument = Record<string, unknown>;

/** Options of {@link parsePolicyDocuments}. */
export interface ParseOptions {
  /** A file name or label, shown in problems (`policies.yaml:12:5`). */
  source?: string;
  /** Refuse text longer than this many characters. Default 16 MiB. */
  maxLength?: number;
}

interface Origin {
  source: string | undefined;
  doc: Document;
  lines: LineCounter;
  /** Path of this document inside the YAML document (for documents of a list). */
  prefix: (string | number)[];
}

const origins = new WeakMap<object, Origin>();

export const DEFAULT_MAX_LENGTH = 16 * 1024 * 1024;

/**
 * Parses YAML (several documents separated by `---`) or JSON text. A JSON or
 * YAML top-level list, or a `kind: List` with `items`, yields one document per
 * element. Empty documents are skipped. Throws {@link PolicyLoadError} with
 * line and column for syntax errors and for documents that are not objects.
 */
export function parsePolicyDocuments(text: string, options: ParseOptions = {}): PolicyDocument[] {
  const source = options.source;
  const max = options.maxLength ?? DEFAULT_MAX_LENGTH;
  if (typeof text !== 'string') {
    throw new PolicyLoadError([{ code: 'NOT_A_DOCUMENT', document: 0, path: '', message: `policy text must be a string (got ${text === null ? 'null' : typeof text})`, ...(source ? { source } : {}) }]);
  }
  if (text.length > max) {
    throw new PolicyLoadError([{ code: 'TOO_LARGE', document: 0, path: '', message: `policy text is ${text.length} characters long; the limit is ${max}`, ...(source ? { source } : {}) }]);
  }
  const lines = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const list = Array.isArray(docs) ? docs : [];
  const problems: Problem[] = [];
  const out: PolicyDocument[] = [];
  const at = (offset: number) => {
    const pos = lines.linePos(offset);
    return { line: pos.line, column: pos.col };
  };
  list.forEach((doc, index) => {
    for (const error of doc.errors) {
      problems.push({ code: 'YAML_SYNTAX', document: index, path: '', message: firstLine(error.message), ...(source ? { source } : {}), ...at(error.pos[0]) });
    }
    if (doc.errors.length > 0) return;
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: 100 });
    } catch (error) {
      problems.push({ code: 'YAML_SYNTAX', document: index, path: '', message: (error as Error).message, ...(source ? { source } : {}) });
      return;
    }
    if (value === null || value === undefined) return;
    const push = (item: unknown, prefix: (string | number)[]) => {
      if (item === null || typeof item !== 'object' || Array.isArray(item)) {
        const node = nodeAt(doc, prefix);
        problems.push({
          code: 'NOT_A_DOCUMENT', document: out.length, path: '', ...(source ? { source } : {}), ...(node?.range ? at(node.range[0]) : {}),
          message: `a policy document must be an object with apiVersion, kind, metadata and spec (got ${Array.isArray(item) ? 'a list' : item === null ? 'null' : typeof item})`,
        });
        return;
      }
      origins.set(item, { source, doc, lines, prefix });
      out.push(item as PolicyDocument);
    };
    if (Array.isArray(value)) value.forEach((item, i) => push(item, [i]));
    else if ((value as PolicyDocument)['kind'] === 'List' && Array.isArray((value as PolicyDocument)['items'])) {
      ((value as PolicyDocument)['items'] as unknown[]).forEach((item, i) => push(item, ['items', i]));
    } else push(value, []);
  });
  if (problems.length > 0) throw new PolicyLoadError(problems);
  return out;
}

function firstLine(message: string): string {
  const line = message.split('\n')[0] ?? message;
  return line.replace(/ at line \d+, column \d+:?$/, '');
}

function nodeAt(doc: Document, path: readonly (string | number)[]): Node | undefined {
  let node: unknown = doc.contents;
  for (const seg of path) {
    if (isMap(node)) {
      const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(seg));
      if (!pair) return undefined;
      node = pair.value;
    } else if (isSeq(node)) {
      node = node.items[Number(seg)];
    } else return undefined;
    if (node === undefined || node === null) return undefined;
  }
  return node as Node;
}

/**
 * Where a JSON pointer inside a parsed document is in its source text: the
 * nearest existing node on the path. `undefined` for documents that did not
 * come from {@link parsePolicyDocuments}.
 */
export function sourceLocation(document: object, pointer: string): { source?: string; line: number; column: number } | undefined {
  const origin = origins.get(document);
  if (!origin) return undefined;
  let segments: string[];
  try {
    segments = parsePointer(pointer);
  } catch {
    segments = [];
  }
  for (let n = segments.length; n >= 0; n--) {
    const node = nodeAt(origin.doc, [...origin.prefix, ...segments.slice(0, n)]);
    if (node?.range) {
      const pos = origin.lines.linePos(node.range[0]);
      return { ...(origin.source ? { source: origin.source } : {}), line: pos.line, column: pos.col };
    }
  }
  return undefined;
}
