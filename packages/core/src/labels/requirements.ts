/**
 * Label selector requirements with apimachinery's validation
 * (`NewRequirement`, `ValidateLabelSelectorRequirement`, `IsQualifiedName`,
 * `IsValidLabelValue`): the types, the key and value syntax, and structured
 * selectors checked the way the Kubernetes API checks them.
 */
import { describeType, escapePointerSegment, isPlainObject, preview } from '../util/object.js';
import { closest, didYouMean } from '../util/suggest.js';

/** The operator of a label selector requirement, as in Kubernetes (`Gt`/`Lt` compare integers). */
export type LabelSelectorOperator = 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Lt';

/** One `matchExpressions` entry of a Kubernetes label selector. */
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

/** One requirement, as the matcher uses it. */
export interface Requirement {
  key: string;
  op: LabelSelectorOperator;
  values: string[];
  /** Gt/Lt bound, parsed once. */
  bound?: bigint;
}

export const OPERATORS: readonly LabelSelectorOperator[] = ['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt'];
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

export function parseInt64(text: string): bigint | undefined {
  if (!INT_RE.test(text)) return undefined;
  // An int64 has at most 19 significant digits: longer numbers (a hostile label value) never reach BigInt, whose parsing is not linear.
  const negative = text.startsWith('-');
  const digits = text.replace(/^[+-]?0*/, '');
  if (digits.length > 19) return undefined;
  const n = BigInt(negative ? `-${digits || '0'}` : digits || '0');
  return n < INT64_MIN || n > INT64_MAX ? undefined : n;
}

/** apimachinery `NewRequirement`: all checks, every error collected. */
export function newRequirement(key: string, op: LabelSelectorOperator, values: string[], errors: string[]): Requirement | undefined {
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
export function structuredRequirements(selector: unknown, issues: SelectorIssue[]): Requirement[] {
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
