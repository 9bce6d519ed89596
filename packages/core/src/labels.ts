/**
 * Kubernetes label selectors, with apimachinery's semantics exactly
 * (`pkg/labels/selector.go`, `pkg/apis/meta/v1/helpers.go`): structured
 * selectors (`matchLabels`, `matchExpressions`) and the kubectl string form.
 */
import { SelectorError } from './errors.js';
import { describeType, escapePointerSegment, isPlainObject, ownGet, preview } from './util/object.js';
import { closest, didYouMean } from './util/suggest.js';

export type LabelSelectorOperator = 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Lt';

export interface LabelSelectorRequirement {
  key: string;
  operator: LabelSelectorOperator;
  /** Required (non-empty) for In/NotIn, exactly one integer for Gt/Lt, absent for Exists/DoesNotExist. */
  values?: string[];
}

/** A structured label selector. `matchLabels` and `matchExpressions` are ANDed; an empty selector matches everything. */
export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

/** A string map such as labels, namespace labels or CI variables. */
export type Labels = Readonly<Record<string, unknown>> | null | undefined;

interface Requirement {
  key: string;
  op: LabelSelectorOperator;
  values: string[];
  /** Gt/Lt bound, parsed once. */
  bound?: bigint;
}

const OPERATORS: readonly LabelSelectorOperator[] = ['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt'];
const NAME_RE = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS1123_SUBDOMAIN_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const INT_RE = /^[+-]?[0-9]+$/;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Why a label key is invalid (apimachinery `IsQualifiedName`), or `undefined` when it is valid. */
export function labelKeyError(key: string): string | undefined {
  const parts = key.split('/');
  if (parts.length > 2) return `label key "${key}" may contain at most one "/" (an optional DNS prefix, then a name)`;
  const name = parts.length === 2 ? parts[1]! : parts[0]!;
  if (parts.length === 2) {
    const prefix = parts[0]!;
    if (prefix.length === 0) return `label key "${key}" has an empty prefix before "/"`;
    if (prefix.length > 253) return `the prefix of label key "${key}" must be at most 253 characters`;
    if (!DNS1123_SUBDOMAIN_RE.test(prefix)) return `the prefix of label key "${key}" must be a lowercase DNS subdomain (e.g. "example.com")`;
  }
  if (name.length === 0) return `label key "${key}" has an empty name`;
  if (name.length > 63) return `the name part of label key "${key}" must be at most 63 characters`;
  if (!NAME_RE.test(name)) return `the name part of label key "${key}" must start and end with a letter or digit and contain only letters, digits, "-", "_" and "."`;
  return undefined;
}

/** Why a label value is invalid (apimachinery `IsValidLabelValue`), or `undefined` when it is valid. */
export function labelValueError(value: string): string | undefined {
  if (value.length > 63) return `label value "${preview(value, 40)}" must be at most 63 characters`;
  if (value !== '' && !NAME_RE.test(value)) return `label value "${value}" must be empty or start and end with a letter or digit and contain only letters, digits, "-", "_" and "."`;
  return undefined;
}

function parseInt64(text: string): bigint | undefined {
  if (!INT_RE.test(text)) return undefined;
  const n = BigInt(text);
  return n < INT64_MIN || n > INT64_MAX ? undefined : n;
}

/** apimachinery `NewRequirement`: all checks, every error collected. */
function newRequirement(key: string, op: LabelSelectorOperator, values: string[], errors: string[]): Requirement | undefined {
  const before = errors.length;
  const keyError = labelKeyError(key);
  if (keyError) errors.push(keyError);
  let bound: bigint | undefined;
  switch (op) {
    case 'In':
    case 'NotIn':
      if (values.length === 0) errors.push(`operator ${op} on "${key}" needs at least one value`);
      break;
    case 'Exists':
    case 'DoesNotExist':
      if (values.length !== 0) errors.push(`operator ${op} on "${key}" takes no values`);
      break;
    case 'Gt':
    case 'Lt':
      if (values.length !== 1) errors.push(`operator ${op} on "${key}" needs exactly one value`);
      else {
        bound = parseInt64(values[0]!);
        if (bound === undefined) errors.push(`operator ${op} on "${key}" needs an integer value (got "${values[0]}")`);
      }
      break;
  }
  for (const value of values) {
    const valueError = labelValueError(value);
    if (valueError) errors.push(valueError);
  }
  if (errors.length !== before) return undefined;
  return bound === undefined ? { key, op, values } : { key, op, values, bound };
}

/** Problems found while validating a structured selector, with JSON pointers relative to it. */
export interface SelectorIssue {
  path: string;
  message: string;
}

/**
 * Validates a structured selector the way the Kubernetes API does and returns its requirements.
 * `null`/`undefined` mean "no selector" and give zero requirements (matches everything).
 */
function structuredRequirements(selector: unknown, issues: SelectorIssue[]): Requirement[] {
  if (selector === null || selector === undefined) return [];
  if (!isPlainObject(selector)) {
    issues.push({ path: '', message: `a label selector must be an object with matchLabels and/or matchExpressions (got ${describeType(selector)})` });
    return [];
  }
  const requirements: Requirement[] = [];
  for (const field of Object.keys(selector)) {
    if (field === 'matchLabels' || field === 'matchExpressions') continue;
    const hint = didYouMean(field, ['matchLabels', 'matchExpressions']);
    const asLabel = hint === '' && labelKeyError(field) === undefined && typeof selector[field] === 'string'
      ? `; to require the label write matchLabels: {${field}: ${String(selector[field])}}`
      : '';
    issues.push({ path: `/${escapePointerSegment(field)}`, message: `unknown field "${field}" in label selector${hint}${asLabel}` });
  }
  const matchLabels = selector['matchLabels'];
  if (matchLabels !== undefined && matchLabels !== null) {
    if (!isPlainObject(matchLabels)) issues.push({ path: '/matchLabels', message: `matchLabels must be a map of label keys to values (got ${describeType(matchLabels)})` });
    else {
      for (const [key, value] of Object.entries(matchLabels)) {
        if (typeof value !== 'string') {
          issues.push({ path: `/matchLabels/${escapePointerSegment(key)}`, message: `label value for "${key}" must be a string (got ${describeType(value)} ${preview(value)}; quote it in YAML)` });
          continue;
        }
        const errors: string[] = [];
        const req = newRequirement(key, 'In', [value], errors);
        for (const message of errors) issues.push({ path: `/matchLabels/${escapePointerSegment(key)}`, message });
        if (req) requirements.push(req);
      }
    }
  }
  const expressions = selector['matchExpressions'];
  if (expressions !== undefined && expressions !== null) {
    if (!Array.isArray(expressions)) issues.push({ path: '/matchExpressions', message: `matchExpressions must be a list (got ${describeType(expressions)})` });
    else expressions.forEach((expr, i) => {
      const req = expressionRequirement(expr, `/matchExpressions/${i}`, issues);
      if (req) requirements.push(req);
    });
  }
  return requirements;
}

function expressionRequirement(expr: unknown, path: string, issues: SelectorIssue[]): Requirement | undefined {
  if (!isPlainObject(expr)) {
    issues.push({ path, message: `a match expression must be an object {key, operator, values} (got ${describeType(expr)})` });
    return undefined;
  }
  let ok = true;
  const suggested = new Set<string>();
  for (const field of Object.keys(expr)) {
    if (field === 'key' || field === 'operator' || field === 'values') continue;
    const hit = closest(field, ['key', 'operator', 'values']);
    if (hit) suggested.add(hit);
    issues.push({ path: `${path}/${escapePointerSegment(field)}`, message: `unknown field "${field}" in match expression${hit ? `; did you mean "${hit}"?` : ''}` });
    ok = false;
  }
  const { key, operator, values } = expr as { key?: unknown; operator?: unknown; values?: unknown };
  if (key === undefined && suggested.has('key')) ok = false;
  else if (typeof key !== 'string') {
    issues.push({ path: `${path}/key`, message: key === undefined ? 'a match expression needs a "key"' : `key must be a string (got ${describeType(key)})` });
    ok = false;
  }
  if (operator === undefined && suggested.has('operator')) ok = false;
  else if (typeof operator !== 'string' || !OPERATORS.includes(operator as LabelSelectorOperator)) {
    const message = operator === undefined
      ? `a match expression needs an "operator" (one of ${OPERATORS.join(', ')})`
      : `"${String(operator)}" is not a valid label selector operator; expected one of ${OPERATORS.join(', ')}${typeof operator === 'string' ? didYouMean(operator, OPERATORS) : ''}`;
    issues.push({ path: `${path}/operator`, message });
    ok = false;
  }
  let list: string[] = [];
  if (values !== undefined && values !== null) {
    if (!Array.isArray(values)) {
      issues.push({ path: `${path}/values`, message: `values must be a list of strings (got ${describeType(values)})` });
      ok = false;
    } else {
      values.forEach((v, i) => {
        if (typeof v !== 'string') {
          issues.push({ path: `${path}/values/${i}`, message: `values must be strings (got ${describeType(v)} ${preview(v)}; quote it in YAML)` });
          ok = false;
        }
      });
      list = values.filter((v): v is string => typeof v === 'string');
    }
  }
  if (!ok) return undefined;
  const errors: string[] = [];
  const req = newRequirement(key as string, operator as LabelSelectorOperator, list, errors);
  for (const message of errors) issues.push({ path, message });
  return req;
}

// ---------------------------------------------------------------------------
// The kubectl string form (apimachinery lexer and parser, behaviour for behaviour)

type Tok = 'id' | 'in' | 'notin' | '(' | ')' | ',' | '!' | '!=' | '=' | '==' | '>' | '<' | 'end' | 'error';
interface Token {
  tok: Tok;
  text: string;
  pos: number;
}

const SPECIAL = new Set(['=', '!', '(', ')', ',', '>', '<']);
const SYMBOLS: Record<string, Tok> = { '(': '(', ')': ')', ',': ',', '!': '!', '!=': '!=', '=': '=', '==': '==', '>': '>', '<': '<' };
const isSpace = (ch: string): boolean => ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';

function lex(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  for (;;) {
    while (i < text.length && isSpace(text[i]!)) i++;
    if (i >= text.length) {
      tokens.push({ tok: 'end', text: '', pos: i });
      return tokens;
    }
    const start = i;
    if (SPECIAL.has(text[i]!)) {
      // Longest match among the operator tokens, as the Go lexer scans them.
      let buffer = '';
      let last: Tok | undefined;
      let lastLength = 0;
      while (i < text.length && SPECIAL.has(text[i]!)) {
        buffer += text[i];
        const t = SYMBOLS[buffer];
        if (t) {
          last = t;
          lastLength = buffer.length;
        } else if (last) break;
        i++;
      }
      i = start + lastLength;
      tokens.push({ tok: last!, text: text.slice(start, i), pos: start });
      continue;
    }
    while (i < text.length && !SPECIAL.has(text[i]!) && !isSpace(text[i]!)) i++;
    const word = text.slice(start, i);
    tokens.push({ tok: word === 'in' ? 'in' : word === 'notin' ? 'notin' : 'id', text: word, pos: start });
  }
}

class StringParser {
  private position = 0;
  constructor(private readonly tokens: Token[], private readonly source: string) {}

  /** In "values" context the keywords in/notin are plain identifiers. */
  private peek(values: boolean): Token {
    const t = this.tokens[this.position]!;
    return values && (t.tok === 'in' || t.tok === 'notin') ? { ...t, tok: 'id' } : t;
  }

  private next(values: boolean): Token {
    const t = this.peek(values);
    if (this.position < this.tokens.length - 1) this.position++;
    return t;
  }

  private fail(message: string, at: Token): never {
    throw new SelectorError(`invalid label selector "${this.source}": ${message} at position ${at.pos}`, { position: at.pos });
  }

  parse(): Requirement[] {
    const requirements: Requirement[] = [];
    for (;;) {
      const t = this.peek(true);
      if (t.tok === 'end') return requirements;
      if (t.tok !== 'id' && t.tok !== '!') this.fail(`found "${t.text}", expected "!", an identifier or the end`, t);
      requirements.push(this.requirement());
      const sep = this.next(true);
      if (sep.tok === 'end') return requirements;
      if (sep.tok !== ',') this.fail(`found "${sep.text}", expected "," or the end`, sep);
      const after = this.peek(true);
      if (after.tok !== 'id' && after.tok !== '!') this.fail(`found "${after.text || 'the end'}", expected an identifier after ","`, after);
    }
  }

  private requirement(): Requirement {
    let first = this.next(true);
    let negated = false;
    if (first.tok === '!') {
      negated = true;
      first = this.next(true);
    }
    if (first.tok !== 'id') this.fail(`found "${first.text || 'the end'}", expected an identifier`, first);
    const keyError = labelKeyError(first.text);
    if (keyError) this.fail(keyError, first);
    const look = this.peek(true);
    if (negated || look.tok === 'end' || look.tok === ',') return this.build(first, negated ? 'DoesNotExist' : 'Exists', []);
    const opToken = this.next(false);
    switch (opToken.tok) {
      case 'in':
      case 'notin':
        return this.build(first, opToken.tok === 'in' ? 'In' : 'NotIn', this.valueSet());
      case '=':
      case '==':
        return this.build(first, 'In', this.exactValue());
      case '!=':
        return this.build(first, 'NotIn', this.exactValue());
      case '>':
      case '<':
        return this.build(first, opToken.tok === '>' ? 'Gt' : 'Lt', this.exactValue());
      default:
        return this.fail(`found "${opToken.text || 'the end'}", expected one of =, ==, !=, in, notin, >, <`, opToken);
    }
  }

  private build(keyToken: Token, op: LabelSelectorOperator, values: string[]): Requirement {
    const errors: string[] = [];
    const req = newRequirement(keyToken.text, op, values, errors);
    if (!req) this.fail(errors.join('; '), keyToken);
    return req;
  }

  private exactValue(): string[] {
    const look = this.peek(true);
    if (look.tok === 'end' || look.tok === ',') return [''];
    const t = this.next(true);
    if (t.tok !== 'id') this.fail(`found "${t.text}", expected a value`, t);
    return [t.text];
  }

  private valueSet(): string[] {
    const open = this.next(true);
    if (open.tok !== '(') this.fail(`found "${open.text || 'the end'}", expected "("`, open);
    const look = this.peek(true);
    if (look.tok === ')') {
      this.next(true);
      return [''];
    }
    if (look.tok !== 'id' && look.tok !== ',') this.fail(`found "${look.text || 'the end'}", expected ",", ")" or a value`, look);
    const set = new Set<string>();
    for (;;) {
      const t = this.next(true);
      if (t.tok === 'id') {
        set.add(t.text);
        const after = this.peek(true);
        if (after.tok === ',') continue;
        if (after.tok === ')') break;
        this.fail(`found "${after.text || 'the end'}", expected "," or ")"`, after);
      } else if (t.tok === ',') {
        if (set.size === 0) set.add('');
        const after = this.peek(true);
        if (after.tok === ')') {
          set.add('');
          break;
        }
        if (after.tok === ',') {
          this.next(true);
          set.add('');
        }
      } else this.fail(`found "${t.text || 'the end'}", expected "," or a value`, t);
    }
    const close = this.next(true);
    if (close.tok !== ')') this.fail(`found "${close.text || 'the end'}", expected ")"`, close);
    return [...set].sort();
  }
}

function stringRequirements(text: string): Requirement[] {
  const requirements = new StringParser(lex(text), text).parse();
  // apimachinery sorts by key (sort.Sort, not stable); ties keep parse order here.
  return requirements.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

function toStructured(requirements: readonly Requirement[]): LabelSelector {
  if (requirements.length === 0) return {};
  return { matchExpressions: requirements.map((r) => (r.op === 'Exists' || r.op === 'DoesNotExist' ? { key: r.key, operator: r.op } : { key: r.key, operator: r.op, values: [...r.values] })) };
}

/**
 * Parses the kubectl selector syntax (`env in (prod,staging),!legacy,tier=web,x>1`)
 * into a structured selector, accepting and rejecting exactly what apimachinery does.
 * `=`/`==` become `In`, `!=` becomes `NotIn`. Throws {@link SelectorError} with the position.
 */
export function parseLabelSelector(text: string): LabelSelector {
  return toStructured(stringRequirements(text));
}

/** Renders a selector in the kubectl string form (set values sorted). */
export function formatLabelSelector(selector: LabelSelector | string): string {
  return requirementsOf(selector).map(formatRequirement).join(',');
}

function formatRequirement(r: Requirement): string {
  switch (r.op) {
    case 'Exists':
      return r.key;
    case 'DoesNotExist':
      return `!${r.key}`;
    case 'Gt':
      return `${r.key}>${r.values[0]}`;
    case 'Lt':
      return `${r.key}<${r.values[0]}`;
    case 'In':
      return r.values.length === 1 ? `${r.key}=${r.values[0]}` : `${r.key} in (${[...r.values].sort().join(',')})`;
    case 'NotIn':
      return r.values.length === 1 ? `${r.key}!=${r.values[0]}` : `${r.key} notin (${[...r.values].sort().join(',')})`;
  }
}

function requirementsOf(selector: unknown): Requirement[] {
  if (typeof selector === 'string') return stringRequirements(selector);
  const issues: SelectorIssue[] = [];
  const requirements = structuredRequirements(selector, issues);
  if (issues.length > 0) {
    const first = issues[0]!;
    throw new SelectorError(`invalid label selector${first.path ? ` at ${first.path}` : ''}: ${first.message}`, { path: first.path });
  }
  return requirements;
}

/** Validates a structured selector and lists every issue (JSON pointers relative to the selector). */
export function validateLabelSelector(selector: unknown): SelectorIssue[] {
  if (typeof selector === 'string') {
    try {
      stringRequirements(selector);
      return [];
    } catch (error) {
      return [{ path: '', message: (error as Error).message }];
    }
  }
  const issues: SelectorIssue[] = [];
  structuredRequirements(selector, issues);
  return issues;
}

// ---------------------------------------------------------------------------
// Matching

function labelValue(labels: Labels, key: string): string | undefined {
  const v = ownGet(labels, key);
  if (v === undefined || v === null) return undefined;
  return typeof v === 'string' ? v : typeof v === 'object' ? undefined : String(v);
}

function requirementMatcher(r: Requirement): (labels: Labels) => boolean {
  const { key, values } = r;
  switch (r.op) {
    case 'In': {
      if (values.length === 1) {
        const only = values[0];
        return (labels) => labelValue(labels, key) === only;
      }
      const set = new Set(values);
      return (labels) => {
        const v = labelValue(labels, key);
        return v !== undefined && set.has(v);
      };
    }
    case 'NotIn': {
      const set = new Set(values);
      return (labels) => {
        const v = labelValue(labels, key);
        return v === undefined || !set.has(v);
      };
    }
    case 'Exists':
      return (labels) => labelValue(labels, key) !== undefined;
    case 'DoesNotExist':
      return (labels) => labelValue(labels, key) === undefined;
    case 'Gt':
    case 'Lt': {
      const bound = r.bound!;
      const gt = r.op === 'Gt';
      return (labels) => {
        const v = labelValue(labels, key);
        const n = v === undefined ? undefined : parseInt64(v);
        return n !== undefined && (gt ? n > bound : n < bound);
      };
    }
  }
}

/** A compiled selector: a fast predicate plus what the policy index and the trace need. */
export interface CompiledLabelSelector {
  readonly matches: (labels: Labels) => boolean;
  /** The kubectl string form, for traces and messages. */
  readonly text: string;
  /** Required `key ∈ values` conditions (from matchLabels and In), used to index policies. */
  readonly required: ReadonlyArray<{ key: string; values: readonly string[] }>;
  /** Every requirement, normalised (`=` as In, `!=` as NotIn), for static analysis. */
  readonly requirements: readonly LabelSelectorRequirement[];
}

/** Compiles a selector (structured or string form) once; throws {@link SelectorError} when invalid. */
export function compileLabelSelector(selector: LabelSelector | string | null | undefined): CompiledLabelSelector {
  const requirements = requirementsOf(selector);
  const matchers = requirements.map(requirementMatcher);
  let matches: (labels: Labels) => boolean;
  if (matchers.length === 0) matches = () => true;
  else if (matchers.length === 1) matches = matchers[0]!;
  else if (matchers.length === 2) {
    const [a, b] = matchers as [(l: Labels) => boolean, (l: Labels) => boolean];
    matches = (labels) => a(labels) && b(labels);
  } else {
    matches = (labels) => {
      for (let i = 0; i < matchers.length; i++) if (!matchers[i]!(labels)) return false;
      return true;
    };
  }
  return {
    matches,
    text: requirements.map(formatRequirement).join(',') || '(everything)',
    required: requirements.filter((r) => r.op === 'In').map((r) => ({ key: r.key, values: r.values })),
    requirements: requirements.map((r) => (r.op === 'Exists' || r.op === 'DoesNotExist' ? { key: r.key, operator: r.op } : { key: r.key, operator: r.op, values: r.values })),
  };
}

const stringCache = new Map<string, CompiledLabelSelector>();
const objectCache = new WeakMap<object, CompiledLabelSelector>();

/**
 * Does `labels` satisfy `selector`? Accepts a structured selector or the kubectl string form.
 * A missing (`null`/`undefined`) or empty selector matches everything. Throws
 * {@link SelectorError} for an invalid selector. Compiled selectors are cached.
 */
export function matchLabelSelector(selector: LabelSelector | string | null | undefined, labels: Labels): boolean {
  if (selector === null || selector === undefined) return true;
  let compiled: CompiledLabelSelector | undefined;
  if (typeof selector === 'string') {
    compiled = stringCache.get(selector);
    if (!compiled) {
      compiled = compileLabelSelector(selector);
      if (stringCache.size > 1000) stringCache.clear();
      stringCache.set(selector, compiled);
    }
  } else {
    compiled = objectCache.get(selector);
    if (!compiled) {
      compiled = compileLabelSelector(selector);
      objectCache.set(selector, compiled);
    }
  }
  return compiled.matches(labels);
}
