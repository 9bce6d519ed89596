/**
 * Compiles match blocks: core's own vocabulary (`labels`, `fields`, `when`,
 * `all`, `any`, `not`) plus the keys registered dialects own, into one
 * {@link SelectorNode} per block.
 */
import { adapterHint } from './adapter-keys.js';
import { anyGlobMatcher, isGlob } from '../patterns/glob.js';
import { compileLabelSelector, formatLabelSelector, validateLabelSelector, type LabelSelector, type LabelSelectorRequirement } from '../labels.js';
import { LogicError, type LogicCompiler } from '../logic/compile.js';
import { inputRead } from '../logic/reads.js';
import { truthy } from '../logic/scope.js';
import { deepEqual, describeType, escapePointerSegment, getPath, isPlainObject, parsePathNotation, preview } from '../util/object.js';
import { didYouMean } from '../util/suggest.js';
import { allOf, anyOf, leaf, MATCH_ALL, MATCH_NONE, notOf, type Fact, type SelectorNode } from './node.js';
import type { DialectContext, IndexHint, MatchDialect, Path, SelectionKey, Selector } from './types.js';

export const CORE_KEYS = ['labels', 'fields', 'when', 'all', 'any', 'not'] as const;

export interface SelectorEnv {
  readonly dialects: readonly MatchDialect[];
  /** Match-block key → its owner. */
  readonly owners: ReadonlyMap<string, MatchDialect | 'core'>;
  readonly logic: LogicCompiler;
  /** Reports a problem at an absolute JSON pointer. */
  problem(at: string, code: 'INVALID_MATCH' | 'INVALID_SELECTOR' | 'INVALID_RULE', message: string): void;
}

/** Builds the key → owner map, rejecting two dialects that claim one key. */
export function keyOwners(dialects: readonly MatchDialect[]): Map<string, MatchDialect | 'core'> {
  const owners = new Map<string, MatchDialect | 'core'>(CORE_KEYS.map((k) => [k, 'core']));
  for (const dialect of dialects) {
    for (const key of dialect.keys) {
      const owner = owners.get(key);
      if (owner) {
        throw new Error(`match dialect "${dialect.name}" claims key "${key}", already owned by ${owner === 'core' ? 'core' : `dialect "${owner.name}"`}`);
      }
      owners.set(key, dialect);
    }
  }
  return owners;
}

/** Compiles one match block at `at` (absolute pointer). Absent or empty blocks match everything. */
export function compileMatch(block: unknown, at: string, env: SelectorEnv): SelectorNode {
  if (block === undefined || block === null) return MATCH_ALL;
  if (!isPlainObject(block)) {
    env.problem(at, 'INVALID_MATCH', `a match block must be an object (got ${describeType(block)})`);
    return MATCH_NONE;
  }
  const parts: SelectorNode[] = [];
  const byDialect = new Map<MatchDialect, Record<string, unknown>>();
  for (const key of Object.keys(block)) {
    const owner = env.owners.get(key);
    if (!owner) {
      const known = [...env.owners.keys()];
      const adapter = adapterHint(key);
      const hint = adapter ? '' : didYouMean(key, known);
      env.problem(`${at}/${escapePointerSegment(key)}`, 'INVALID_MATCH', `unknown match field "${key}"${adapter}${hint}${adapter || hint ? '' : ` (known: ${known.join(', ')})`}`);
      continue;
    }
    if (owner === 'core') parts.push(compileCoreKey(key, block[key], `${at}/${escapePointerSegment(key)}`, env));
    else {
      const own = byDialect.get(owner) ?? {};
      own[key] = block[key];
      byDialect.set(owner, own);
    }
  }
  for (const [dialect, own] of byDialect) {
    let before = 0;
    const ctx: DialectContext = {
      where: at,
      problem: (path, message) => {
        before++;
        env.problem(`${at}${path}`, 'INVALID_MATCH', message);
      },
      labelSelector: (value, path) => checkLabelSelector(value, `${at}${path}`, env),
    };
    let selector: Selector;
    try {
      selector = dialect.compile(own, ctx);
    } catch (error) {
      env.problem(at, 'INVALID_MATCH', `${dialect.name}: ${(error as Error).message}`);
      continue;
    }
    if (before === 0) parts.push(compileSelector(selector, at, env));
  }
  return allOf(at, parts);
}

function checkLabelSelector(value: unknown, at: string, env: SelectorEnv): LabelSelector | string | undefined {
  const issues = validateLabelSelector(value);
  for (const issue of issues) env.problem(`${at}${issue.path}`, 'INVALID_SELECTOR', issue.message);
  return issues.length === 0 ? (value as LabelSelector | string) : undefined;
}

/** A selector's path as segments; noted as a read of the input, for the check against the adapter's input shape. */
function toPath(path: Path, at: string, env: SelectorEnv): string[] | undefined {
  try {
    const segments = parsePathNotation(path);
    const read = inputRead(segments, at);
    if (read) env.logic.inputReads.push(read);
    return segments;
  } catch (error) {
    env.problem(at, 'INVALID_MATCH', (error as Error).message);
    return undefined;
  }
}

function pathText(path: readonly string[]): string {
  return path.length === 0 ? '(input)' : path.map((s) => (/^[A-Za-z0-9_$-]+$/.test(s) ? s : JSON.stringify(s))).join('.');
}

function compileCoreKey(key: string, value: unknown, at: string, env: SelectorEnv): SelectorNode {
  switch (key) {
    case 'labels': {
      const list = Array.isArray(value) ? value : [value];
      return allOf(at, list.map((item, i) => coreLabels(item, Array.isArray(value) ? `${at}/${i}` : at, env)));
    }
    case 'fields': {
      const list = Array.isArray(value) ? value : [value];
      return allOf(at, list.map((item, i) => coreField(item, Array.isArray(value) ? `${at}/${i}` : at, env)));
    }
    case 'when':
      return compileSelector({ when: value }, at, env, '');
    case 'all':
    case 'any': {
      if (!Array.isArray(value)) {
        env.problem(at, 'INVALID_MATCH', `"${key}" takes a list of match blocks (got ${describeType(value)})`);
        return MATCH_NONE;
      }
      const children = value.map((b, i) => compileMatch(b, `${at}/${i}`, env));
      return key === 'all' ? allOf(at, children) : anyOf(at, children);
    }
    default: // not
      return notOf(at, compileMatch(value, at, env));
  }
}

function coreLabels(item: unknown, at: string, env: SelectorEnv): SelectorNode {
  if (typeof item === 'string') return compileSelector({ labels: item, path: 'labels' }, at, env, '');
  if (!isPlainObject(item)) {
    env.problem(at, 'INVALID_SELECTOR', `"labels" takes a label selector (an object with matchLabels/matchExpressions, or a string like "env in (prod)") (got ${describeType(item)})`);
    return MATCH_NONE;
  }
  const { path = 'labels', selector, ...structured } = item as { path?: unknown; selector?: unknown } & Record<string, unknown>;
  if (selector !== undefined && Object.keys(structured).length > 0) {
    env.problem(at, 'INVALID_SELECTOR', 'give either "selector" (the string form) or matchLabels/matchExpressions, not both');
    return MATCH_NONE;
  }
  const value = selector ?? structured;
  const checked = checkLabelSelector(value, selector === undefined ? at : `${at}/selector`, env);
  if (checked === undefined) return MATCH_NONE;
  return compileSelector({ labels: checked, path: path as Path }, at, env, '');
}

function coreField(item: unknown, at: string, env: SelectorEnv): SelectorNode {
  if (!isPlainObject(item)) {
    env.problem(at, 'INVALID_MATCH', `a field matcher must be an object {path, values?, exclude?} (got ${describeType(item)})`);
    return MATCH_NONE;
  }
  let ok = true;
  for (const k of Object.keys(item)) {
    if (k !== 'path' && k !== 'values' && k !== 'exclude') {
      env.problem(`${at}/${escapePointerSegment(k)}`, 'INVALID_MATCH', `unknown field "${k}" in field matcher${didYouMean(k, ['path', 'values', 'exclude'])}`);
      ok = false;
    }
  }
  if (item['path'] === undefined) {
    env.problem(at, 'INVALID_MATCH', 'a field matcher needs a "path" (e.g. namespace or /object/metadata/name)');
    ok = false;
  }
  for (const k of ['values', 'exclude'] as const) {
    if (item[k] !== undefined && !Array.isArray(item[k])) {
      env.problem(`${at}/${k}`, 'INVALID_MATCH', `"${k}" must be a list (got ${describeType(item[k])})`);
      ok = false;
    }
  }
  if (!ok) return MATCH_NONE;
  const desc: Selector = { field: item['path'] as Path };
  if (item['values'] !== undefined) desc.values = item['values'] as unknown[];
  if (item['exclude'] !== undefined) desc.exclude = item['exclude'] as unknown[];
  return compileSelector(desc, at, env, '');
}

function labelFacts(path: readonly string[], requirements: readonly LabelSelectorRequirement[]): Fact[] {
  return requirements.map((r) => {
    const where = [...path, r.key];
    const text = `${pathText(path)}: ${formatLabelSelector({ matchExpressions: [r] })}`;
    switch (r.operator) {
      case 'In':
        return { path: where, in: r.values ?? [], text };
      case 'NotIn':
        return { path: where, notIn: r.values ?? [], text };
      case 'Exists':
      case 'Gt':
      case 'Lt':
        return { path: where, exists: true, text };
      default:
        return { path: where, exists: false, text };
    }
  });
}

/** A composite a dialect described: reported as one part, with the dialect's words, when it fails. */
function described(inner: SelectorNode, at: string, text: string | undefined): SelectorNode {
  if (text === undefined || inner === MATCH_ALL) return inner;
  return leaf(at, text, (scope) => !inner.test(scope), { hints: inner.hints, key: inner.key, ...(inner.facts ? { facts: inner.facts } : {}) });
}

/** A predicate over a value (a list matches when any element does). */
function valueMatcher(list: readonly unknown[]): (value: unknown) => boolean {
  const strings = list.filter((v): v is string => typeof v === 'string');
  const others = list.filter((v) => typeof v !== 'string');
  const str = anyGlobMatcher(strings);
  const one = (v: unknown): boolean => {
    if (typeof v === 'string') return str(v);
    if (typeof v === 'number' || typeof v === 'boolean') return str(String(v)) || others.some((o) => o === v);
    return v !== undefined && others.some((o) => deepEqual(o, v));
  };
  return (v) => (Array.isArray(v) ? v.some(one) || (others.length > 0 && others.some((o) => deepEqual(o, v))) : one(v));
}

/**
 * Compiles a selector descriptor (from a dialect or core) into a node. `base`
 * is the absolute pointer of the match block; descriptor `where`s are relative to it.
 */
export function compileSelector(selector: Selector, base: string, env: SelectorEnv, defaultWhere = ''): SelectorNode {
  if (selector === true) return MATCH_ALL;
  if (selector === false) return MATCH_NONE;
  if (!isPlainObject(selector)) {
    env.problem(base, 'INVALID_MATCH', `internal: a dialect returned ${preview(selector)} instead of a selector`);
    return MATCH_NONE;
  }
  const s = selector as Exclude<Selector, boolean> & Record<string, unknown>;
  const at = `${base}${typeof s.where === 'string' ? s.where : defaultWhere}`;
  const describe = typeof s.describe === 'string' ? s.describe : undefined;
  if ('all' in s || 'any' in s) {
    const list = ('all' in s ? s.all : s.any) as readonly Selector[];
    const children = list.map((c) => compileSelector(c, base, env, typeof s.where === 'string' ? s.where : defaultWhere));
    return described('all' in s ? allOf(at, children) : anyOf(at, children), at, describe);
  }
  if ('not' in s) {
    return described(notOf(at, compileSelector(s.not as Selector, base, env, typeof s.where === 'string' ? s.where : defaultWhere)), at, describe);
  }
  if ('labels' in s) {
    const path = toPath(s.path as Path, at, env);
    if (!path) return MATCH_NONE;
    let compiled;
    try {
      compiled = compileLabelSelector(s.labels as LabelSelector | string);
    } catch (error) {
      env.problem(at, 'INVALID_SELECTOR', (error as Error).message);
      return MATCH_NONE;
    }
    if (compiled.text === '(everything)') return MATCH_ALL;
    const hints: IndexHint[] = compiled.required.map((r) => ({ path: [...path, r.key], values: r.values }));
    const { matches } = compiled;
    return leaf(at, describe ?? `${pathText(path)}: ${compiled.text}`, (scope) => matches(getPath(scope.input, path) as Record<string, unknown> | undefined), {
      hints, facts: labelFacts(path, compiled.requirements),
    });
  }
  if ('field' in s) {
    const path = toPath(s.field as Path, at, env);
    if (!path) return MATCH_NONE;
    const values = s.values as readonly unknown[] | undefined;
    const exclude = s.exclude as readonly unknown[] | undefined;
    const include = values ? valueMatcher(values) : undefined;
    const reject = exclude && exclude.length > 0 ? valueMatcher(exclude) : undefined;
    const hints: IndexHint[] = values && values.length > 0 && values.every((v) => typeof v === 'string' && !isGlob(v)) ? [{ path, values: values as string[] }] : [];
    const text = describe ?? [
      values ? `${pathText(path)} in (${values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ')})` : '',
      reject ? `${pathText(path)} not in (${exclude!.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ')})` : '',
    ].filter(Boolean).join(' and ');
    if (!include && !reject) return MATCH_ALL;
    return leaf(at, text, (scope) => {
      const v = getPath(scope.input, path);
      // Matching scans the value: 1 unit per 10 characters, or 1 per element of a list.
      if (typeof v === 'string') scope.meter.spendText(v.length);
      else if (Array.isArray(v)) scope.meter.spend(v.length);
      return (!include || include(v)) && (!reject || !reject(v));
    }, { hints });
  }
  if ('when' in s) {
    try {
      const fn = env.logic.compile(s.when, 'root', at);
      return leaf(at, describe ?? `when ${preview(s.when, 80)}`, (scope) => truthy(fn(undefined, scope)));
    } catch (error) {
      env.problem(error instanceof LogicError ? error.path : at, 'INVALID_RULE', (error as Error).message);
      return MATCH_NONE;
    }
  }
  if ('test' in s && typeof s.test === 'function') {
    const test = s.test as (input: unknown) => boolean;
    const hint = s.index as IndexHint | undefined;
    const key = typeof s.key === 'function' ? (s.key as SelectionKey) : undefined;
    return leaf(at, describe ?? 'custom test', (scope) => test(scope.input), { hints: hint ? [hint] : [], key });
  }
  env.problem(base, 'INVALID_MATCH', `internal: unrecognised selector ${preview(selector)}`);
  return MATCH_NONE;
}
