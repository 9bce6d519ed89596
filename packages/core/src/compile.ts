/**
 * `compilePolicies`: documents in, a {@link PolicySet} out, or a
 * {@link PolicyLoadError} listing every problem. All-or-nothing: one bad
 * document rejects the set. Everything that can be done once is done here:
 * selectors, rules, templates, patches, schemas, merged parameters per
 * parameterSelection entry, glob and regex patterns, and the selector index.
 */
import { PolicyLoadError, VerdictError, type Problem, type ProblemCode } from './errors.js';
import { compileParametersSchema, validateDocumentShape, type DocumentShape, type ParametersValidator } from './schema.js';
import { LogicCompiler, LogicError, type PatternSite } from './logic/compile.js';
import type { Fn } from './logic/scope.js';
import { compileRegex } from './logic/extensions.js';
import { globMatcher } from './glob.js';
import { checkMergeRules, mergeParameters, type MergeRules } from './merge.js';
import { compilePatch, PatchCompileError, type CompiledPatchOp } from './mutate.js';
import { sourceLocation, type PolicyDocument } from './parse.js';
import { compileMatch, keyOwners, type SelectorEnv } from './selectors/compile.js';
import { MATCH_ALL, type SelectorNode } from './selectors/node.js';
import { PolicyIndex } from './selectors/policy-index.js';
import type { MatchDialect } from './selectors/types.js';
import { compileTemplate, type CompiledTemplate } from './template.js';
import type { EnforcementAction, NoMatchAction, ParameterSelectionBehavior, PolicyInfo, SelectionTrace } from './types.js';
import { deepClone, deepFreeze, escapePointerSegment, findForbiddenKey, isPlainObject, parsePointer, parsePathNotation, type JsonObject } from './util/object.js';
import { didYouMean } from './util/suggest.js';
import { PolicySet } from './evaluate.js';

export interface CompileOptions {
  /** Match vocabularies to accept besides core's (e.g. the Kubernetes adapter's Gatekeeper `match`). */
  dialects?: readonly MatchDialect[];
  /**
   * JSON pointer into the input that `mutate` patches address (default `''`,
   * the whole input). The Kubernetes adapter uses `/object`.
   */
  mutationTarget?: string;
}

export interface CompiledValidate {
  name: string;
  forEach?: Fn;
  /** Input path of the forEach list, when it is a plain `var` path (for violation paths). */
  forEachPath?: string;
  rule: Fn;
  message: CompiledTemplate;
}

export interface CompiledMutate {
  name: string;
  when?: Fn;
  patch: CompiledPatchOp[];
}

export interface TemplateUnit {
  kind: string;
  name: string;
  validator?: ParametersValidator;
  validate: CompiledValidate[];
  mutate: CompiledMutate[];
  patternSites: PatternSite[];
}

/** Parameters for one outcome of parameterSelection, merged, defaulted, validated and frozen. */
export interface Variant {
  parameters: Readonly<JsonObject>;
  /** Set when the merged parameters failed the schema (possible only for MatchAny combinations). */
  error?: string;
}

export interface CompiledEntry {
  index: number;
  ref: { readonly index: number; readonly name?: string };
  /** The trace of a MatchFirst selection of this entry, built once and shared (frozen). */
  chosen: SelectionTrace;
  match: SelectorNode;
  parameters: JsonObject;
  variant: Variant;
}

export interface CompiledPolicy {
  ordinal: number;
  kind: string;
  name: string;
  order: number;
  enforcementAction: EnforcementAction;
  template: TemplateUnit;
  match: SelectorNode;
  base: Variant;
  behavior: ParameterSelectionBehavior;
  onNoMatch: NoMatchAction;
  entries: CompiledEntry[];
  merge?: MergeRules;
  /** MatchAny combinations, merged lazily and cached by the list of matched entries. */
  anyCache: Map<string, Variant>;
  /** Shared, frozen traces for the outcomes that do not depend on the input. */
  outcomes: { noEntries: SelectionTrace; noMatch: SelectionTrace };
  info: PolicyInfo;
  /** Where the policy came from (for lint findings with file and line). */
  document: { index: number; object: object };
}

const GATEKEEPER_CONSTRAINTS = /^constraints\.gatekeeper\.sh\//;
const RESERVED_KINDS = new Set(['PolicyTemplate', 'Policy', 'List', 'ConstraintTemplate']);

class Loader {
  readonly problems: Problem[] = [];
  readonly templates = new Map<string, { unit: TemplateUnit; doc: number }>();
  readonly policies: CompiledPolicy[] = [];
  private readonly seen = new Map<string, number>();
  private readonly owners;
  private readonly dialects: readonly MatchDialect[];

  constructor(private readonly documents: readonly unknown[], options: CompileOptions) {
    this.dialects = options.dialects ?? [];
    try {
      this.owners = keyOwners(this.dialects);
    } catch (error) {
      throw new VerdictError('INVALID_INPUT', (error as Error).message);
    }
  }

  report(doc: number, path: string, code: ProblemCode, message: string): void {
    const document = this.documents[doc];
    const problem: Problem = { code, document: doc, path, message };
    if (isPlainObject(document)) {
      const kind = document['kind'];
      const name = isPlainObject(document['metadata']) ? document['metadata']['name'] : undefined;
      if (typeof kind === 'string' && typeof name === 'string') problem.name = `${kind}/${name}`;
      const loc = sourceLocation(document, path);
      if (loc) Object.assign(problem, loc);
    }
    this.problems.push(problem);
  }

  run(): void {
    const shapes: Array<DocumentShape | undefined> = this.documents.map((doc, i) => this.check(doc, i));
    shapes.forEach((shape, i) => {
      if (shape === 'PolicyTemplate') this.addTemplate(this.documents[i] as PolicyDocument, i);
    });
    shapes.forEach((shape, i) => {
      const doc = this.documents[i] as PolicyDocument;
      if (shape === 'Policy') {
        const unit = this.compileUnit(doc, i, 'Policy');
        if (unit) this.addConstraint(doc, i, unit, true);
      } else if (shape === 'Constraint') {
        const kind = doc['kind'] as string;
        const template = this.templates.get(kind);
        if (!template) {
          const known = [...this.templates.keys()];
          this.report(i, '/kind', 'UNKNOWN_KIND', `no PolicyTemplate defines kind "${kind}"${didYouMean(kind, known)}${known.length ? ` (defined: ${known.join(', ')})` : '; load its PolicyTemplate in the same set'}`);
          return;
        }
        this.addConstraint(doc, i, template.unit, false);
      }
    });
  }

  /** First-level checks; returns which schema the document follows when it is valid. */
  private check(doc: unknown, i: number): DocumentShape | undefined {
    if (!isPlainObject(doc)) {
      this.report(i, '', 'NOT_A_DOCUMENT', `a policy document must be an object (got ${doc === null ? 'null' : Array.isArray(doc) ? 'a list' : typeof doc})`);
      return undefined;
    }
    const hostile = findForbiddenKey(doc);
    if (hostile) {
      this.report(i, hostile.path, 'FORBIDDEN_KEY', `key "${hostile.key}" is not allowed in policy documents: it could change object prototypes`);
      return undefined;
    }
    const kind = doc['kind'];
    const apiVersion = doc['apiVersion'];
    if (typeof kind !== 'string' || kind === '') {
      this.report(i, '/kind', 'SCHEMA', kind === undefined ? 'missing required field "kind"' : 'kind must be a non-empty string');
      return undefined;
    }
    if (kind === 'ConstraintTemplate' || (typeof apiVersion === 'string' && apiVersion.startsWith('templates.gatekeeper.sh/'))) {
      this.report(i, '', 'UNSUPPORTED', 'Gatekeeper ConstraintTemplates hold Rego, which verdict does not run; port the logic to a PolicyTemplate with json-logic rules (see docs/porting-gatekeeper.md) and keep your constraints as they are');
      return undefined;
    }
    const shape: DocumentShape = kind === 'PolicyTemplate' ? 'PolicyTemplate' : kind === 'Policy' ? 'Policy' : 'Constraint';
    if (shape === 'Constraint' && RESERVED_KINDS.has(kind)) {
      this.report(i, '/kind', 'UNSUPPORTED', `kind "${kind}" is not a policy document`);
      return undefined;
    }
    const issues = validateDocumentShape(shape, doc);
    for (const issue of issues) this.report(i, issue.path, 'SCHEMA', issue.message);
    if (issues.length > 0) return undefined;
    if (shape === 'Constraint' && typeof apiVersion === 'string' && !GATEKEEPER_CONSTRAINTS.test(apiVersion) && apiVersion !== 'verdict.dev/v1') return undefined;
    return shape;
  }

  private addTemplate(doc: PolicyDocument, i: number): void {
    const spec = doc['spec'] as JsonObject;
    const kind = spec['kind'] as string;
    if (RESERVED_KINDS.has(kind)) {
      this.report(i, '/spec/kind', 'UNSUPPORTED', `"${kind}" cannot be a constraint kind; choose another name`);
      return;
    }
    const previous = this.templates.get(kind);
    if (previous) {
      this.report(i, '/spec/kind', 'DUPLICATE', `kind "${kind}" is already defined by document ${previous.doc}`);
      return;
    }
    const unit = this.compileUnit(doc, i, kind);
    if (unit) this.templates.set(kind, { unit, doc: i });
  }

  /** Compiles the logic half (schema, definitions, validate, mutate) of a PolicyTemplate or Policy. */
  private compileUnit(doc: PolicyDocument, i: number, kind: string): TemplateUnit | undefined {
    const spec = doc['spec'] as JsonObject;
    const before = this.problems.length;
    const name = (doc['metadata'] as JsonObject)['name'] as string;
    const unit: TemplateUnit = { kind, name, validate: [], mutate: [], patternSites: [] };
    if (spec['parametersSchema'] !== undefined) {
      try {
        unit.validator = compileParametersSchema(spec['parametersSchema'] as object);
      } catch (error) {
        this.report(i, '/spec/parametersSchema', 'INVALID_PARAMETERS', `invalid JSON Schema: ${(error as Error).message}`);
      }
    }
    const logic = new LogicCompiler((spec['definitions'] as JsonObject | undefined) ?? {}, '/spec/definitions');
    const compile = (node: unknown, where: string): Fn | undefined => {
      try {
        return logic.compile(node, 'root', where);
      } catch (error) {
        this.report(i, error instanceof LogicError ? error.path : where, 'INVALID_RULE', (error as Error).message);
        return undefined;
      }
    };
    const names = new Set<string>();
    const unique = (ruleName: string, where: string) => {
      if (names.has(ruleName)) this.report(i, where, 'DUPLICATE', `rule name "${ruleName}" is used twice; rule names must be unique within a template`);
      names.add(ruleName);
    };
    ((spec['validate'] as JsonObject[] | undefined) ?? []).forEach((rule, r) => {
      const where = `/spec/validate/${r}`;
      unique(rule['name'] as string, `${where}/name`);
      const compiled = compile(rule['rule'], `${where}/rule`);
      const forEach = rule['forEach'] === undefined ? undefined : compile(rule['forEach'], `${where}/forEach`);
      let message: CompiledTemplate | undefined;
      try {
        message = compileTemplate(rule['message'] as string);
      } catch (error) {
        this.report(i, `${where}/message`, 'INVALID_TEMPLATE', (error as Error).message);
      }
      if (!compiled || !message || (rule['forEach'] !== undefined && !forEach)) return;
      const entry: CompiledValidate = { name: rule['name'] as string, rule: compiled, message };
      if (forEach) {
        entry.forEach = forEach;
        const path = forEachInputPath(rule['forEach']);
        if (path !== undefined) entry.forEachPath = path;
      }
      unit.validate.push(entry);
    });
    ((spec['mutate'] as JsonObject[] | undefined) ?? []).forEach((rule, r) => {
      const where = `/spec/mutate/${r}`;
      unique(rule['name'] as string, `${where}/name`);
      const when = rule['when'] === undefined ? undefined : compile(rule['when'], `${where}/when`);
      let patch: CompiledPatchOp[] | undefined;
      try {
        patch = compilePatch(rule['patch'] as unknown[], `${where}/patch`);
      } catch (error) {
        this.report(i, error instanceof PatchCompileError ? error.path : `${where}/patch`, 'INVALID_PATCH', (error as Error).message);
      }
      if (!patch || (rule['when'] !== undefined && !when)) return;
      unit.mutate.push(when ? { name: rule['name'] as string, when, patch } : { name: rule['name'] as string, patch });
    });
    unit.patternSites = logic.patternSites;
    return this.problems.length === before ? unit : undefined;
  }

  private addConstraint(doc: PolicyDocument, i: number, unit: TemplateUnit, isPolicy: boolean): void {
    const before = this.problems.length;
    const kind = doc['kind'] as string;
    const name = (doc['metadata'] as JsonObject)['name'] as string;
    const key = `${kind}/${name}`;
    if (this.seen.has(key)) {
      this.report(i, '/metadata/name', 'DUPLICATE', `${kind} "${name}" is already defined by document ${this.seen.get(key)}`);
      return;
    }
    this.seen.set(key, i);
    const spec = (doc['spec'] as JsonObject | undefined) ?? {};
    const action = (spec['enforcementAction'] as string | undefined) ?? 'deny';
    const enforcementAction: EnforcementAction = action === 'dryrun' ? 'audit' : (action as EnforcementAction);
    const behavior = (spec['parameterSelectionBehavior'] as ParameterSelectionBehavior | undefined) ?? 'MatchFirst';
    const onNoMatch = (spec['onParameterSelectionNoMatch'] as NoMatchAction | undefined) ?? 'proceed';
    const merge = spec['merge'] as MergeRules | undefined;
    for (const [path, message] of checkMergeRules(merge)) this.report(i, `/spec/merge${path}`, 'INVALID_MERGE', message);

    const env: SelectorEnv = {
      dialects: this.dialects,
      owners: this.owners,
      logic: new LogicCompiler(isPolicy ? ((spec['definitions'] as JsonObject | undefined) ?? {}) : {}, '/spec/definitions'),
      problem: (at, code, message) => this.report(i, at, code, message),
    };
    const match = compileMatch(spec['match'], '/spec/match', env);
    const baseRaw = deepClone((spec['parameters'] as JsonObject | undefined) ?? {});
    const rawEntries = (spec['parameterSelection'] as JsonObject[] | undefined) ?? [];
    const entries: CompiledEntry[] = [];
    rawEntries.forEach((raw, j) => {
      const where = `/spec/parameterSelection/${j}`;
      const entryMatch = compileMatch(raw['match'], `${where}/match`, env);
      const label = `parameterSelection entry ${j}${typeof raw['name'] === 'string' ? ` ("${raw['name']}")` : ''}`;
      const variant = this.variant(i, unit, { base: baseRaw, override: raw['parameters'] as JsonObject, merge, where, label });
      const ref = Object.freeze(typeof raw['name'] === 'string' ? { index: j, name: raw['name'] } : { index: j });
      const chosen: SelectionTrace = deepFreeze({ behavior, matched: [ref], outcome: 'selected' });
      entries.push({ index: j, ref, chosen, match: entryMatch, parameters: raw['parameters'] as JsonObject, variant: variant ?? { parameters: {} } });
    });
    const baseReachable = entries.length === 0 || (onNoMatch === 'proceed' && !entries.some((e) => e.match === MATCH_ALL));
    const base = this.variant(i, unit, {
      base: baseRaw, override: undefined, merge, where: '', label: entries.length ? 'spec.parameters (used when no parameterSelection entry matches)' : 'spec.parameters', quiet: !baseReachable,
    }) ?? { parameters: deepFreeze(baseRaw) };
    if (this.problems.length !== before) return;
    this.warmPatterns(i, unit, [base, ...entries.map((e) => e.variant)]);
    const policy: CompiledPolicy = {
      ordinal: 0, kind, name, order: (spec['order'] as number | undefined) ?? 0, enforcementAction, template: unit, match,
      base, behavior, onNoMatch, entries, anyCache: new Map(), document: { index: i, object: doc },
      outcomes: deepFreeze({
        noEntries: { behavior, matched: [], outcome: 'no-entries' as const },
        noMatch: { behavior, matched: [], outcome: `no-match-${onNoMatch}` as const },
      }),
      info: Object.freeze({
        kind, name, order: (spec['order'] as number | undefined) ?? 0, enforcementAction, template: unit.name,
        parameterSelection: entries.length, validate: Object.freeze(unit.validate.map((r) => r.name)), mutate: Object.freeze(unit.mutate.map((r) => r.name)),
      }),
    };
    if (merge) policy.merge = merge;
    this.policies.push(policy);
  }

  /** Merges an entry over the base, applies schema defaults, validates, and reports problems with document paths. */
  private variant(
    i: number, unit: TemplateUnit,
    at: { base: JsonObject; override: JsonObject | undefined; merge: MergeRules | undefined; where: string; label: string; quiet?: boolean },
  ): Variant | undefined {
    const { base, override, merge } = at;
    let merged: JsonObject;
    try {
      merged = override === undefined ? deepClone(base) : deepClone(mergeParameters(base, override, merge));
    } catch (error) {
      this.report(i, at.where ? `${at.where}/parameters` : '/spec/parameters', 'INVALID_MERGE', `${at.label}: ${(error as Error).message}`);
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
        this.report(i, path, 'INVALID_PARAMETERS', `${at.label}: ${override === undefined ? 'parameters' : 'merged parameters'}${inner} ${issue.message}`);
      }
      return undefined;
    }
    return { parameters: deepFreeze(merged) };
  }

  /** Compiles glob and regex patterns that rules read from parameters, for every parameter set. */
  private warmPatterns(i: number, unit: TemplateUnit, variants: readonly Variant[]): void {
    for (const site of unit.patternSites) {
      for (const variant of variants) {
        const scope = { input: {}, parameters: variant.parameters, element: undefined, hasElement: false, overlay: true };
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
            this.report(i, '/spec/parameters', 'INVALID_PARAMETERS', `pattern "${pattern}" from the parameters cannot be used by the template's ${site.kind} rule: ${(error as Error).message}`);
          }
        }
      }
    }
  }
}

function hasPointer(value: unknown, pointer: string): boolean {
  if (pointer === '') return true;
  let cur = value;
  for (const seg of parsePointer(pointer)) {
    if (cur === null || typeof cur !== 'object' || !Object.prototype.hasOwnProperty.call(cur, seg)) return false;
    cur = (cur as JsonObject)[seg];
  }
  return true;
}

/** `{var: "object.spec.containers"}` → `/object/spec/containers` (not for parameters/element paths). */
function forEachInputPath(forEach: unknown): string | undefined {
  if (!isPlainObject(forEach) || Object.keys(forEach).length !== 1) return undefined;
  const arg = forEach['var'] ?? forEach['input'];
  const path = Array.isArray(arg) ? arg[0] : arg;
  if (typeof path !== 'string' || path === '') return undefined;
  const segments = parsePathNotation(path.startsWith('/') ? path : path);
  if (segments[0] === 'parameters' || segments[0] === 'element') return undefined;
  return segments.map((s) => `/${escapePointerSegment(s)}`).join('');
}

/**
 * Compiles policy documents (from {@link parsePolicyDocuments} or built in
 * code) into an immutable {@link PolicySet}. Throws {@link PolicyLoadError}
 * listing every problem (`{document, path, message}`, with line and column
 * for parsed text); nothing is loaded when any document is invalid.
 */
export function compilePolicies(documents: readonly unknown[], options: CompileOptions = {}): PolicySet {
  if (!Array.isArray(documents)) {
    throw new PolicyLoadError([{ code: 'NOT_A_DOCUMENT', document: 0, path: '', message: 'compilePolicies expects a list of documents (use parsePolicyDocuments for text)' }]);
  }
  let target: string[];
  try {
    target = parsePointer(options.mutationTarget ?? '');
  } catch (error) {
    throw new VerdictError('INVALID_INPUT', `mutationTarget: ${(error as Error).message}`);
  }
  const loader = new Loader(documents, options);
  loader.run();
  if (loader.problems.length > 0) {
    // Document order, then source order, so a report reads top to bottom.
    const problems = loader.problems.map((p, n) => ({ p, n })).sort((a, b) =>
      a.p.document - b.p.document || (a.p.line ?? 0) - (b.p.line ?? 0) || (a.p.column ?? 0) - (b.p.column ?? 0) || a.n - b.n);
    throw new PolicyLoadError(problems.map((x) => x.p));
  }
  const policies = loader.policies.sort((a, b) => a.order - b.order || (a.name < b.name ? -1 : a.name > b.name ? 1 : a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : 0));
  policies.forEach((p, ordinal) => (p.ordinal = ordinal));
  const index = new PolicyIndex(policies.map((item) => ({ item, hints: item.match.hints })));
  return new PolicySet(policies, index, { target, dialects: options.dialects ?? [] });
}
