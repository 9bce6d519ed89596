/**
 * Kubernetes label selectors, with apimachinery's semantics exactly
 * (`pkg/labels/selector.go`, `pkg/apis/meta/v1/helpers.go`): structured
 * selectors (`matchLabels`, `matchExpressions`) and the kubectl string form.
 * Validation lives in labels/requirements.ts, the string parser in
 * labels/string-form.ts; this module compiles and matches.
 */
import { SelectorError } from './errors.js';
import { ownGet } from './util/object.js';
import {
  labelKeyError, labelValueError, parseInt64, structuredRequirements,
  type LabelSelector, type LabelSelectorRequirement, type Labels, type Requirement, type SelectorIssue,
} from './labels/requirements.js';
import { stringRequirements } from './labels/string-form.js';

export { labelKeyError, labelValueError };
export type { LabelSelector, LabelSelectorOperator, LabelSelectorRequirement, Labels, SelectorIssue } from './labels/requirements.js';

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
