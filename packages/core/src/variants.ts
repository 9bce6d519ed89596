/**
 * Parameters per parameterSelection outcome, computed at load time: each
 * entry merged over spec.parameters, schema defaults applied, validated
 * (problems point into the entry or the defaults), frozen; and the glob and
 * regex patterns that rules read from them, compiled ahead of evaluation.
 */
import { globMatcher } from './patterns/glob.js';
import { UNMETERED } from './budget.js';
import { compileRegex } from './patterns/regex.js';
import { pathExists } from './logic/scope.js';
import { checkParameterKeys } from './parameter-reads.js';
import { mergeParameters, type MergeRules } from './merge.js';
import type { Report } from './languages/report.js';
import type { TemplateUnit } from './template-unit.js';
import { deepClone, deepFreeze, parsePointer, type JsonObject } from './util/object.js';

/** Parameters for one outcome of parameterSelection, merged, defaulted, validated and frozen. */
export interface Variant {
  parameters: Readonly<JsonObject>;
  /** Why the merged parameters failed the schema: a MatchAny combination, or spec.parameters that are never used alone. */
  error?: string;
}

function hasPointer(value: unknown, pointer: string): boolean {
  return pathExists(value, parsePointer(pointer));
}

/** Merges an entry over the base, applies schema defaults, validates, and reports problems with document paths. */
export function buildVariant(
  unit: TemplateUnit,
  at: { base: JsonObject; override: JsonObject | undefined; merge: MergeRules | undefined; where: string; label: string; quiet?: boolean },
  report: Report,
): Variant | undefined {
  const { base, override, merge } = at;
  // A key the schema does not declare is a typo until the schema says otherwise: the entry's own keys,
  // or the defaults' when building them (reported whether or not the defaults are used alone).
  const unknown = checkParameterKeys(unit.parametersSchema, override ?? base);
  for (const issue of unknown) report(`${override === undefined ? '/spec/parameters' : `${at.where}/parameters`}${issue.path}`, 'UNKNOWN_PARAMETER', `${at.label}: ${issue.message}`);
  if (unknown.length > 0) return undefined;
  let merged: JsonObject;
  try {
    merged = override === undefined ? deepClone(base) : deepClone(mergeParameters(base, override, merge));
  } catch (error) {
    report(at.where ? `${at.where}/parameters` : '/spec/parameters', 'INVALID_MERGE', `${at.label}: ${(error as Error).message}`);
    return undefined;
  }
  const issues = unit.validator ? unit.validator(merged) : [];
  if (issues.length > 0) {
    if (at.quiet) return { parameters: deepFreeze(merged), error: issues.map((x) => `${x.path || '/'}: ${x.message}`).join('; ') };
    for (const issue of issues) {
      const inEntry = override !== undefined && hasPointer(override, issue.path);
      const path = inEntry || override === undefined
        ? `${override === undefined ? '/spec/parameters' : `${at.where}/parameters`}${inEntry || hasPointer(base, issue.path) ? issue.path : ''}`
        : hasPointer(base, issue.path) ? `/spec/parameters${issue.path}` : `${at.where}/parameters`;
      const inner = issue.path ? ` at ${issue.path}` : '';
      report(path, 'INVALID_PARAMETERS', `${at.label}: ${override === undefined ? 'parameters' : 'merged parameters'}${inner} ${issue.message}`);
    }
    return undefined;
  }
  return { parameters: deepFreeze(merged) };
}

/** Compiles glob and regex patterns that rules read from parameters, for every parameter set. */
export function warmPatterns(unit: TemplateUnit, variants: readonly Variant[], report: Report): void {
  for (const site of unit.patternSites) {
    for (const variant of variants) {
      const scope = { input: {}, parameters: variant.parameters, element: undefined, hasElement: false, overlay: true, meter: UNMETERED };
      let value: unknown;
      let flags: unknown;
      try {
        value = site.pattern(undefined, scope);
        flags = site.flags ? site.flags(undefined, scope) : '';
      } catch {
        continue;
      }
      const patterns = typeof value === 'string' ? [value] : Array.isArray(value) ? value.filter((p): p is string => typeof p === 'string') : [];
      for (const pattern of patterns) {
        try {
          if (site.kind === 'glob') globMatcher(pattern);
          else compileRegex(pattern, typeof flags === 'string' ? flags : '');
        } catch (error) {
          report('/spec/parameters', 'INVALID_PARAMETERS', `pattern "${pattern}" from the parameters cannot be used by the template's ${site.kind} rule: ${(error as Error).message}`);
        }
      }
    }
  }
}
