/**
 * Manifest text → the objects it holds, each with the line it starts on.
 * YAML (multi-document) is read one document at a time, by js-yaml where it
 * reads as the `yaml` package does (audit-yaml-fast.ts) and by the `yaml`
 * package otherwise (audit-yaml-exact.ts); JSON through `JSON.parse`, which is
 * some 30× faster on a cluster dump but gives no positions, so
 * {@link jsonItemOffsets} finds where the items start. A file with `{{`
 * placeholders where YAML or Kubernetes cannot take them is a template: one
 * problem. A `kind: List` (what `kubectl get -o yaml` prints) or a top-level
 * list gives one object per item. A document that does not parse, is larger
 * than the limit, or expands too many aliases is a problem with its line, and
 * the other documents still count.
 */
import { LineCounter } from 'yaml';
import { expand, isObject, lineOf, listItems, parseYamlSlow, readFailure, tooLarge } from './audit-yaml-exact.js';
import { blockItemStarts, chunks, contentStart, fastEligible, loadFast, wholeFileSlow, type Chunk } from './audit-yaml-fast.js';

export { listItems };

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
  if (wholeFileSlow(text)) parseYamlSlow(file, text, limits, { line: 0 }, out);
  else {
    // Documents with a `{{` go to the yaml package (the fast path never takes them), the others stay fast.
    for (const chunk of chunks(text)) {
      if (!parseChunkFast(file, text, chunk, limits, starts, out)) {
        parseYamlSlow(file, text.slice(chunk.start, chunk.end), limits, { line: lineIn(starts, chunk.start) - 1 }, out);
      }
    }
  }
  const template = text.includes('{{') ? templateProblem(file, text, out, starts) : undefined;
  return template ? { manifests: [], problems: [template], warnings: [] } : out;
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
