/**
 * Parameter merging: JSON Merge Patch (RFC 7386) for objects, with array
 * strategies. Arrays of scalars merge as an ordered union by default (base
 * first, then new values), which gives the allowed-registries lists of Gatekeeper's defaults-and-overrides request (#3082);
 * other arrays are replaced unless `spec.merge` says otherwise.
 */
import { VerdictError } from './errors.js';
import { deepEqual, escapePointerSegment, findForbiddenKey, FORBIDDEN_KEYS, isPlainObject, parsePointer, type JsonObject } from './util/object.js';

/** How the arrays (or values) at one path are merged. */
export type MergeStrategy =
  /** The override replaces the base value. */
  | 'replace'
  /** Base elements, then every override element (duplicates kept). */
  | 'append'
  /** Base elements, then override elements not already present (deep equality). */
  | 'union'
  /** Arrays of objects: elements with the same value of `mergeByKey` are merged; others appended. */
  | { mergeByKey: string };

/**
 * Merge strategies by JSON pointer relative to the parameters
 * (`{"/allowedRegistries": "replace", "/ports": {mergeByKey: "name"}}`). A `*`
 * segment matches any key or array element.
 */
export type MergeRules = Readonly<Record<string, MergeStrategy>>;

interface CompiledRule {
  segments: string[];
  strategy: MergeStrategy;
}

/** Validates merge rules; returns `[pointer, reason]` pairs for each invalid rule. */
export function checkMergeRules(rules: unknown): Array<[string, string]> {
  const problems: Array<[string, string]> = [];
  if (rules === undefined || rules === null) return problems;
  if (!isPlainObject(rules)) return [['', 'merge rules must be a map of JSON pointers to strategies']];
  for (const [pointer, strategy] of Object.entries(rules)) {
    const where = `/${escapePointerSegment(pointer)}`;
    try {
      parsePointer(pointer);
    } catch (error) {
      problems.push([where, (error as Error).message]);
      continue;
    }
    const ok = strategy === 'replace' || strategy === 'append' || strategy === 'union'
      || (isPlainObject(strategy) && Object.keys(strategy).length === 1 && typeof strategy['mergeByKey'] === 'string' && strategy['mergeByKey'] !== '');
    if (!ok) problems.push([where, `unknown merge strategy ${JSON.stringify(strategy)}; expected "replace", "append", "union" or {mergeByKey: <field>}`]);
  }
  return problems;
}

function compileRules(rules: MergeRules | undefined): CompiledRule[] {
  if (!rules) return [];
  const problems = checkMergeRules(rules);
  if (problems.length > 0) throw new VerdictError('INVALID_MERGE', `invalid merge rule at ${problems[0]![0]}: ${problems[0]![1]}`, { path: problems[0]![0] });
  return Object.entries(rules).map(([pointer, strategy]) => ({ segments: parsePointer(pointer), strategy }));
}

function strategyAt(rules: readonly CompiledRule[], path: readonly string[]): MergeStrategy | undefined {
  let best: MergeStrategy | undefined;
  let bestExact = -1;
  for (const rule of rules) {
    if (rule.segments.length !== path.length) continue;
    let exact = 0;
    let ok = true;
    for (let i = 0; i < path.length; i++) {
      if (rule.segments[i] === path[i]) exact++;
      else if (rule.segments[i] !== '*') {
        ok = false;
        break;
      }
    }
    if (ok && exact > bestExact) {
      best = rule.strategy;
      bestExact = exact;
    }
  }
  return best;
}

const isScalar = (v: unknown): boolean => v === null || typeof v !== 'object';

function pointerOf(path: readonly string[]): string {
  return path.map((s) => `/${escapePointerSegment(s)}`).join('');
}

function mergeArrays(base: unknown[], override: unknown[], strategy: MergeStrategy | undefined, ctx: Ctx): unknown[] {
  const chosen = strategy ?? (base.every(isScalar) && override.every(isScalar) ? 'union' : 'replace');
  if (chosen === 'replace') return override;
  if (chosen === 'append') return [...base, ...override];
  if (chosen === 'union') {
    const out = [...base];
    for (const v of override) if (!out.some((x) => deepEqual(x, v))) out.push(v);
    return out;
  }
  const key = chosen.mergeByKey;
  const out = [...base];
  for (const item of override) {
    const k = isPlainObject(item) ? item[key] : undefined;
    const at = k === undefined ? -1 : out.findIndex((x) => isPlainObject(x) && deepEqual(x[key], k));
    if (at < 0) out.push(item);
    else out[at] = mergeValue(out[at], item, [...ctx.path, String(at)], ctx);
  }
  return out;
}

interface Ctx {
  rules: readonly CompiledRule[];
  path: string[];
}

function mergeValue(base: unknown, override: unknown, path: string[], ctx: Ctx): unknown {
  const strategy = ctx.rules.length ? strategyAt(ctx.rules, path) : undefined;
  if (strategy === 'replace') return override;
  if (Array.isArray(override)) {
    return Array.isArray(base) ? mergeArrays(base, override, strategy, { rules: ctx.rules, path }) : override;
  }
  if (!isPlainObject(override)) return override;
  const target: JsonObject = isPlainObject(base) ? { ...base } : {};
  for (const key of Object.keys(override)) {
    if (FORBIDDEN_KEYS.has(key)) throw VerdictError.forbiddenKey(key, pointerOf([...path, key]));
    const value = override[key];
    if (value === null) delete target[key];
    else target[key] = mergeValue(target[key], value, [...path, key], ctx);
  }
  return target;
}

/**
 * Merges `override` over `base` and returns the result; neither input is
 * modified (the result may share unchanged subtrees with them).
 *
 * - objects merge key by key; scalars are replaced; `null` deletes a key;
 * - arrays of scalars: ordered union (base, then new values); other arrays: replaced;
 * - `rules` override the array behaviour per path (`replace`, `append`, `union`, `{mergeByKey}`).
 *
 * Throws `VerdictError` `FORBIDDEN_KEY` for `__proto__`, `constructor` or `prototype` keys
 * and `INVALID_MERGE` for malformed rules.
 */
export function mergeParameters(base: unknown, override: unknown, rules?: MergeRules): JsonObject {
  const compiled = compileRules(rules);
  const hostile = findForbiddenKey(base);
  if (hostile) throw VerdictError.forbiddenKey(hostile.key, hostile.path);
  const merged = mergeValue(base ?? {}, override ?? {}, [], { rules: compiled, path: [] });
  if (!isPlainObject(merged)) {
    throw new VerdictError('INVALID_MERGE', 'parameters must be an object (a map of names to values)');
  }
  return merged;
}
