/**
 * `compilePolicies`: documents in, a {@link PolicySet} out, or a
 * {@link PolicyLoadError} listing every problem. All-or-nothing: one bad
 * document rejects the set. Everything that can be done once is done here:
 * selectors, rules, templates, patches, schemas, merged parameters per
 * parameterSelection entry, glob and regex patterns, and the selector index.
 */
import { DEFAULT_COST_BUDGET } from './budget.js';
import { PolicyLoadError, VerdictError, type Problem, type ProblemCode } from './errors.js';
import { validateDocumentShape, type DocumentShape } from './schema.js';
import { checkInputReads, type InputShape } from './input-reads.js';
import { LogicCompiler } from './logic/compile.js';
import { checkMergeRules, type MergeRules } from './merge.js';
import { sourceLocation, type PolicyDocument } from './parse.js';
import { compileMatch, keyOwners, type SelectorEnv } from './selectors/compile.js';
import { SelectionMemo } from './selectors/memo.js';
import { MATCH_ALL, sharedKey } from './selectors/node.js';
import { PolicyIndex } from './selectors/policy-index.js';
import type { MatchDialect } from './selectors/types.js';
import { compileTemplateUnit, type TemplateUnit } from './template-unit.js';
import { Translation } from './translate.js';
import type { EnforcementAction, NoMatchAction, ParameterSelectionBehavior, SelectionTrace } from './types.js';
import { deepClone, deepFreeze, findForbiddenKey, isPlainObject, parsePointer, type JsonObject } from './util/object.js';
import { didYouMean } from './util/suggest.js';
import { buildVariant, warmPatterns } from './variants.js';
import { PolicySet } from './evaluate.js';

export type { CompiledMutate, CompiledValidate, TemplateUnit } from './template-unit.js';
export type { Variant } from './variants.js';
export { hasLimits, type CompiledEntry, type CompiledPolicy, type CompileOptions, type EvaluationLimits, type InputView, type ParameterSetResolver } from './compile-options.js';
import { DEFAULT_MAX_MESSAGE_LENGTH, DEFAULT_MAX_VIOLATIONS, limitOption, type CompiledEntry, type CompiledPolicy, type CompileOptions } from './compile-options.js';

const GATEKEEPER_CONSTRAINTS = /^constraints\.gatekeeper\.sh\//;
const RESERVED_KINDS = new Set(['PolicyTemplate', 'Policy', 'List', 'ConstraintTemplate']);

class Loader {
  readonly problems: Problem[] = [];
  readonly templates = new Map<string, { unit: TemplateUnit; doc: number }>();
  readonly policies: CompiledPolicy[] = [];
  private readonly seen = new Map<string, number>();
  private readonly reported = new Set<string>();
  /** Kinds whose PolicyTemplate failed to compile: their constraints are not reported as unknown kinds. */
  private readonly broken = new Set<string>();
  private readonly owners;
  private readonly dialects: readonly MatchDialect[];
  readonly translation: Translation;
  private readonly documents: readonly unknown[];

  constructor(private readonly given: readonly unknown[], private readonly options: CompileOptions) {
    this.dialects = options.dialects ?? [];
    try {
      this.owners = keyOwners(this.dialects);
    } catch (error) {
      throw new VerdictError('INVALID_INPUT', (error as Error).message);
    }
    this.translation = new Translation(given, options.translators ?? [], (doc, path, code, message) => this.report(doc, path, code, message));
    this.documents = this.translation.documents;
  }

  report(at: number, where: string, code: ProblemCode, message: string): void {
    const { document: doc, path } = this.translation ? this.translation.locate(at, where) : { document: at, path: where };
    const key = `${doc}\u0000${path}\u0000${message}`;
    if (this.reported.has(key)) return; // a part shared by translated documents is reported once
    if (this.translation?.isVariant(at) && this.reported.has(`${doc}\u0000${path}`)) return; // a variant repeats its origin's problem
    this.reported.add(key);
    this.reported.add(`${doc}\u0000${path}`);
    const document = this.given[doc];
    const problem: Problem = { code, document: doc, path, message };
    if (isPlainObject(document)) {
      const kind = document['kind'];
      const name = isPlainObject(document['metadata']) ? document['metadata']['name'] : undefined;
      if (typeof kind === 'string' && typeof name === 'string') problem.name = `${kind}/${name}`;
      // A misspelt key is shown where the key is, not where its value starts.
      const key = (code === 'SCHEMA' && message.startsWith('unknown field')) || (code === 'INVALID_RULE' && message.startsWith('unknown operation'));
      const loc = sourceLocation(document, path, { key });
      if (loc) Object.assign(problem, loc);
    }
    this.problems.push(problem);
  }

  /** "document 2 (policies.yaml:14:1)": a document of this load, with its place in the source text when known. */
  private documentName(doc: number): string {
    const document = this.documents[doc];
    const loc = isPlainObject(document) ? sourceLocation(document, '') : undefined;
    if (!loc) return `document ${doc}`;
    return `document ${doc} (${loc.source === undefined ? 'line ' : `${loc.source}:`}${loc.line}:${loc.column})`;
  }

  run(): void {
    const { claimed, bound, boundPolicies } = this.translation;
    const shapes: Array<DocumentShape | undefined> = this.documents.map((doc, i) => (claimed.has(i) ? undefined : this.check(doc, i)));
    shapes.forEach((shape, i) => {
      if (shape === 'PolicyTemplate' && !bound.has(i)) this.addTemplate(this.documents[i] as PolicyDocument, i);
    });
    for (const [t, policies] of bound) {
      const template = this.documents[t] as PolicyDocument;
      const unit = shapes[t] === 'PolicyTemplate' ? this.compileUnit(template, t, (template['spec'] as JsonObject)['kind'] as string) : undefined;
      for (const p of policies) if (unit && shapes[p] === 'Constraint') this.addConstraint(this.documents[p] as PolicyDocument, p, unit, false);
    }
    shapes.forEach((shape, i) => {
      if (boundPolicies.has(i)) return;
      const doc = this.documents[i] as PolicyDocument;
      if (shape === 'Policy' || shape === 'Constraint') this.checkParameters(doc, i);
      if (shape === 'Policy') {
        const unit = this.compileUnit(doc, i, 'Policy');
        if (unit) this.addConstraint(doc, i, unit, true);
      } else if (shape === 'Constraint') {
        const kind = doc['kind'] as string;
        const template = this.templates.get(kind);
        if (!template) {
          if (this.broken.has(kind) || this.translation.broken.has(kind)) return; // its template's problems are reported
          const known = [...this.templates.keys()];
          this.report(i, '/kind', 'UNKNOWN_KIND', `no PolicyTemplate defines kind "${kind}"${didYouMean(kind, known)}${known.length ? ` (defined: ${known.join(', ')})` : '; load its PolicyTemplate in the same set'}`);
          return;
        }
        this.addConstraint(doc, i, template.unit, false);
      }
    });
  }

  /** The input shape a document's reads are checked against: the adapter's, for the user's own documents (not translated ones, whose reads verdict wrote). */
  private inputShapeFor(i: number): InputShape | undefined {
    return i < this.given.length ? this.options.inputShape : undefined;
  }

  /** The adapter's checks of its reserved parameters (`checkParameters`), on every parameter set of a constraint or Policy. */
  private checkParameters(doc: PolicyDocument, i: number): void {
    const check = this.options.checkParameters;
    const spec = doc['spec'] as JsonObject | undefined;
    if (!check || !spec) return;
    const places: Array<[string, unknown]> = [['/spec/parameters', spec['parameters']]];
    ((spec['parameterSelection'] as JsonObject[] | undefined) ?? []).forEach((entry, j) => places.push([`/spec/parameterSelection/${j}/parameters`, entry['parameters']]));
    for (const [at, parameters] of places) {
      if (isPlainObject(parameters)) for (const issue of check(parameters)) this.report(i, `${at}${issue.path}`, 'INVALID_PARAMETERS', issue.message);
    }
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
      this.report(i, '', 'UNSUPPORTED', 'Gatekeeper ConstraintTemplates hold Rego, which verdict does not run; port the logic to a PolicyTemplate with json-logic rules (see docs/porting-gatekeeper.md) and keep your constraints as they are; @verdict/kubernetes also loads templates that carry a K8sNativeValidation (CEL) block');
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
      this.report(i, '/spec/kind', 'DUPLICATE', `kind "${kind}" is already defined by ${this.documentName(previous.doc)}`);
      return;
    }
    const unit = this.compileUnit(doc, i, kind);
    if (unit) this.templates.set(kind, { unit, doc: i });
    else this.broken.add(kind);
  }

  private compileUnit(doc: PolicyDocument, i: number, kind: string): TemplateUnit | undefined {
    const name = (doc['metadata'] as JsonObject)['name'] as string;
    const source = {
      kind, name, document: doc, ...(this.options.cel ? { cel: this.options.cel } : {}), ...(this.options.patchTypes ? { patchTypes: this.options.patchTypes } : {}),
      ...(this.inputShapeFor(i) ? { inputShape: this.inputShapeFor(i) } : {}),
    };
    const unit = compileTemplateUnit(doc['spec'] as JsonObject, source, (path, code, message) => this.report(i, path, code, message));
    if (unit) unit.origin = { index: i, object: doc };
    return unit;
  }

  private addConstraint(doc: PolicyDocument, i: number, unit: TemplateUnit, isPolicy: boolean): void {
    const before = this.problems.length;
    const kind = doc['kind'] as string;
    const name = (doc['metadata'] as JsonObject)['name'] as string;
    const key = `${kind}/${name}`;
    if (this.seen.has(key)) {
      this.report(i, '/metadata/name', 'DUPLICATE', `${kind} "${name}" is already defined by ${this.documentName(this.seen.get(key)!)}`);
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
    env.logic.cel = unit.cel.hook;
    const match = compileMatch(spec['match'], '/spec/match', env);
    const baseRaw = deepClone((spec['parameters'] as JsonObject | undefined) ?? {});
    const rawEntries = (spec['parameterSelection'] as JsonObject[] | undefined) ?? [];

    const entries: CompiledEntry[] = [];
    rawEntries.forEach((raw, j) => {
      const where = `/spec/parameterSelection/${j}`;
      const entryMatch = compileMatch(raw['match'], `${where}/match`, env);
      const label = `parameterSelection entry ${j}${typeof raw['name'] === 'string' ? ` ("${raw['name']}")` : ''}`;
      const variant = buildVariant(unit, { base: baseRaw, override: raw['parameters'] as JsonObject, merge, where, label }, (path, code, message) => this.report(i, path, code, message));
      const ref = Object.freeze(typeof raw['name'] === 'string' ? { index: j, name: raw['name'] } : { index: j });
      const chosen: SelectionTrace = deepFreeze({ behavior, matched: [ref], outcome: 'selected' });
      entries.push({ index: j, ref, chosen, match: entryMatch, parameters: raw['parameters'] as JsonObject, variant: variant ?? { parameters: {} } });
    });
    for (const issue of checkInputReads(this.inputShapeFor(i), env.logic.inputReads)) this.report(i, issue.at, 'UNKNOWN_INPUT_PATH', issue.message);
    const baseReachable = entries.length === 0 || (onNoMatch === 'proceed' && !entries.some((e) => e.match === MATCH_ALL));
    const base = buildVariant(unit, {
      base: baseRaw, override: undefined, merge, where: '', label: entries.length ? 'spec.parameters (used when no parameterSelection entry matches)' : 'spec.parameters', quiet: !baseReachable,
    }, (path, code, message) => this.report(i, path, code, message)) ?? { parameters: deepFreeze(baseRaw) };
    if (this.problems.length !== before) return;
    warmPatterns(unit, [base, ...entries.map((e) => e.variant)], (path, code, message) => this.report(i, path, code, message));
    const order = (spec['order'] as number | undefined) ?? 0;
    const policy: CompiledPolicy = {
      ordinal: 0, index: i, kind, name, order, enforcementAction, template: unit, match,
      base, behavior, onNoMatch, entries, anyCache: new Map(), document: this.translation.source(i, doc),
      outcomes: deepFreeze({
        noEntries: { behavior, matched: [], outcome: 'no-entries' as const },
        noMatch: { behavior, matched: [], outcome: `no-match-${onNoMatch}` as const },
      }),
      info: Object.freeze({
        kind, name, order, enforcementAction, template: unit.name,
        parameterSelection: entries.length, validate: Object.freeze(unit.validate.map((r) => r.name)), mutate: Object.freeze(unit.mutate.map((r) => r.name)),
      }),
    };
    if (merge) policy.merge = merge;
    const selectionKey = sharedKey([match, ...entries.map((e) => e.match)]);
    if (selectionKey) policy.memo = new SelectionMemo(selectionKey);
    const sets = this.options.parameterSets?.({ kind, name, document: doc });
    if (sets) policy.parameterSets = sets;
    const view = this.options.inputView?.({ kind, name, document: doc });
    if (view) policy.view = view;
    this.policies.push(policy);
  }

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
  const costBudget = limitOption(options, 'costBudget', DEFAULT_COST_BUDGET, false);
  const limits = {
    violations: limitOption(options, 'maxViolations', DEFAULT_MAX_VIOLATIONS, true),
    messageLength: Math.max(2, limitOption(options, 'maxMessageLength', DEFAULT_MAX_MESSAGE_LENGTH, true)),
  };
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
  // Traces of translated policies name the user's documents (built on the first explained evaluation).
  const translated = loader.translation.documents.length > documents.length ? loader.translation : undefined;
  return new PolicySet(policies, index, { target, dialects: options.dialects ?? [], costBudget, limits, ...(translated ? { translation: translated } : {}) });
}
