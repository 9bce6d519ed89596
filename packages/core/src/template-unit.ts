/**
 * The logic half of a PolicyTemplate or Policy, compiled once and shared by
 * every constraint of the template: the parameters schema, definitions,
 * validate rules (with their message templates) and mutate rules.
 */
import type { ProblemCode } from './errors.js';
import { LogicCompiler, LogicError, type PatternSite } from './logic/compile.js';
import { parameterRead, type ParameterRead } from './logic/reads.js';
import type { Fn } from './logic/scope.js';
import { compilePatch, PatchCompileError, type CompiledPatchOp } from './mutate.js';
import { checkParameterReads } from './parameter-reads.js';
import { compileParametersSchema, type ParametersValidator } from './schema.js';
import { compileTemplate, type CompiledTemplate } from './template.js';
import { escapePointerSegment, isPlainObject, parsePathNotation, type JsonObject } from './util/object.js';

/** Reports a load problem at a JSON pointer of the document being compiled. */
export type Report = (path: string, code: ProblemCode, message: string) => void;

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
  /** The document it was compiled from (its index in the loaded list), for lint findings. */
  origin?: { index: number; object: object };
}

/** Compiles the logic half (schema, definitions, validate, mutate) of a PolicyTemplate or Policy. */
export function compileTemplateUnit(spec: JsonObject, id: { kind: string; name: string }, report: Report): TemplateUnit | undefined {
  let problems = 0;
  const problem: Report = (path, code, message) => {
    problems++;
    report(path, code, message);
  };
  const { kind, name } = id;
  const unit: TemplateUnit = { kind, name, validate: [], mutate: [], patternSites: [] };
  if (spec['parametersSchema'] !== undefined) {
    try {
      unit.validator = compileParametersSchema(spec['parametersSchema'] as object);
    } catch (error) {
      problem('/spec/parametersSchema', 'INVALID_PARAMETERS', `invalid JSON Schema: ${(error as Error).message}`);
    }
  }
  const logic = new LogicCompiler((spec['definitions'] as JsonObject | undefined) ?? {}, '/spec/definitions');
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
    const compiled = compile(rule['rule'], `${where}/rule`);
    const forEach = rule['forEach'] === undefined ? undefined : compile(rule['forEach'], `${where}/forEach`);
    let message: CompiledTemplate | undefined;
    try {
      message = compileTemplate(rule['message'] as string);
      templateReads(message, `${where}/message`, logic.parameterReads);
    } catch (error) {
      problem(`${where}/message`, 'INVALID_TEMPLATE', (error as Error).message);
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
      patchReads(rule['patch'], `${where}/patch`, logic.parameterReads);
    } catch (error) {
      problem(error instanceof PatchCompileError ? error.path : `${where}/patch`, 'INVALID_PATCH', (error as Error).message);
    }
    if (!patch || (rule['when'] !== undefined && !when)) return;
    unit.mutate.push(when ? { name: rule['name'] as string, when, patch } : { name: rule['name'] as string, patch });
  });
  unit.patternSites = logic.patternSites;
  for (const issue of checkParameterReads(spec['parametersSchema'], logic.parameterReads)) problem(issue.at, 'UNKNOWN_PARAMETER', issue.message);
  return problems === 0 ? unit : undefined;
}

/** The `{{parameters.…}}` reads of a message or patch-value template. */
function templateReads(template: CompiledTemplate, at: string, reads: ParameterRead[]): void {
  for (const path of template.paths) {
    const read = parameterRead(path, at);
    if (read) reads.push(read);
  }
}

/** The template reads of every string in a (compiled, so well-formed) patch list. */
function patchReads(value: unknown, at: string, reads: ParameterRead[]): void {
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

