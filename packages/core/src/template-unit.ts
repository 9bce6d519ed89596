/**
 * The logic half of a PolicyTemplate or Policy, compiled once and shared by
 * every constraint of the template: the parameters schema, definitions,
 * validate rules (with their message templates) and mutate rules.
 */
import { unitCel, type CelOptions, type CelParameterRead, type UnitCel } from './languages/cel-context.js';
import { celCondition, celEvaluator, celFn, type CelContext } from './languages/cel-rule.js';
import type { Report } from './languages/report.js';
import { LogicCompiler, LogicError, type CelHook, type PatternSite } from './logic/compile.js';
import { inputRead, parameterRead, type ParameterRead } from './logic/reads.js';
import type { Fn } from './logic/scope.js';
import { compilePatch, jsonPatchOperations, PatchCompileError, type CompiledPatchOp, type PatchType } from './mutate.js';
import { checkParameterReads } from './parameter-reads.js';
import { checkInputReads, type InputShape } from './input-reads.js';
import { compileParametersSchema, type ParametersValidator } from './schema.js';
import { compileTemplate, type CompiledTemplate } from './template.js';
import { escapePointerSegment, isPlainObject, parsePathNotation, type JsonObject } from './util/object.js';
import { didYouMean } from './util/suggest.js';


export interface CompiledValidate {
  name: string;
  forEach?: Fn;
  /** Input path of the forEach list, when it is a plain `var` path (for violation paths). */
  forEachPath?: string;
  rule: Fn;
  message: CompiledTemplate;
  /** Index in `spec.validate`. */
  index: number;
  /** The CEL expression's text (for the "failed expression: …" message). */
  expression?: string;
  /** Whether `message` was written (a CEL validation may leave it out). */
  hasMessage: boolean;
  /** With a profile's `literalMessages`: `message` as written, never a template. */
  literalMessage?: string;
  /** CEL `messageExpression`: a raw CEL value (a string when it works). */
  messageExpression?: Fn;
  reason?: string;
}

/** A named CEL condition (`spec.matchConditions`). */
export interface CompiledCondition {
  name: string;
  expression: string;
  test: Fn;
}

/** A CEL audit annotation (`spec.auditAnnotations`): the value is a string, or null to leave the key out. */
export interface CompiledAnnotation {
  key: string;
  value: Fn;
}

export interface CompiledMutate {
  name: string;
  when?: Fn;
  /** The written patch (empty for a computed one). */
  patch: CompiledPatchOp[];
  /** A computed patch: a CEL expression (its JSON value) and the patch type that turns it into operations. */
  computed?: { value: Fn; patchType: PatchType };
}

export interface TemplateUnit {
  kind: string;
  name: string;
  validator?: ParametersValidator;
  /** The `parametersSchema` the validator was compiled from (its declared names check parameter keys). */
  parametersSchema?: unknown;
  validate: CompiledValidate[];
  mutate: CompiledMutate[];
  patternSites: PatternSite[];
  /** The document it was compiled from (its index in the loaded list), for lint findings. */
  origin?: { index: number; object: object };
  matchConditions: CompiledCondition[];
  annotations: CompiledAnnotation[];
  /** `Ignore`: run-time errors are reported but never deny. */
  failurePolicy: 'Fail' | 'Ignore';
  /** `IfNeeded`: the mutate rules run once more when a later policy changed the target after them. */
  reinvocation: 'Never' | 'IfNeeded';
  /** `policy`: the mutate rules apply together or not at all (the first error undoes the earlier ones); `rule` (default): each rule alone. */
  mutationUnit: 'rule' | 'policy';
  /** The CEL context (for constraints' `when` selectors), and parameter paths CEL expressions read. */
  cel: { context: CelContext; hook: CelHook; parameterReads: CelParameterRead[] };
}

/** Where a template unit comes from, and the CEL settings of the load. */
export interface UnitSource {
  kind: string;
  name: string;
  document: object;
  cel?: CelOptions;
  /** Patch types of computed mutations besides the built-in `JSONPatch` (see `CompileOptions.patchTypes`). */
  patchTypes?: Readonly<Record<string, PatchType>>;
  /** The adapter's input shape, when the document is the user's own (see `CompileOptions.inputShape`). */
  inputShape?: InputShape;
}

/** Compiles the logic half (schema, definitions, validate, mutate) of a PolicyTemplate or Policy. */
export function compileTemplateUnit(spec: JsonObject, id: UnitSource, report: Report): TemplateUnit | undefined {
  let problems = 0;
  const problem: Report = (path, code, message) => {
    problems++;
    report(path, code, message);
  };
  const { kind, name } = id;
  const cel = unitCel(spec, { kind, name, document: id.document }, id.cel, problem);
  const unit: TemplateUnit = {
    kind, name, validate: [], mutate: [], patternSites: [], matchConditions: [], annotations: [],
    failurePolicy: spec['failurePolicy'] === 'Ignore' ? 'Ignore' : 'Fail',
    reinvocation: spec['reinvocationPolicy'] === 'IfNeeded' ? 'IfNeeded' : 'Never',
    mutationUnit: spec['mutationUnit'] === 'policy' ? 'policy' : 'rule',
    cel: { context: cel.context, hook: cel.hook, parameterReads: cel.parameterReads },
  };
  if (spec['parametersSchema'] !== undefined) {
    try {
      unit.validator = compileParametersSchema(spec['parametersSchema'] as object);
      unit.parametersSchema = spec['parametersSchema'];
    } catch (error) {
      problem('/spec/parametersSchema', 'INVALID_PARAMETERS', `invalid JSON Schema: ${(error as Error).message}`);
    }
  }
  const logic = new LogicCompiler((spec['definitions'] as JsonObject | undefined) ?? {}, '/spec/definitions');
  logic.cel = cel.hook;
  const compile = (node: unknown, where: string): Fn | undefined => {
    try {
      return logic.compile(node, 'root', where);
    } catch (error) {
      problem(error instanceof LogicError ? error.path : where, 'INVALID_RULE', (error as Error).message);
      return undefined;
    }
  };
  const names = new Set<string>();
  const unique = (ruleName: string, where: string) => {
    if (names.has(ruleName)) problem(where, 'DUPLICATE', `rule name "${ruleName}" is used twice; rule names must be unique within a template`);
    names.add(ruleName);
  };
  ((spec['validate'] as JsonObject[] | undefined) ?? []).forEach((rule, r) => {
    const where = `/spec/validate/${r}`;
    unique(rule['name'] as string, `${where}/name`);
    const expression = rule['expression'] as string | undefined;
    let compiled: Fn | undefined;
    if (expression !== undefined) {
      const c = cel.compile(expression, `${where}/expression`, 'bool');
      compiled = c && celCondition(cel.context, c);
    } else compiled = compile(rule['rule'], `${where}/rule`);
    const forEach = rule['forEach'] === undefined ? undefined : compile(rule['forEach'], `${where}/forEach`);
    let message: CompiledTemplate | undefined;
    let literalMessage: string | undefined;
    try {
      const literal = cel.context.profile?.literalMessages === true;
      message = compileTemplate(literal ? '' : ((rule['message'] as string | undefined) ?? ''));
      if (literal && typeof rule['message'] === 'string') literalMessage = rule['message'];
      templateReads(message, `${where}/message`, logic);
    } catch (error) {
      problem(`${where}/message`, 'INVALID_TEMPLATE', (error as Error).message);
    }
    let messageExpression: Fn | undefined;
    if (rule['messageExpression'] !== undefined) {
      const c = cel.compile(rule['messageExpression'], `${where}/messageExpression`, 'string');
      if (!c) return;
      messageExpression = celEvaluator(cel.context, c);
    }
    if (!compiled || !message || (rule['forEach'] !== undefined && !forEach)) return;
    const entry: CompiledValidate = { name: rule['name'] as string, rule: compiled, message, index: r, hasMessage: typeof rule['message'] === 'string' && rule['message'] !== '' };
    if (expression !== undefined) entry.expression = expression;
    if (literalMessage !== undefined) entry.literalMessage = literalMessage;
    if (messageExpression) entry.messageExpression = messageExpression;
    if (typeof rule['reason'] === 'string') entry.reason = rule['reason'];
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
    if (rule['expression'] !== undefined) {
      const computed = computedPatch(rule, where, { cel, source: id, problem });
      if (!computed || (rule['when'] !== undefined && !when)) return;
      unit.mutate.push({ name: rule['name'] as string, ...(when ? { when } : {}), patch: [], computed });
      return;
    }
    let patch: CompiledPatchOp[] | undefined;
    try {
      patch = compilePatch(rule['patch'] as unknown[], `${where}/patch`);
      patchReads(rule['patch'], `${where}/patch`, logic);
    } catch (error) {
      problem(error instanceof PatchCompileError ? error.path : `${where}/patch`, 'INVALID_PATCH', (error as Error).message);
    }
    if (!patch || (rule['when'] !== undefined && !when)) return;
    unit.mutate.push(when ? { name: rule['name'] as string, when, patch } : { name: rule['name'] as string, patch });
  });
  ((spec['matchConditions'] as JsonObject[] | undefined) ?? []).forEach((condition, i) => {
    const c = cel.compile(condition['expression'], `/spec/matchConditions/${i}/expression`, 'bool');
    if (c) unit.matchConditions.push({ name: condition['name'] as string, expression: c.expression, test: celCondition(cel.context, c) });
  });
  ((spec['auditAnnotations'] as JsonObject[] | undefined) ?? []).forEach((annotation, i) => {
    const c = cel.compile(annotation['valueExpression'], `/spec/auditAnnotations/${i}/valueExpression`);
    if (c) unit.annotations.push({ key: annotation['key'] as string, value: celEvaluator(cel.context, c) });
  });
  unit.patternSites = logic.patternSites;
  if (!cel.context.profile) logic.parameterReads.push(...cel.parameterReads);
  for (const issue of checkParameterReads(spec['parametersSchema'], logic.parameterReads)) problem(issue.at, 'UNKNOWN_PARAMETER', issue.message);
  for (const issue of checkInputReads(id.inputShape, logic.inputReads)) problem(issue.at, 'UNKNOWN_INPUT_PATH', issue.message);
  return problems === 0 ? unit : undefined;
}

/** A mutate rule's `expression` (CEL) with its `patchType` (default `JSONPatch`); `undefined` after reporting a problem. */
function computedPatch(rule: JsonObject, where: string, at: { cel: UnitCel; source: UnitSource; problem: Report }): CompiledMutate['computed'] {
  const { cel, source, problem } = at;
  const name = (rule['patchType'] as string | undefined) ?? 'JSONPatch';
  const patchType = source.patchTypes?.[name] ?? (name === 'JSONPatch' ? jsonPatchOperations : undefined);
  if (!patchType) {
    const known = ['JSONPatch', ...Object.keys(source.patchTypes ?? {}).filter((k) => k !== 'JSONPatch')];
    problem(`${where}/patchType`, 'INVALID_PATCH', `unknown patchType "${name}"${didYouMean(name, known)} (known: ${known.join(', ')})`);
    return undefined;
  }
  const c = cel.compile(rule['expression'], `${where}/expression`);
  return c && { value: celFn(cel.context, c), patchType };
}

/** The reads of a message or patch-value template: `{{parameters.…}}` and, for the input shape, the others. */
function templateReads(template: CompiledTemplate, at: string, reads: { parameterReads: ParameterRead[]; inputReads: ParameterRead[] }): void {
  for (const path of template.paths) {
    const read = parameterRead(path, at);
    if (read) reads.parameterReads.push(read);
    const input = read ? undefined : inputRead(path, at);
    if (input) reads.inputReads.push(input);
  }
}

/** The template reads of every string in a (compiled, so well-formed) patch list. */
function patchReads(value: unknown, at: string, reads: { parameterReads: ParameterRead[]; inputReads: ParameterRead[] }): void {
  if (typeof value === 'string') {
    if (value.includes('{{')) templateReads(compileTemplate(value), at, reads);
  } else if (Array.isArray(value)) value.forEach((v, i) => patchReads(v, `${at}/${i}`, reads));
  else if (isPlainObject(value)) for (const [k, v] of Object.entries(value)) patchReads(v, `${at}/${escapePointerSegment(k)}`, reads);
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

