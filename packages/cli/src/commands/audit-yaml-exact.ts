/**
 * The `yaml` package's reading of manifests: exact positions and messages for
 * every document the fast path (audit-yaml-fast.ts) does not take, duplicate
 * keys read as kubectl reads them (the last wins) with a warning, a mapping
 * key that is itself a collection reported (kubectl cannot read it).
 */
import { Composer, LineCounter, Parser, isCollection, isMap, isScalar, isSeq, visit, type Document, type Node, type Scalar } from 'yaml';
import type { Manifest, Parsed, ParseLimits } from './audit-parse.js';

/** YAML aliases one document may expand (the `yaml` package's own default): bounds "billion laughs" documents. */
const MAX_ALIASES = 100;

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The items of a `kind: List` (or any `*List` kind with `items`), or `undefined`. */
export function listItems(value: unknown): unknown[] | undefined {
  if (!isObject(value) || !Array.isArray(value['items']) || typeof value['kind'] !== 'string' || !value['kind'].endsWith('List')) return undefined;
  return value['items'];
}

export function lineOf(counter: LineCounter, offset: number): number {
  return counter.linePos(offset).line;
}

export function tooLarge(bytes: number, limits: ParseLimits): string {
  return `the document is ${bytes} bytes, over the limit of ${limits.maxDocumentBytes} (raise it with --max-document-size)`;
}

export function readFailure(error: unknown): string {
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

export function expand(file: string, value: unknown, line: number, offsets: ReadonlyArray<number | undefined> | undefined, lineAt: (offset: number) => number): Manifest[] {
  const items = Array.isArray(value) ? value : listItems(value);
  if (!items) return [{ file, line, value }];
  return items.map((item, i) => {
    const offset = offsets?.[i];
    return { file, line: offset === undefined ? line : lineAt(offset), value: item };
  });
}

/** Where a piece of the text starts in its file: the 0-based line of its first character. */
export interface Base {
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
export function parseYamlSlow(file: string, text: string, limits: ParseLimits, base: Base, out: Parsed): void {
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

