/**
 * Message and patch-value templates: `{{ parameters.limit }}`,
 * `{{ object.metadata.labels["app.kubernetes.io/name"] | default "unnamed" }}`,
 * `{{ parameters.registries | join ", " }}`. Parsed once at load time.
 */

/** Reads a path (list of segments) from the evaluation scope. */
export type PathResolver = (segments: readonly string[]) => unknown;

type Filter = (value: unknown, meter: TextMeter | undefined) => unknown;

interface Expr {
  path: string[];
  filters: Filter[];
}

/** A message or patch-value template (`{{ path }}` placeholders) compiled by {@link compileTemplate}. */
export interface CompiledTemplate {
  /** Renders the template to a string; with `meter`, the objects and lists rendered as text are charged to it. */
  render(resolve: PathResolver, meter?: TextMeter): string;
  /** For a template that is exactly one `{{ … }}`: the raw value (type kept), else the rendered string. */
  value(resolve: PathResolver, meter?: TextMeter): unknown;
  /** True when the text has no `{{ }}`. */
  readonly constant: boolean;
  /** Every path the template reads (for static analysis). */
  readonly paths: readonly (readonly string[])[];
}

/** Shown for a value that is missing, unless the template gives `| default …`. */
export const MISSING = '<missing>';

/** Where rendering an object or list as text charges the characters it builds (an evaluation's cost meter). */
export interface TextMeter {
  /** Charges building `length` characters; may throw to stop the evaluation (its budget is spent). */
  spendText(length: number): void;
}

/** The most characters one rendered object or list keeps (JSON, or a list joined); past it, {@link TRUNCATED} ends the text. */
const MAX_RENDERED_LENGTH = 1024;
const TRUNCATED = '…(truncated)';

type Frame = { list: readonly unknown[]; i: number } | { object: Record<string, unknown>; keys: string[]; i: number; wrote: boolean };

/** A scalar as JSON; `undefined` for what JSON leaves out (undefined, functions, symbols). */
function scalarJson(v: unknown, room: number): string | undefined {
  if (typeof v === 'string') return JSON.stringify(v.length > room ? v.slice(0, room) : v);
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : 'null';
  if (typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  if (v === null) return 'null';
  return undefined;
}

/**
 * Compact JSON of `value` (keys in the object's own order, as `JSON.stringify`), cut after `max` characters with
 * {@link TRUNCATED}. Written with an explicit stack of frames rather than `JSON.stringify`, which recurses on the
 * JavaScript stack (a deep input overflowed it) and builds the whole text before anything can be charged: here
 * every value written adds at least one character (members JSON leaves out are passed over once), so the work
 * is bounded by `max` and the size of the input, and the text built is charged to `meter`.
 */
function boundedJson(value: unknown, meter: TextMeter | undefined, max: number): string {
  let out = '';
  const stack: Frame[] = [];
  const write = (v: unknown, inList: boolean): void => {
    if (Array.isArray(v)) {
      out += '[';
      stack.push({ list: v, i: 0 });
    } else if (v !== null && typeof v === 'object') {
      out += '{';
      stack.push({ object: v as Record<string, unknown>, keys: Object.keys(v), i: 0, wrote: false });
    } else out += scalarJson(v, max - out.length + 1) ?? (inList ? 'null' : '');
  };
  write(value, true);
  while (stack.length > 0 && out.length <= max) {
    const frame = stack[stack.length - 1]!;
    if ('list' in frame) {
      if (frame.i >= frame.list.length) {
        out += ']';
        stack.pop();
        continue;
      }
      if (frame.i > 0) out += ',';
      write(frame.list[frame.i++], true);
      continue;
    }
    const key = frame.keys[frame.i++];
    if (key === undefined) {
      out += '}';
      stack.pop();
      continue;
    }
    const member = frame.object[key];
    if (member === undefined || typeof member === 'function' || typeof member === 'symbol') continue;
    out += `${frame.wrote ? ',' : ''}${JSON.stringify(key.length > max ? key.slice(0, max) : key)}:`;
    frame.wrote = true;
    write(member, false);
  }
  meter?.spendText(out.length);
  return out.length > max ? `${out.slice(0, max)}${TRUNCATED}` : out;
}

/** An element of a list in text: strings as they are, scalars as text, objects and lists as JSON. */
function renderElement(value: unknown, room: number): string {
  // A separator may have taken the list past its length already: no room, but one character says so.
  const max = Math.max(0, room);
  if (value === undefined) return MISSING;
  if (typeof value === 'string') return value.length > max ? value.slice(0, max + 1) : value;
  return boundedJson(value, undefined, max);
}

/** A list joined with `separator`, cut after {@link MAX_RENDERED_LENGTH} characters with {@link TRUNCATED}. */
function joinList(list: readonly unknown[], separator: string, meter: TextMeter | undefined): string {
  let out = '';
  for (let i = 0; i < list.length && out.length <= MAX_RENDERED_LENGTH; i++) {
    if (i > 0) out += separator;
    // The element's own rendering is bounded by the room left; the whole is charged once, below.
    out += renderElement(list[i], MAX_RENDERED_LENGTH - out.length);
  }
  meter?.spendText(out.length);
  return out.length > MAX_RENDERED_LENGTH ? `${out.slice(0, MAX_RENDERED_LENGTH)}${TRUNCATED}` : out;
}

/**
 * Renders any value the way messages show it: strings as they are, lists joined with ", " (objects and lists in
 * them as JSON), objects as compact JSON; an object or list past 1024 characters is cut and ends with
 * "…(truncated)". With `meter`, the characters built are charged to it.
 */
export function renderValue(value: unknown, meter?: TextMeter): string {
  if (value === undefined) return MISSING;
  if (value === null) return 'null';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (Array.isArray(value)) return joinList(value, ', ', meter);
  return boundedJson(value, meter, MAX_RENDERED_LENGTH);
}

export class TemplateSyntaxError extends Error {}

function parseLiteral(text: string, where: string): unknown {
  const t = text.trim();
  if (t.startsWith("'") && t.endsWith("'") && t.length >= 2) return t.slice(1, -1);
  try {
    return JSON.parse(t);
  } catch {
    throw new TemplateSyntaxError(`${where}: expected a quoted string, number, true, false or null (got ${t || 'nothing'})`);
  }
}

const FILTERS: Record<string, (arg: string | undefined, where: string) => Filter> = {
  default(arg, where) {
    if (arg === undefined) throw new TemplateSyntaxError(`${where}: "default" needs a value, e.g. default "none"`);
    const fallback = parseLiteral(arg, where);
    return (v) => (v === undefined || v === null || v === '' ? fallback : v);
  },
  join(arg, where) {
    const sep = arg === undefined ? ', ' : parseLiteral(arg, where);
    if (typeof sep !== 'string') throw new TemplateSyntaxError(`${where}: "join" takes a string separator`);
    return (v, meter) => (Array.isArray(v) ? joinList(v, sep, meter) : v);
  },
  json(arg, where) {
    if (arg !== undefined) throw new TemplateSyntaxError(`${where}: "json" takes no argument`);
    return (v, meter) => (v === undefined ? 'undefined' : boundedJson(v, meter, MAX_RENDERED_LENGTH));
  },
  upper: () => (v) => (typeof v === 'string' ? v.toUpperCase() : v),
  lower: () => (v) => (typeof v === 'string' ? v.toLowerCase() : v),
};

/** Parses `a.b["c.d"][0]` into segments. */
export function parseTemplatePath(text: string): string[] {
  const segments: string[] = [];
  let i = 0;
  const s = text.trim();
  if (s === '') throw new TemplateSyntaxError('empty expression in {{ }}');
  while (i < s.length) {
    if (s[i] === '[') {
      const close = s.indexOf(']', i);
      if (close < 0) throw new TemplateSyntaxError(`unclosed "[" in "${s}"`);
      const inner = s.slice(i + 1, close).trim();
      if (/^[0-9]+$/.test(inner)) segments.push(inner);
      else {
        const lit = parseLiteral(inner, `in "${s}"`);
        if (typeof lit !== 'string') throw new TemplateSyntaxError(`brackets in "${s}" must hold a quoted key or an index`);
        segments.push(lit);
      }
      i = close + 1;
      if (s[i] === '.') i++;
      continue;
    }
    let j = i;
    while (j < s.length && s[j] !== '.' && s[j] !== '[') j++;
    const name = s.slice(i, j);
    if (!/^[A-Za-z0-9_$-]+$/.test(name)) throw new TemplateSyntaxError(`"${name}" in "${s}" is not a valid path segment; use ["…"] for keys with other characters`);
    segments.push(name);
    i = s[j] === '.' ? j + 1 : j;
    if (s[j] === '.' && j + 1 >= s.length) throw new TemplateSyntaxError(`"${s}" ends with "."`);
  }
  return segments;
}

function splitFilters(body: string): string[] {
  const parts: string[] = [];
  let quote: string | undefined;
  let start = 0;
  for (let i = 0; i < body.length; i++) {
    const ch = body[i];
    if (quote) {
      if (ch === '\\') i++;
      else if (ch === quote) quote = undefined;
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '|') {
      parts.push(body.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(body.slice(start));
  return parts;
}

function parseExpr(body: string): Expr {
  const [head, ...rest] = splitFilters(body);
  const path = parseTemplatePath(head!);
  const filters = rest.map((part) => {
    const t = part.trim();
    const space = t.search(/\s/);
    const name = space < 0 ? t : t.slice(0, space);
    const arg = space < 0 ? undefined : t.slice(space + 1);
    const make = FILTERS[name];
    if (!make) throw new TemplateSyntaxError(`unknown filter "${name}" in "{{${body}}}"; available: ${Object.keys(FILTERS).join(', ')}`);
    return make(arg, `filter "${name}" in "{{${body}}}"`);
  });
  return { path, filters };
}

function evalExpr(expr: Expr, resolve: PathResolver, meter: TextMeter | undefined): unknown {
  let v = resolve(expr.path);
  for (let i = 0; i < expr.filters.length; i++) v = expr.filters[i]!(v, meter);
  return v;
}

/** Compiles a template string; throws {@link TemplateSyntaxError} with a readable reason. */
export function compileTemplate(text: string): CompiledTemplate {
  const pieces: Array<string | Expr> = [];
  let i = 0;
  while (i < text.length) {
    const open = text.indexOf('{{', i);
    if (open < 0) {
      pieces.push(text.slice(i));
      break;
    }
    if (open > i) pieces.push(text.slice(i, open));
    const close = text.indexOf('}}', open + 2);
    if (close < 0) throw new TemplateSyntaxError(`unclosed "{{" at character ${open + 1}`);
    pieces.push(parseExpr(text.slice(open + 2, close)));
    i = close + 2;
  }
  const exprs = pieces.filter((p): p is Expr => typeof p !== 'string');
  if (exprs.length === 0) {
    return { constant: true, paths: [], render: () => text, value: () => text };
  }
  const render = (resolve: PathResolver, meter?: TextMeter): string => {
    let out = '';
    for (let k = 0; k < pieces.length; k++) {
      const p = pieces[k]!;
      out += typeof p === 'string' ? p : renderValue(evalExpr(p, resolve, meter), meter);
    }
    return out;
  };
  const single = pieces.length === 1 ? exprs[0] : undefined;
  return {
    constant: false,
    paths: exprs.map((e) => e.path),
    render,
    value: single ? (resolve, meter) => evalExpr(single, resolve, meter) : render,
  };
}
