/**
 * Reading policy files: YAML (multi-document, YAML 1.2) or JSON text into
 * documents, remembering where each came from so load problems can name a
 * line and column.
 */
import { isMap, isPair, isScalar, isSeq, LineCounter, parseAllDocuments, type Document, type Node, type YAMLError } from 'yaml';
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
    const shown = new Set<number>();
    for (const error of syntaxErrors(doc.errors)) {
      const { offset, message } = describeSyntaxError(text, error);
      if (shown.has(offset)) continue;
      shown.add(offset);
      problems.push({ code: 'YAML_SYNTAX', document: index, path: '', message, ...(source ? { source } : {}), ...at(offset) });
    }
    if (doc.errors.length > 0) return;
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: 100 });
    } catch (error) {
      const message = (error as Error).message;
      const alias = /Unresolved alias[^:]*: (\S+)/.exec(message)?.[1];
      const offset = alias === undefined ? -1 : text.indexOf(`*${alias}`, doc.range[0]);
      problems.push({ code: 'YAML_SYNTAX', document: index, path: '', message, ...(source ? { source } : {}), ...(offset >= 0 ? at(offset) : {}) });
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

/**
 * One mistake often trips several parser checks starting at the same place:
 * keep one error per start, the one reaching furthest (it shows the culprit).
 */
function syntaxErrors(errors: readonly YAMLError[]): YAMLError[] {
  const byStart = new Map<number, YAMLError>();
  for (const error of errors) {
    const kept = byStart.get(error.pos[0]);
    if (!kept || error.pos[1] > kept.pos[1]) byStart.set(error.pos[0], error);
  }
  return [...byStart.values()];
}

/**
 * Where a YAML syntax error is best shown, and what it says. The parser
 * reports some errors at the start of a line (a mis-indented key: shown at the
 * key), at the end of the text (an unclosed quote: shown at the opening
 * quote), or at a value that runs into the next line (a key indented more
 * than its siblings: shown at that key).
 */
function describeSyntaxError(text: string, error: YAMLError): { offset: number; message: string } {
  const [start, end] = error.pos;
  const message = firstLine(error.message);
  const quote = /Missing closing (["'])quote/.exec(message)?.[1];
  if (quote !== undefined) {
    const opening = text.lastIndexOf(quote, Math.max(0, start - 1));
    if (opening >= 0) return { offset: opening, message };
  }
  const lastLine = text.lastIndexOf('\n', end - 1) + 1;
  if (lastLine > start && (error.code === 'MULTILINE_IMPLICIT_KEY' || error.code === 'BLOCK_AS_IMPLICIT_KEY')) {
    return { offset: skipIndentation(text, lastLine), message: `${message}: the value before this line runs into it; is this key indented more than the keys above it?` };
  }
  const lineStart = text.lastIndexOf('\n', start - 1) + 1;
  return { offset: /^ *$/.test(text.slice(lineStart, start)) ? skipIndentation(text, start) : start, message };
}

/** The first character after the spaces at `offset`, when the line has one. */
function skipIndentation(text: string, offset: number): number {
  let at = offset;
  while (at < text.length && text[at] === ' ') at++;
  return at < text.length && text[at] !== '\n' ? at : offset;
}

function firstLine(message: string): string {
  const line = message.split('\n')[0] ?? message;
  return line.replace(/ at line \d+, column \d+:?$/, '');
}

/** The node at `path`; with `key`, the key of the last step's pair instead of its value (for "unknown field" problems). */
function nodeAt(doc: Document, path: readonly (string | number)[], key = false): Node | undefined {
  let node: unknown = doc.contents;
  for (let i = 0; i < path.length; i++) {
    const seg = path[i]!;
    if (isMap(node)) {
      const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(seg));
      if (!pair) return undefined;
      node = key && i === path.length - 1 ? pair.key : pair.value;
    } else if (isSeq(node)) {
      node = node.items[Number(seg)];
    } else return undefined;
    if (node === undefined || node === null) return undefined;
  }
  return node as Node;
}

/**
 * Where a JSON pointer inside a parsed document is in its source text: the
 * nearest existing node on the path (with `key: true`, the key naming the
 * last segment rather than its value). `undefined` for documents that did not
 * come from {@link parsePolicyDocuments}.
 */
export function sourceLocation(document: object, pointer: string, options: { key?: boolean } = {}): { source?: string; line: number; column: number } | undefined {
  const origin = origins.get(document);
  if (!origin) return undefined;
  let segments: string[];
  try {
    segments = parsePointer(pointer);
  } catch {
    segments = [];
  }
  for (let n = segments.length; n >= 0; n--) {
    const node = nodeAt(origin.doc, [...origin.prefix, ...segments.slice(0, n)], options.key === true && n === segments.length && n > 0);
    if (node?.range) {
      const pos = origin.lines.linePos(node.range[0]);
      return { ...(origin.source ? { source: origin.source } : {}), line: pos.line, column: pos.col };
    }
  }
  return undefined;
}
