/**
 * Where the cursor is in a block-style YAML text, read from indentation
 * alone: the key path above it and whether a key or a value is being typed.
 * Indentation, not a parse, because the text is usually invalid while it is
 * being typed (`kin|` is not YAML yet). Flow style (`{a: b}`) is not followed.
 */

/** A key, or `*` for "an item of a list". */
export type PathSegment = string;

export interface CursorContext {
  /** Key path of the mapping the cursor is in (for a key), or down to the key whose value is typed. */
  path: PathSegment[];
  /** `key`: typing a key of the mapping at `path`; `value`: typing the value of `path`'s last key. */
  position: 'key' | 'value';
  /** What has been typed of the word so far, and where it starts (offset in the text). */
  prefix: string;
  from: number;
  /** Keys already present in the mapping (for `key`), so they are not offered again. */
  siblings: string[];
  /** The text of the YAML document (between `---` lines) holding the cursor. */
  documentText: string;
}

interface Line {
  /** Column of the first `- ` of the line, when it starts a list item. */
  dash?: number;
  /** Column and name of the key on the line, when it has one. */
  keyCol?: number;
  key?: string;
  blank: boolean;
  separator: boolean;
}

const KEY_RE = /^((?:\s*-\s+)*)\s*([^\s#:'"{[\]},][^:#]*?|"[^"]*"|'[^']*'):(\s|$)/;

function readLine(text: string): Line {
  if (/^(---|\.\.\.)(\s|$)/.test(text)) return { blank: false, separator: true };
  if (/^\s*(#.*)?$/.test(text)) return { blank: true, separator: false };
  const line: Line = { blank: false, separator: false };
  const dash = /^(\s*)-(\s|$)/.exec(text);
  if (dash) line.dash = dash[1]?.length ?? 0;
  const key = KEY_RE.exec(text);
  if (key) {
    line.keyCol = text.indexOf(key[2] ?? '', key[1]?.length ?? 0);
    line.key = (key[2] ?? '').replace(/^["']|["']$/g, '').trim();
  }
  return line;
}

/** Where the word under the cursor starts, what path leads to it, and the column of the mapping it belongs to. */
function typing(before: string): { path: PathSegment[]; position: CursorContext['position']; prefix: string; want: number; mappingCol: number } | undefined {
  const key = /^((?:\s*-\s+)*)(\s*)([\w.$/-]*)$/.exec(before);
  if (key) {
    const prefix = key[3] ?? '';
    const dashes = key[1] ?? '';
    const keyCol = before.length - prefix.length;
    // On a line opening a list item (`- na|`) the mapping is the new item: its container is above the dash.
    return dashes === ''
      ? { path: [], position: 'key', prefix, want: keyCol, mappingCol: keyCol }
      : { path: ['*'], position: 'key', prefix, want: dashes.indexOf('-'), mappingCol: keyCol };
  }
  const value = /^((?:\s*-\s+)*)(\s*)([^\s#:'"{[\]},][^:#]*?):\s+([\w.-]*)$/.exec(before);
  if (value) {
    const dashes = value[1] ?? '';
    const keyCol = dashes.length + (value[2] ?? '').length;
    const name = (value[3] ?? '').trim();
    return dashes === ''
      ? { path: [name], position: 'value', prefix: value[4] ?? '', want: keyCol, mappingCol: keyCol }
      : { path: ['*', name], position: 'value', prefix: value[4] ?? '', want: dashes.indexOf('-'), mappingCol: keyCol };
  }
  return undefined;
}

/** The cursor context at `offset` of `text`, or undefined where neither a key nor a simple value is being typed. */
export function cursorContext(text: string, offset: number): CursorContext | undefined {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  const before = text.slice(lineStart, offset);
  const lines = text.split('\n');
  const lineNo = text.slice(0, lineStart).split('\n').length - 1;
  let docStart = 0;
  let docEnd = lines.length;
  for (let i = lineNo - 1; i >= 0; i--) if (readLine(lines[i] ?? '').separator) { docStart = i + 1; break; }
  for (let i = lineNo + 1; i < lines.length; i++) if (readLine(lines[i] ?? '').separator) { docEnd = i; break; }
  const documentText = lines.slice(docStart, docEnd).join('\n');

  const found = typing(before);
  if (!found) return undefined;
  const { path, position, prefix, mappingCol } = found;
  let want = found.want;
  const siblings: string[] = [];
  // Keys above in the same mapping are siblings, up to the line that opens it (a new list item has none above).
  let inMapping = position === 'key' && path[0] !== '*';
  for (let i = lineNo - 1; i >= docStart; i--) {
    const line = readLine(lines[i] ?? '');
    if (line.blank) continue;
    if (line.keyCol !== undefined && line.key !== undefined && line.keyCol < want) {
      path.unshift(line.key);
      inMapping = false;
      if (line.dash !== undefined && line.dash < line.keyCol) {
        path.unshift('*');
        want = line.dash;
      } else want = line.keyCol;
    } else if (line.dash !== undefined && line.dash < want) {
      // The line opening the list item the cursor's mapping is in (`- name: a` above `  rule: …`).
      if (inMapping && line.keyCol === mappingCol && line.key !== undefined) siblings.push(line.key);
      path.unshift('*');
      want = line.dash;
      inMapping = false;
    } else if (inMapping && line.dash === undefined && line.keyCol === mappingCol && line.key !== undefined) {
      siblings.push(line.key);
    }
  }
  for (let i = lineNo + 1; i < docEnd && position === 'key'; i++) {
    const line = readLine(lines[i] ?? '');
    if (line.blank) continue;
    if (line.keyCol === undefined || line.keyCol < mappingCol || (line.dash !== undefined && line.dash < mappingCol)) break;
    if (line.keyCol === mappingCol && line.key !== undefined) siblings.push(line.key);
  }
  return { path, position, prefix, from: offset - prefix.length, siblings, documentText };
}
