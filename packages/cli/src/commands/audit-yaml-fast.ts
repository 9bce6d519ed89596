/**
 * The fast path of reading YAML manifests: js-yaml (8 to 12× the `yaml`
 * package's speed on real manifests, see docs/performance.md) on documents
 * whose text holds nothing where the two could differ, with positions
 * computed from the text. Anything else (templates, anchors and aliases, tags,
 * complex keys, directives, errors of any kind, duplicate keys) goes to the
 * `yaml` package, which gives exact positions and messages. The scalars are
 * resolved as the `yaml` package's YAML 1.2 core schema resolves them, so both
 * paths give the same values.
 */
import { FAILSAFE_SCHEMA, load, Type } from 'js-yaml';

/** `null` and `bool` of the YAML 1.2 core schema. */
const nul = new Type('tag:yaml.org,2002:null', {
  kind: 'scalar',
  resolve: (data: string | null) => data === null || data === '' || ((data[0] === '~' || data[0] === 'n' || data[0] === 'N') && /^(?:~|[Nn]ull|NULL)$/.test(data)),
  construct: () => null,
});
const bool = new Type('tag:yaml.org,2002:bool', {
  kind: 'scalar',
  resolve: (data: string | null) => data !== null && data.length >= 4 && data.length <= 5 && /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/.test(data),
  construct: (data: string) => data === 'true' || data === 'True' || data === 'TRUE',
});

const INT = /^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$/;

/** Whether a plain scalar may be a number (its first character), before any pattern is tried: most scalars are words. */
function numeric(data: string): boolean {
  const c = data.charCodeAt(0);
  return (c >= 48 && c <= 57) || c === 43 || c === 45 || c === 46; // 0-9 + - .
}

/** `int` of the YAML 1.2 core schema (the `yaml` package's: no binary, no sign on hex or octal, no `_`). */
const int = new Type('tag:yaml.org,2002:int', {
  kind: 'scalar',
  resolve: (data: string | null) => data !== null && numeric(data) && INT.test(data),
  construct: (data: string) => (data.startsWith('0o') ? parseInt(data.slice(2), 8) : data.startsWith('0x') ? parseInt(data.slice(2), 16) : parseInt(data, 10)),
});

const FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;
const SPECIAL = /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/;

/** `float` of the YAML 1.2 core schema, as the `yaml` package reads it. */
const float = new Type('tag:yaml.org,2002:float', {
  kind: 'scalar',
  resolve: (data: string | null) => data !== null && numeric(data) && ((FLOAT.test(data) && !/^[-+]?[0-9]+$/.test(data)) || SPECIAL.test(data)),
  construct: (data: string) => {
    if (!SPECIAL.test(data)) return parseFloat(data);
    if (data.slice(-3).toLowerCase() === 'nan') return NaN;
    return data.startsWith('-') ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
  },
});

const SCHEMA = FAILSAFE_SCHEMA.extend({ implicit: [nul, bool, int, float] });

/** Index of the first character of the line holding `i`. */
function lineStart(text: string, i: number): number {
  return text.lastIndexOf('\n', i - 1) + 1;
}

/** Whether `i` is where a node may start: after a line's indentation (and `- ` entries), or after `-`, `:`, `?`, `[`, `{`, `,` and blanks. */
function nodeStart(text: string, i: number): boolean {
  let j = i - 1;
  while (j >= 0 && (text[j] === ' ' || text[j] === '\t')) j--;
  if (j < 0 || text[j] === '\n' || text[j] === '\r') return true;
  const c = text[j];
  return c === '-' || c === ':' || c === '?' || c === '[' || c === '{' || c === ',';
}

/** Whether `i` is the first character of its line after its indentation and any `- ` entries. */
function firstOnLine(text: string, i: number): boolean {
  for (let j = lineStart(text, i); j < i; j++) {
    const c = text[j];
    if (c === ' ' || c === '\t') continue;
    if (c === '-' && (text[j + 1] === ' ' || text[j + 1] === '\t')) continue;
    return false;
  }
  return true;
}

function blankOrEnd(c: string | undefined): boolean {
  return c === undefined || c === ' ' || c === '\t' || c === '\n' || c === '\r';
}

/** A flow collection used as a key: a line that opens with `[` or `{` and has `]:` or `}:` (then a blank) on it. */
function flowKeyLine(text: string, i: number): boolean {
  const end = text.indexOf('\n', i);
  const line = text.slice(i, end < 0 ? text.length : end);
  const close = Math.max(line.lastIndexOf(']'), line.lastIndexOf('}'));
  if (close < 0) return false;
  let k = close + 1;
  while (line[k] === ' ' || line[k] === '\t') k++;
  return line[k] === ':' && blankOrEnd(line[k + 1]);
}

/**
 * Whether js-yaml may read this document: none of the constructs where js-yaml and the `yaml`
 * package may read a document differently, or where only the `yaml` package bounds the work
 * (alias expansion). Those are an anchor or a tag where a node starts, an explicit key (`? `), a
 * flow collection as a key, a `{{` placeholder. One pass of `indexOf` per trigger character (they
 * are rare in manifests); a false alarm only costs speed.
 */
export function fastEligible(text: string): boolean {
  if (text.includes('{{')) return false;
  for (const c of ['&', '!']) {
    for (let i = text.indexOf(c); i >= 0; i = text.indexOf(c, i + 1)) {
      const next = text[i + 1];
      if (!blankOrEnd(next) && next !== '=' && next !== ',' && next !== ']' && next !== '}' && nodeStart(text, i)) return false;
    }
  }
  for (let i = text.indexOf('?'); i >= 0; i = text.indexOf('?', i + 1)) {
    if (blankOrEnd(text[i + 1]) && firstOnLine(text, i)) return false;
  }
  for (const c of ['[', '{']) {
    for (let i = text.indexOf(c); i >= 0; i = text.indexOf(c, i + 1)) {
      if (firstOnLine(text, i) && flowKeyLine(text, i)) return false;
    }
  }
  return true;
}

/** Whether the text holds directives (`%`) or document end markers (`...`), which change where documents start. */
export function wholeFileSlow(text: string): boolean {
  if (text.startsWith('%') || text.includes('\n%')) return true;
  for (let i = text.indexOf('...'); i >= 0; i = text.indexOf('...', i + 3)) {
    if ((i === 0 || text[i - 1] === '\n') && blankOrEnd(text[i + 3])) return true;
  }
  return false;
}

/** The document's value as the `yaml` package would give it, or `undefined` when js-yaml refuses it. */
export function loadFast(text: string): { value: unknown } | undefined {
  try {
    return { value: load(text, { schema: SCHEMA }) };
  } catch {
    return undefined;
  }
}

/** One document of a multi-document text: `[start, end)` offsets, starting at its `---` line (or 0). */
export interface Chunk {
  start: number;
  end: number;
}

function isMarker(text: string, i: number): boolean {
  if (text.charCodeAt(i) !== 45 || text.charCodeAt(i + 1) !== 45 || text.charCodeAt(i + 2) !== 45) return false;
  const c = text[i + 3];
  return c === undefined || c === ' ' || c === '\t' || c === '\n' || c === '\r';
}

/**
 * The documents of a YAML stream, split at the lines that start with `---` (a document marker, which
 * YAML forbids inside any scalar at the start of a line).
 */
export function chunks(text: string): Chunk[] {
  const out: Chunk[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i = text.indexOf('\n', i) + 1 || text.length) {
    if (i > 0 && isMarker(text, i)) {
      out.push({ start, end: i });
      start = i;
    }
  }
  out.push({ start, end: text.length });
  return out;
}

/**
 * Offset of the first character of the document's content (what the `yaml` package gives as its
 * contents' start): the first line that is neither blank nor a comment, or the text after the
 * `---` marker on its own line; `undefined` for a document without content.
 */
export function contentStart(text: string, chunk: Chunk): number | undefined {
  let i = chunk.start;
  if (isMarker(text, i)) {
    i += 3;
    while (text[i] === ' ' || text[i] === '\t') i++;
    if (i < chunk.end && text[i] !== '#' && text[i] !== '\n' && text[i] !== '\r') return i;
    i = text.indexOf('\n', i);
    if (i < 0 || i >= chunk.end) return undefined;
    i++;
  }
  while (i < chunk.end) {
    let j = i;
    while (text[j] === ' ' || text[j] === '\t') j++;
    if (j < chunk.end && text[j] !== '#' && text[j] !== '\n' && text[j] !== '\r') return j;
    const next = text.indexOf('\n', j);
    if (next < 0 || next >= chunk.end) return undefined;
    i = next + 1;
  }
  return undefined;
}

function lineIsEmpty(text: string, j: number, end: number): boolean {
  return j >= end || text[j] === '\n' || text[j] === '\r' || text[j] === '#';
}

/**
 * Start offsets of the items of a document's top-level block sequence, or of its `items:` block
 * sequence (a key at column 0): the lines that start with `- ` at the items' indentation. Lines of
 * an item's content are indented deeper, so they cannot be taken for one; the sequence ends at the
 * first line indented less (or, at column 0, at the next key). The caller checks the count against
 * the parsed value, and reads the document with the `yaml` package when it differs.
 */
export function blockItemStarts(text: string, chunk: Chunk, contentAt: number): number[] | undefined {
  let i = contentAt;
  if (text[i] !== '-') {
    const found = /^items:[ \t]*(?:#[^\n]*)?\r?\n/m.exec(text.slice(contentAt, chunk.end));
    if (!found) return undefined;
    i = contentAt + found.index + found[0].length;
  }
  let indent = -1;
  const out: number[] = [];
  for (let line = i; line < chunk.end; line = text.indexOf('\n', line) + 1 || chunk.end) {
    let j = line;
    while (text[j] === ' ') j++;
    if (lineIsEmpty(text, j, chunk.end)) continue;
    const at = j - line;
    const item = text[j] === '-' && (text[j + 1] === ' ' || text[j + 1] === '\n' || text[j + 1] === '\r' || j + 1 >= chunk.end);
    if (indent < 0) {
      if (!item) return undefined; // a flow sequence, or none
      indent = at;
    }
    if (at < indent || (at === indent && !item)) break;
    if (at === indent) out.push(afterDash(text, j, chunk.end));
  }
  return out;
}

/** Where an item's content starts (what the `yaml` package reports): after `- `, or on the next line that has some. */
function afterDash(text: string, dash: number, end: number): number {
  let j = dash + 1;
  while (j < end) {
    while (text[j] === ' ' || text[j] === '\t') j++;
    if (!lineIsEmpty(text, j, end)) return j;
    const next = text.indexOf('\n', j);
    if (next < 0 || next >= end) return dash;
    j = next + 1;
  }
  return dash;
}
