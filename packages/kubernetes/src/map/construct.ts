/**
 * CEL object construction in MutatingAdmissionPolicy expressions:
 * `JSONPatch{op: "add", path: "/x", value: 1}` and `Object{spec: Object.spec{replicas: 3}}`.
 * The CEL library verdict uses has no message types, so each construction is
 * rewritten to the map literal it stands for (`dyn({"op": "add", ...})`) before the
 * expression is compiled. The API server's checks of the type names are made
 * here, at load: a nested `Object.<path>{}` must name the field path it is
 * written at, a `JSONPatch` has only op, path, from and value, and an
 * ApplyConfiguration expression that is a construction must construct `Object`.
 * Hand-written: this is a token-level rewrite of CEL source, which no CEL
 * library on npm offers; the scanner below knows CEL's literals and comments.
 */

/** What a rewrite gives: the expression to compile, or why the source cannot be used. */
export type Rewritten = { expression: string; error?: undefined } | { error: string; expression?: undefined };

interface Token {
  kind: 'ident' | 'string' | 'punct' | 'other';
  text: string;
  start: number;
  end: number;
}

const IDENT = /[_a-zA-Z][_a-zA-Z0-9]*/y;
const NUMBER = /(?:0x[0-9a-fA-F]+|\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)[uU]?/y;
const JSON_PATCH_FIELDS = new Set(['op', 'path', 'from', 'value']);

/** The end of the string literal starting at `i` (after its prefix), or -1 when it is not closed. */
function stringEnd(source: string, i: number, raw: boolean): number {
  const triple = source.startsWith(source[i]!.repeat(3), i);
  const quote = triple ? source[i]!.repeat(3) : source[i]!;
  for (let j = i + quote.length; j < source.length; j++) {
    if (!raw && source[j] === '\\') {
      j++;
      continue;
    }
    if (!triple && (source[j] === '\n' || source[j] === '\r')) return -1;
    if (source.startsWith(quote, j)) return j + quote.length;
  }
  return -1;
}

function tokenize(source: string): Token[] | undefined {
  const out: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const c = source[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (source.startsWith('//', i)) {
      const end = source.indexOf('\n', i);
      i = end < 0 ? source.length : end;
      continue;
    }
    const prefix = /^[rRbB]{1,2}(?=["'])/.exec(source.slice(i, i + 3))?.[0] ?? '';
    if (c === '"' || c === "'" || (prefix !== '' && /^([rR][bB]?|[bB][rR]?)$/.test(prefix))) {
      const end = stringEnd(source, i + prefix.length, /[rR]/.test(prefix));
      if (end < 0) return undefined;
      out.push({ kind: 'string', text: source.slice(i, end), start: i, end });
      i = end;
      continue;
    }
    if (c === '`') {
      const end = source.indexOf('`', i + 1);
      if (end < 0) return undefined;
      out.push({ kind: 'ident', text: source.slice(i + 1, end), start: i, end: end + 1 });
      i = end + 1;
      continue;
    }
    IDENT.lastIndex = i;
    const ident = IDENT.exec(source);
    if (ident) {
      out.push({ kind: 'ident', text: ident[0], start: i, end: i + ident[0].length });
      i += ident[0].length;
      continue;
    }
    NUMBER.lastIndex = i;
    const number = NUMBER.exec(source);
    if (number) {
      out.push({ kind: 'other', text: number[0], start: i, end: i + number[0].length });
      i += number[0].length;
      continue;
    }
    out.push({ kind: 'punct', text: c, start: i, end: i + 1 });
    i++;
  }
  return out;
}

/** An open bracket: a construction (with its type name), a map literal, a list or parentheses. */
interface Frame {
  open: '{' | '[' | '(';
  /** For a construction: its type name. */
  type?: string;
  /** The field whose value is being written (inside a construction), when it is a construction's direct value. */
  field?: string;
  /** The type a construction written directly here must have, if any. */
  expect?: string;
}

/**
 * Rewrites the constructions of `source`. `root`: `Object` for an ApplyConfiguration expression (a construction
 * written as the whole expression must be `Object`), undefined elsewhere.
 */
export function rewriteConstructions(source: string, root?: 'Object'): Rewritten {
  const tokens = tokenize(source);
  if (!tokens) return { expression: source }; // an unclosed literal: CEL reports it on the source as written
  let out = '';
  let copied = 0;
  const stack: Frame[] = [];
  const replace = (start: number, end: number, text: string) => {
    out += source.slice(copied, start) + text;
    copied = end;
  };
  for (let t = 0; t < tokens.length; t++) {
    const token = tokens[t]!;
    const top = stack[stack.length - 1];
    if (token.kind === 'ident' && (t === 0 || tokens[t - 1]!.text !== '.')) {
      // A qualified name followed by `{`: a construction.
      let end = t;
      while (tokens[end + 1]?.text === '.' && tokens[end + 2]?.kind === 'ident') end += 2;
      if (tokens[end + 1]?.text === '{' && !(top?.type !== undefined && isFieldStart(tokens, t))) {
        const type = tokens.slice(t, end + 1).map((x) => x.text).join('');
        // The API server's type resolver (cel/mutation/typeresolver.go) knows JSONPatch, Object and Object.<path> only.
        if (type !== 'JSONPatch' && type !== 'Object' && !type.startsWith('Object.')) return { error: `undeclared reference to '${type}'` };
        // A construction that is selected or indexed (`Object{}.?replicas`) is an operand, not the field's value: its name is not the field's path.
        const selected = ['.', '['].includes(tokens[closing(tokens, end + 1) + 1]?.text ?? '');
        const expected = selected ? undefined : top?.open === '[' ? top.expect : top?.type !== undefined && top.type !== 'JSONPatch' && top.field !== undefined ? `${top.type}.${top.field}` : undefined;
        if (t === 0 && stack.length === 0 && root && type !== root) return { error: `must evaluate to Object but got ${type}` };
        if (expected !== undefined && type !== expected && type !== 'JSONPatch') {
          return { error: `type mismatch: unexpected type name "${type}", expected "${expected}", which matches field name path from root Object type` };
        }
        // dyn(): a construction is an object type in the API server's CEL, which `null` may stand for (`c ? JSONPatch{...} : null`).
        replace(token.start, tokens[end + 1]!.end, 'dyn({');
        stack.push({ open: '{', type });
        t = end + 1;
        continue;
      }
    }
    if (top?.type !== undefined && isFieldStart(tokens, t)) {
      // `?name: v` (optional types): the field is set only when the optional `v` has a value, as an optional map entry does.
      if (token.text === '?') {
        const name = tokens[t + 1];
        if (name?.kind !== 'ident') return { error: `a field of ${top.type}{...} must be a name (got ?${name?.text ?? ''})` };
        if (top.type === 'JSONPatch' && !JSON_PATCH_FIELDS.has(name.text)) return { error: `JSONPatch has no field "${name.text}" (fields: op, path, from, value)` };
        replace(name.start, name.end, JSON.stringify(name.text));
        top.field = name.text;
        t++;
        continue;
      }
      if (token.kind !== 'ident') return { error: `a field of ${top.type}{...} must be a name (got ${token.text})` };
      if (top.type === 'JSONPatch' && !JSON_PATCH_FIELDS.has(token.text)) return { error: `JSONPatch has no field "${token.text}" (fields: op, path, from, value)` };
      if (top.type === 'JSONPatch' && token.text !== 'value') {
        // op, path and from are strings (the API server's JSONPatch type): a literal of another type is a compile error.
        const given = literalType(tokens, t + 2);
        if (given !== undefined && given !== 'string') return { error: `expected type of field '${token.text}' is 'string' but provided type is '${given}'` };
      }
      replace(token.start, token.end, JSON.stringify(token.text));
      top.field = token.text;
      continue;
    }
    if (token.text === '{' || token.text === '[' || token.text === '(') {
      const frame: Frame = { open: token.text };
      // A list written directly as a field's value: its constructions are elements of that field.
      if (token.text === '[' && top?.type !== undefined && top.type !== 'JSONPatch' && top.field !== undefined && tokens[t - 1]?.text === ':') frame.expect = `${top.type}.${top.field}`;
      stack.push(frame);
    } else if (token.text === '}' || token.text === ']' || token.text === ')') {
      if (token.text === '}' && top?.type !== undefined) replace(token.start, token.end, '})');
      stack.pop();
    }
    else if (token.text === ',' && top?.type !== undefined) top.field = undefined;
  }
  return { expression: out + source.slice(copied) };
}

/** The CEL type of the literal that is the whole value starting at token `t` (up to `,` or `}`), if it is one. */
function literalType(tokens: readonly Token[], t: number): string | undefined {
  const value = tokens[t];
  const after = tokens[t + 1]?.text;
  if (!value || (after !== ',' && after !== '}')) return undefined;
  if (value.kind === 'string') return 'string';
  if (value.text === 'true' || value.text === 'false') return 'bool';
  if (value.text === 'null') return 'null_type';
  if (value.kind !== 'other') return undefined;
  if (/[uU]$/.test(value.text)) return 'uint';
  return /^\d+$|^0x/.test(value.text) ? 'int' : 'double';
}

/** Whether token `t` starts a field initializer (`name:` right after `{` or `,` of a construction). */
function isFieldStart(tokens: readonly Token[], t: number): boolean {
  const before = tokens[t - 1]?.text;
  if (before !== '{' && before !== ',') return false;
  const token = tokens[t]!;
  if (token.text === '?') return tokens[t + 2]?.text === ':';
  return token.kind === 'ident' && tokens[t + 1]?.text === ':';
}

/** The index of the token closing the bracket opened at token `open`, or -1. */
function closing(tokens: readonly Token[], open: number): number {
  let depth = 0;
  for (let t = open; t < tokens.length; t++) {
    const text = tokens[t]!.text;
    if (text === '(' || text === '[' || text === '{') depth++;
    else if ((text === ')' || text === ']' || text === '}') && --depth === 0) return t;
  }
  return -1;
}

/**
 * `has(e.f)` where `e` is not a name chain (`has(object.spec.containers[i].env)`), written as the optional
 * selection `(e.?f).hasValue()`, which tests the same presence: cel-go's has() takes any operand before the
 * last field, the CEL library verdict uses only a chain of names. Other `has()` calls are kept as written.
 */
export function rewriteHas(source: string): string {
  const tokens = tokenize(source);
  if (!tokens) return source;
  let out = '';
  let copied = 0;
  for (let t = 0; t < tokens.length; t++) {
    const token = tokens[t]!;
    if (token.kind !== 'ident' || token.text !== 'has' || tokens[t - 1]?.text === '.' || tokens[t + 1]?.text !== '(') continue;
    const end = closing(tokens, t + 1);
    const last = tokens[end - 1];
    const dot = tokens[end - 2];
    if (end < 0 || last?.kind !== 'ident' || dot?.text !== '.' || end - 2 <= t + 2) continue;
    const operand = tokens.slice(t + 2, end - 2);
    if (operand.every((x) => x.kind === 'ident' || x.text === '.')) continue; // a name chain: has() as written
    const inner = rewriteHas(source.slice(operand[0]!.start, dot.start));
    out += `${source.slice(copied, token.start)}(${inner}.?${last.text}).hasValue()`;
    copied = tokens[end]!.end;
    t = end;
  }
  return out + source.slice(copied);
}
