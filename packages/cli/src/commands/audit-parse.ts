/**
 * Manifest text → the objects it holds, each with the line it starts on.
 * YAML (multi-document) goes through the `yaml` package one document at a
 * time; JSON through `JSON.parse`, which is some 30× faster on a cluster dump
 * but gives no positions, so {@link jsonItemOffsets} finds where the items
 * start. A `kind: List` (what `kubectl get -o yaml` prints) or a top-level
 * list gives one object per item. A document that does not parse, is larger
 * than the limit, or expands too many aliases is a problem with its line, and
 * the other documents still count.
 */
import { Composer, LineCounter, Parser, isCollection, isMap, isScalar, isSeq, visit, type Document, type Node, type Scalar } from 'yaml';
import { blockItemStarts, chunks, contentStart, fastEligible, loadFast, wholeFileSlow, type Chunk } from './audit-yaml-fast.js';

/** One value found in a file: a document, or one item of a List. */
export interface Manifest {
  file: string;
  /** 1-based line where the document (or the List item) starts. */
  line: number;
  value: unknown;
}

/** A document that could not be read. */
export interface ManifestProblem {
  file: string;
  /** 1-based. */
  line: number;
  column?: number;
  message: string;
}

/** What {@link parseManifests} found in one text. */
export interface Parsed {
  manifests: Manifest[];
  problems: ManifestProblem[];
  /** Read, but not as written: a key given twice (the last value wins, as in kubectl). */
  warnings: ManifestProblem[];
}

/** Limits on untrusted manifests. */
export interface ParseLimits {
  /** Largest document, in bytes (characters of the text); larger ones are problems. */
  maxDocumentBytes: number;
}

/** YAML aliases one document may expand (the `yaml` package's own default): bounds "billion laughs" documents. */
const MAX_ALIASES = 100;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The items of a `kind: List` (or any `*List` kind with `items`), or `undefined`. */
export function listItems(value: unknown): unknown[] | undefined {
  if (!isObject(value) || !Array.isArray(value['items']) || typeof value['kind'] !== 'string' || !value['kind'].endsWith('List')) return undefined;
  return value['items'];
}

function lineOf(counter: LineCounter, offset: number): number {
  return counter.linePos(offset).line;
}

function tooLarge(bytes: number, limits: ParseLimits): string {
  return `the document is ${bytes} bytes, over the limit of ${limits.maxDocumentBytes} (raise it with --max-document-size)`;
}

function readFailure(error: unknown): string {
  if (error instanceof RangeError) return 'the document is nested too deeply to read';
  return (error as Error).message.split('\n')[0] ?? String(error);
}

/** Item start offsets of a composed YAML document's List or top-level sequence. */
function yamlItemOffsets(doc: Document.Parsed): Array<number | undefined> | undefined {
  const contents = doc.contents as Node | null;
  if (isSeq(contents)) return contents.items.map((item) => (item as Node | null)?.range?.[0]);
  if (!isMap(contents)) return undefined;
  const items = contents.get('items', true) as Node | undefined;
  return isSeq(items) ? items.items.map((item) => (item as Node | null)?.range?.[0]) : undefined;
}

function expand(file: string, value: unknown, line: number, offsets: ReadonlyArray<number | undefined> | undefined, lineAt: (offset: number) => number): Manifest[] {
  const items = Array.isArray(value) ? value : listItems(value);
  if (!items) return [{ file, line, value }];
  return items.map((item, i) => {
    const offset = offsets?.[i];
    return { file, line: offset === undefined ? line : lineAt(offset), value: item };
  });
}

/** Where a piece of the text starts in its file: the 0-based line of its first character. */
interface Base {
  line: number;
}

/** Pairs of a mapping whose key is a collection (`{{x}}` in YAML is a map with a map as its key). */
function collectionKeys(doc: Document.Parsed): Node[] {
  const out: Node[] = [];
  visit(doc, {
    Pair(_, pair) {
      if (isCollection(pair.key)) out.push(pair.key);
    },
  });
  return out;
}

/** Keys given twice in one mapping: [first, repeat] key nodes. */
function duplicateKeys(doc: Document.Parsed): Array<[Scalar, Scalar]> {
  const out: Array<[Scalar, Scalar]> = [];
  visit(doc, {
    Map(_, map) {
      const seen = new Map<unknown, Scalar>();
      for (const pair of map.items) {
        if (!isScalar(pair.key)) continue;
        const first = seen.get(pair.key.value);
        if (first) out.push([first, pair.key]);
        else seen.set(pair.key.value, pair.key);
      }
    },
  });
  return out;
}

/** What the `yaml` package reads: exact positions and messages; duplicate keys read as kubectl reads them (the last wins), with a warning. */
function parseYamlSlow(file: string, text: string, limits: ParseLimits, base: Base, out: Parsed): void {
  const counter = new LineCounter();
  // logLevel error: the package's warnings (a collection as a key) never reach the terminal; such documents are reported.
  const composer = new Composer({ prettyErrors: false, uniqueKeys: false, logLevel: 'error' });
  const lineAt = (offset: number) => lineOf(counter, offset) + base.line;
  try {
    for (const doc of composer.compose(new Parser(counter.addNewLine).parse(text), true)) {
      const start = (doc.contents as Node | null)?.range?.[0] ?? doc.range[0];
      const error = doc.errors[0];
      if (error) {
        const pos = counter.linePos(error.pos[0]);
        out.problems.push({ file, line: pos.line + base.line, column: pos.col, message: error.message.split('\n')[0] ?? error.code });
        continue;
      }
      const bytes = doc.range[2] - doc.range[0];
      if (bytes > limits.maxDocumentBytes) {
        out.problems.push({ file, line: lineAt(start), message: tooLarge(bytes, limits) });
        continue;
      }
      const complex = collectionKeys(doc)[0];
      if (complex) {
        const pos = counter.linePos(complex.range?.[0] ?? start);
        out.problems.push({ file, line: pos.line + base.line, column: pos.col, message: 'a mapping key is itself a map or a list, which no Kubernetes object has (kubectl cannot read it)' });
        continue;
      }
      for (const [first, repeat] of duplicateKeys(doc)) {
        const pos = counter.linePos(repeat.range?.[0] ?? start);
        out.warnings.push({
          file, line: pos.line + base.line, column: pos.col,
          message: `key "${String(repeat.value)}" is given twice in one mapping (lines ${lineAt(first.range?.[0] ?? start)} and ${pos.line + base.line}); the last value is read, as kubectl reads it`,
        });
      }
      let value: unknown;
      try {
        value = doc.toJS({ maxAliasCount: MAX_ALIASES });
      } catch (failure) {
        out.problems.push({ file, line: lineAt(start), message: readFailure(failure) });
        continue;
      }
      if (value === null || value === undefined) continue;
      for (const m of expand(file, value, lineAt(start), yamlItemOffsets(doc), lineAt)) out.manifests.push(m);
    }
  } catch (failure) {
    out.problems.push({ file, line: base.line + 1, message: readFailure(failure) });
  }
}

/** The 1-based line of `offset` in a text whose line starts are `starts` (sorted). */
function lineIn(starts: readonly number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

function lineStarts(text: string): number[] {
  const out = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) out.push(i + 1);
  return out;
}

/** One document by the fast path; false when it must be read by the `yaml` package. */
function parseChunkFast(file: string, text: string, chunk: Chunk, limits: ParseLimits, starts: readonly number[], out: Parsed): boolean {
  const body = text.slice(chunk.start, chunk.end);
  if (!fastEligible(body)) return false;
  const at = contentStart(text, chunk);
  if (at === undefined) return loadFast(body) !== undefined; // comments only: nothing to read (or an error to report)
  if (chunk.end - chunk.start > limits.maxDocumentBytes) return false;
  const loaded = loadFast(body);
  if (!loaded) return false;
  const value = loaded.value;
  if (value === null || value === undefined) return true;
  const items = Array.isArray(value) ? value : listItems(value);
  if (!items) {
    out.manifests.push({ file, line: lineIn(starts, at), value });
    return true;
  }
  const offsets = blockItemStarts(text, chunk, at);
  if (!offsets || offsets.length !== items.length) return false;
  for (let i = 0; i < items.length; i++) out.manifests.push({ file, line: lineIn(starts, offsets[i]!), value: items[i] });
  return true;
}

/** Line and column of the first `{{` outside a comment, or `undefined`. */
function placeholderAt(text: string, starts: readonly number[]): { line: number; column: number } | undefined {
  for (let i = text.indexOf('{{'); i >= 0; i = text.indexOf('{{', i + 2)) {
    const line = lineIn(starts, i);
    const lineStart = starts[line - 1]!;
    if (!text.slice(lineStart, i).includes('#')) return { line, column: i - lineStart + 1 };
  }
  return undefined;
}

const NAME_FIELDS = ['name', 'namespace', 'generateName'];

/** A value whose metadata holds a `{{…}}` placeholder where Kubernetes allows no braces (names, label keys and values). */
function templatedMetadata(value: unknown): boolean {
  const metadata = isObject(value) && isObject(value['metadata']) ? value['metadata'] : undefined;
  if (!metadata) return false;
  const labels = isObject(metadata['labels']) ? metadata['labels'] : {};
  const texts = [...NAME_FIELDS.map((k) => metadata[k]), ...Object.keys(labels), ...Object.values(labels)];
  return texts.some((t) => typeof t === 'string' && /\{\{.*\}\}/.test(t));
}

/**
 * A template (Helm, mustache...) is no manifest: kubectl refuses it. A text with `{{` is one when a
 * document does not parse, has a map or a list as a key (`{{x}}` unquoted), or holds a placeholder
 * in a name or a label; then the file is one problem, with the line of its first placeholder.
 */
function templateProblem(file: string, text: string, parsed: Parsed, starts: readonly number[]): ManifestProblem | undefined {
  const signs = parsed.problems.length > 0 || parsed.manifests.some((m) => templatedMetadata(m.value));
  if (!signs) return undefined;
  const at = placeholderAt(text, starts) ?? { line: parsed.problems[0]?.line ?? 1 };
  return { file, ...at, message: 'a template, not a manifest ({{…}} placeholders): render it first (helm template, or the tool it is written for) and audit the output' };
}

/** A YAML text read by the `yaml` package alone (what the fast path must agree with; for tests and benchmarks). */
export function parseYamlExact(file: string, text: string, limits: ParseLimits): Parsed {
  const out: Parsed = { manifests: [], problems: [], warnings: [] };
  parseYamlSlow(file, text, limits, { line: 0 }, out);
  return out;
}

function parseYaml(file: string, text: string, limits: ParseLimits): Parsed {
  const out: Parsed = { manifests: [], problems: [], warnings: [] };
  const starts = lineStarts(text);
  if (text.includes('{{')) {
    parseYamlSlow(file, text, limits, { line: 0 }, out);
    const template = templateProblem(file, text, out, starts);
    return template ? { manifests: [], problems: [template], warnings: [] } : out;
  }
  if (wholeFileSlow(text)) {
    parseYamlSlow(file, text, limits, { line: 0 }, out);
    return out;
  }
  for (const chunk of chunks(text)) {
    if (!parseChunkFast(file, text, chunk, limits, starts, out)) {
      parseYamlSlow(file, text.slice(chunk.start, chunk.end), limits, { line: lineIn(starts, chunk.start) - 1 }, out);
    }
  }
  return out;
}

function linesOf(text: string): LineCounter {
  const counter = new LineCounter();
  counter.addNewLine(0);
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) counter.addNewLine(i + 1);
  return counter;
}

/** Texts the YAML parser may re-read to locate a JSON error: small and shallow, so the fallback stays cheap on hostile input. */
const LOCATE_MAX_BYTES = 1 << 20;
const LOCATE_MAX_DEPTH = 256;

function shallow(text: string): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '[' || c === '{') {
      if (++depth > LOCATE_MAX_DEPTH) return false;
    } else if (c === ']' || c === '}') depth--;
  }
  return true;
}

/**
 * `line:column` of a JSON syntax error: from V8's "at position N", else from
 * the YAML parser (JSON is YAML) for small, shallow texts, else line 1.
 */
function jsonErrorAt(text: string, message: string): { line: number; column?: number } {
  const position = /at position (\d+)/.exec(message);
  if (position) {
    const pos = linesOf(text).linePos(Number(position[1]));
    return { line: pos.line, column: pos.col };
  }
  if (text.length > LOCATE_MAX_BYTES || !shallow(text)) return { line: 1 };
  const found: Parsed = { manifests: [], problems: [], warnings: [] };
  parseYamlSlow('', text, { maxDocumentBytes: Infinity }, { line: 0 }, found);
  const located = found.problems[0];
  return located ? { line: located.line, ...(located.column !== undefined ? { column: located.column } : {}) } : { line: 1 };
}

function parseJson(file: string, text: string, limits: ParseLimits): Parsed {
  if (text.length > limits.maxDocumentBytes) return { manifests: [], problems: [{ file, line: 1, message: tooLarge(text.length, limits) }], warnings: [] };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (failure) {
    // V8 quotes the text in its message ("…", "<text>" is not valid JSON): keep the reason only, never the (untrusted, maybe huge) text.
    const raw = readFailure(failure);
    const quoted = raw.indexOf(', "');
    const message = (quoted > 0 && raw.endsWith('" is not valid JSON') ? raw.slice(0, quoted) : raw).slice(0, 300);
    return { manifests: [], problems: [{ file, ...jsonErrorAt(text, message), message: `invalid JSON: ${message}` }], warnings: [] };
  }
  if (value === null) return { manifests: [], problems: [], warnings: [] };
  const offsets = Array.isArray(value) || listItems(value) ? jsonItemOffsets(text) : undefined;
  const counter = linesOf(text);
  const lineAt = (offset: number) => lineOf(counter, offset);
  const start = text.length - text.trimStart().length;
  return { manifests: expand(file, value, lineAt(start), offsets, lineAt), problems: [], warnings: [] };
}

/**
 * Offsets where the elements of a JSON text's top-level array, or of its
 * top-level object's `"items"` array, start. One linear pass that tracks only
 * strings, depth and the last key; run on text `JSON.parse` accepted.
 */
export function jsonItemOffsets(text: string): number[] {
  let out: number[] = [];
  let depth = 0;
  let target = -1;
  let expectItem = false;
  let key = '';
  let afterColon = false;
  let rootIsObject = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === ' ' || c === '\n' || c === '\r' || c === '\t') continue;
    if (expectItem && depth === target && c !== ']') out.push(i);
    expectItem = false;
    switch (c) {
      case '"': {
        const start = i + 1;
        for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
        if (depth === 1 && rootIsObject) key = text.slice(start, i);
        afterColon = false;
        break;
      }
      case ':':
        afterColon = true;
        break;
      case '[':
        depth++;
        if (depth === 1 || (depth === 2 && rootIsObject && afterColon && key === 'items')) {
          if (depth === 2) out = []; // a repeated "items" key: JSON.parse keeps the last one
          target = depth;
          expectItem = true;
        }
        afterColon = false;
        break;
      case '{':
        depth++;
        if (depth === 1) rootIsObject = true;
        afterColon = false;
        break;
      case ']':
      case '}':
        if (depth === target) target = -1;
        depth--;
        break;
      case ',':
        if (depth === target) expectItem = true;
        afterColon = false;
        break;
      default:
        afterColon = false;
    }
  }
  return out;
}

/** Parses one manifest text: JSON when it looks like JSON (or `json` says so), else YAML. */
export function parseManifests(file: string, text: string, limits: ParseLimits, json = false): Parsed {
  const first = text.trimStart()[0];
  if (json || first === '{' || first === '[') {
    const parsed = parseJson(file, text, limits);
    // YAML flow style also starts with { or [: a text that is not JSON is read as YAML unless it must be JSON.
    if (json || parsed.problems.length === 0) return parsed;
  }
  return parseYaml(file, text, limits);
}
