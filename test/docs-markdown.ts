/**
 * Reading the docs as the test suite sees them: which Markdown files exist,
 * which code blocks are runnable (fenced as ```ts runnable), and which
 * relative links they contain. Used by test/docs.test.ts.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

/** A ```ts runnable block: `line` is the 1-based line of its opening fence. */
export interface RunnableBlock {
  file: string;
  line: number;
  code: string;
}

/** A Markdown link or image target, outside code. `line` is 1-based. */
export interface DocLink {
  file: string;
  line: number;
  target: string;
}

const FENCE_OPEN = /^( {0,3})(`{3,}|~{3,})\s*([^`]*)$/;
const RUNNABLE_INFO = /^(ts|typescript)\s+runnable\b/;
/** Blocks that are type-checked: the runnable ones, and ```ts check blocks (complete programs not run, e.g. a vitest test file). */
const CHECKED_INFO = /^(ts|typescript)\s+(runnable|check)\b/;

/** Every `*.md` under `docs/` (recursively) plus the root README.md, as repo-relative POSIX paths, sorted. */
export function findDocs(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    if (!existsSync(dir)) return;
    for (const name of readdirSync(dir).sort()) {
      if (name === 'node_modules' || name.startsWith('.')) continue;
      const full = join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (name.endsWith('.md')) out.push(relative(root, full).split(sep).join('/'));
    }
  };
  walk(join(root, 'docs'));
  if (existsSync(join(root, 'README.md'))) out.push('README.md');
  return out.sort();
}

interface Fence {
  start: number;
  indent: number;
  marker: string;
  info: string;
  lines: string[];
}

/** Splits Markdown into fenced code blocks and prose lines (CommonMark fences, up to 3 spaces of indentation). */
function scan(text: string): { fences: Fence[]; prose: Array<{ line: number; text: string }> } {
  const lines = text.split(/\r?\n/);
  const fences: Fence[] = [];
  const prose: Array<{ line: number; text: string }> = [];
  let open: Fence | undefined;
  lines.forEach((raw, i) => {
    if (open) {
      const close = /^( {0,3})(`{3,}|~{3,})\s*$/.exec(raw);
      if (close && close[2]![0] === open.marker[0] && close[2]!.length >= open.marker.length) {
        fences.push(open);
        open = undefined;
        return;
      }
      open.lines.push(raw.startsWith(' '.repeat(open.indent)) ? raw.slice(open.indent) : raw.trimStart());
      return;
    }
    const m = FENCE_OPEN.exec(raw);
    if (m && !(m[2]![0] === '`' && m[3]!.includes('`'))) {
      open = { start: i + 1, indent: m[1]!.length, marker: m[2]!, info: m[3]!.trim(), lines: [] };
      return;
    }
    prose.push({ line: i + 1, text: raw });
  });
  // An unclosed fence runs to the end of the document (CommonMark).
  if (open) fences.push(open);
  return { fences, prose };
}

/** The ```ts runnable blocks of one Markdown text. */
export function extractRunnableBlocks(file: string, text: string): RunnableBlock[] {
  return scan(text)
    .fences.filter((f) => RUNNABLE_INFO.test(f.info))
    .map((f) => ({ file, line: f.start, code: f.lines.join('\n') }));
}

/** The ```ts runnable and ```ts check blocks of one Markdown text: every block the type check covers. */
export function extractCheckedBlocks(file: string, text: string): RunnableBlock[] {
  return scan(text)
    .fences.filter((f) => CHECKED_INFO.test(f.info))
    .map((f) => ({ file, line: f.start, code: f.lines.join('\n') }));
}

/** Inline links `[text](target)` and images outside fenced code and inline code spans. */
export function extractLinks(file: string, text: string): DocLink[] {
  const out: DocLink[] = [];
  for (const { line, text: raw } of scan(text).prose) {
    const withoutCode = raw.replace(/`+[^`]*`+/g, '');
    for (const m of withoutCode.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      out.push({ file, line, target: m[1]! });
    }
  }
  return out;
}

/** GitHub's heading anchor: lowercase, punctuation dropped, spaces to "-". */
export function headingSlug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** Anchors of every heading in a Markdown text (with GitHub's -1, -2 suffixes for repeats). */
export function headingAnchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const { text: raw } of scan(text).prose) {
    const m = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(raw);
    if (!m) continue;
    const base = headingSlug(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/** Reads a repo-relative file. */
export function readDoc(root: string, file: string): string {
  return readFileSync(join(root, file), 'utf8');
}
