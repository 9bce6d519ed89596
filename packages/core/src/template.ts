/**
 * Message and patch-value templates: `{{ parameters.limit }}`,
 * `{{ object.metadata.labels["app.kubernetes.io/name"] | default "unnamed" }}`,
 * `{{ parameters.registries | join ", " }}`. Parsed once at load time.
 */

/** Reads a path (list of segments) from the evaluation scope. */
export type PathResolver = (segments: readonly string[]) => unknown;

type Filter = (value: unknown) => unknown;

interface Expr {
  path: string[];
  filters: Filter[];
}

/** A message or patch-value template (`{{ path }}` placeholders) compiled by {@link compileTemplate}. */
export interface CompiledTemplate {
  /** Renders the template to a string. */
  render(resolve: PathResolver): string;
  /** For a template that is exactly one `{{ … }}`: the raw value (type kept), else the rendered string. */
  value(resolve: PathResolver): unknown;
  /** True when the text has no `{{ }}`. */
  readonly constant: boolean;
  /** Every path the template reads (for static analysis). */
  readonly paths: readonly (readonly string[])[];
}

/** Shown for a value that is missing, unless the template gives `| default …`. */
export const MISSING = '<missing>';

/** Renders any value the way messages show it: lists joined with ", ", objects as JSON. */
export function renderValue(value: unknown): string {
  if (value === undefined) return MISSING;
  if (value === null) return 'null';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return value.map(renderValue).join(', ');
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
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
    return (v) => (Array.isArray(v) ? v.map(renderValue).join(sep) : v);
  },
  json(arg, where) {
    if (arg !== undefined) throw new TemplateSyntaxError(`${where}: "json" takes no argument`);
    return (v) => (v === undefined ? 'undefined' : JSON.stringify(v));
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

function evalExpr(expr: Expr, resolve: PathResolver): unknown {
  let v = resolve(expr.path);
  for (let i = 0; i < expr.filters.length; i++) v = expr.filters[i]!(v);
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
  const render = (resolve: PathResolver): string => {
    let out = '';
    for (let k = 0; k < pieces.length; k++) {
      const p = pieces[k]!;
      out += typeof p === 'string' ? p : renderValue(evalExpr(p, resolve));
    }
    return out;
  };
  const single = pieces.length === 1 ? exprs[0] : undefined;
  return {
    constant: false,
    paths: exprs.map((e) => e.path),
    render,
    value: single ? (resolve) => evalExpr(single, resolve) : render,
  };
}
