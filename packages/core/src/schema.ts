/**
 * JSON Schema validation with ajv: the shipped document schema
 * (`@verdict/core/schema/policy.schema.json`) and templates' `parametersSchema`.
 * Validators are compiled once per process and shared.
 */
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import schemaJson from '../schema/policy.schema.json';
import { describeType, escapePointerSegment, preview } from './util/object.js';
import { didYouMean } from './util/suggest.js';

/** A JSON Schema document (draft-07). */
export interface JsonSchemaDocument {
  readonly $schema: string;
  readonly $id: string;
  readonly definitions: Readonly<Record<string, object>>;
  readonly [keyword: string]: unknown;
}

/**
 * The JSON Schema (draft-07) of verdict policy documents, also published as
 * `@verdict/core/schema/policy.schema.json` for editors (`# yaml-language-server: $schema=…`).
 */
export const documentSchema: JsonSchemaDocument = schemaJson;

export interface SchemaIssue {
  /** JSON pointer inside the validated value. */
  path: string;
  message: string;
}

let documentAjv: Ajv | undefined;
const documentValidators = new Map<string, ValidateFunction>();

export type DocumentShape = 'PolicyTemplate' | 'Policy' | 'Constraint';

/** Validates a document against one definition of the shipped schema. */
export function validateDocumentShape(shape: DocumentShape, document: unknown): SchemaIssue[] {
  let validate = documentValidators.get(shape);
  if (!validate) {
    documentAjv ??= new Ajv({ allErrors: true, strict: false, logger: false, validateFormats: false, verbose: true });
    if (!documentAjv.getSchema(documentSchema.$id)) documentAjv.addSchema(documentSchema);
    validate = documentAjv.getSchema(`${documentSchema.$id}#/definitions/${shape}`)!;
    documentValidators.set(shape, validate);
  }
  return validate(document) ? [] : toIssues(validate.errors ?? [], document);
}

let parametersAjv: Ajv | undefined;
const parameterValidators = new Map<string, ValidateFunction>();

/** A compiled `parametersSchema`: applies schema defaults (as Gatekeeper does) and reports issues. */
export interface ParametersValidator {
  /** Validates (and fills defaults into) `value` in place. */
  (value: unknown): SchemaIssue[];
}

/**
 * Compiles a template's `parametersSchema` once per distinct schema (shared by
 * every constraint of the template and across policy sets). Throws an `Error`
 * with ajv's reason when the schema itself is invalid.
 */
export function compileParametersSchema(schema: object): ParametersValidator {
  const key = JSON.stringify(schema);
  let validate = parameterValidators.get(key);
  if (!validate) {
    parametersAjv ??= new Ajv({ allErrors: true, strict: false, logger: false, validateFormats: false, useDefaults: true, verbose: true });
    validate = parametersAjv.compile(schema);
    if (parameterValidators.size > 1000) parameterValidators.clear();
    parameterValidators.set(key, validate);
  }
  const v = validate;
  return (value) => (v(value) ? [] : toIssues(v.errors ?? [], value));
}

function valueAt(root: unknown, pointer: string): unknown {
  let cur = root;
  for (const seg of pointer.split('/').slice(1)) {
    const key = seg.replace(/~1/g, '/').replace(/~0/g, '~');
    cur = cur !== null && typeof cur === 'object' ? (cur as Record<string, unknown>)[key] : undefined;
  }
  return cur;
}

function allowedKeys(error: ErrorObject): string[] {
  const props = (error.parentSchema as { properties?: Record<string, unknown> } | undefined)?.properties;
  return props ? Object.keys(props) : [];
}

/** Turns ajv errors into one readable issue each, deduplicated. */
function toIssues(errors: readonly ErrorObject[], root: unknown): SchemaIssue[] {
  const out: SchemaIssue[] = [];
  const seen = new Set<string>();
  const alternatives = requiredAlternatives(errors, root);
  for (const error of errors) {
    if (error.keyword === 'if' || error.keyword === 'allOf') continue;
    const issue = alternatives.get(error) ?? toIssue(error, root);
    const key = `${issue.path}\u0000${issue.message}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push(issue);
    }
  }
  // A oneOf failure repeats what its branches said; keep it only when nothing more specific exists at that path.
  return out.filter((issue) => !issue.message.startsWith('must match exactly one') || !out.some((o) => o !== issue && o.path.startsWith(issue.path)));
}

const BRANCH_REQUIRED = /^(.*\/(?:oneOf|anyOf))\/(\d+)\/required$/;

/**
 * `required` errors from the branches of one oneOf/anyOf (a validation needs
 * `rule` and `message`, or `expression`) become one issue: the missing fields of
 * the branch the value is closest to (it has the most of that branch's required
 * fields), or every branch's when none is closest.
 */
function requiredAlternatives(errors: readonly ErrorObject[], root: unknown): Map<ErrorObject, SchemaIssue> {
  const groups = new Map<string, Map<string, ErrorObject[]>>();
  for (const error of errors) {
    const m = error.keyword === 'required' ? BRANCH_REQUIRED.exec(error.schemaPath) : null;
    if (!m) continue;
    const key = `${error.instancePath}\u0000${m[1]}`;
    const branches = groups.get(key) ?? new Map<string, ErrorObject[]>();
    groups.set(key, branches.set(m[2]!, [...(branches.get(m[2]!) ?? []), error]));
  }
  const out = new Map<ErrorObject, SchemaIssue>();
  for (const branches of groups.values()) {
    if (branches.size < 2) continue;
    const first = [...branches.values()][0]![0]!;
    const value = valueAt(root, first.instancePath);
    const present = (error: ErrorObject) => ((error.schema as string[] | undefined) ?? []).filter((field) => value !== null && typeof value === 'object' && field in value).length;
    const ranked = [...branches.values()].map((list) => ({ missing: list.map((e) => `"${String((e.params as { missingProperty?: unknown }).missingProperty)}"`), present: present(list[0]!) }));
    const best = Math.max(...ranked.map((r) => r.present));
    const closest = ranked.filter((r) => r.present === best);
    const shown = best > 0 && closest.length === 1 ? closest : ranked;
    const several = shown.some((r) => r.missing.length > 1);
    const message = `missing required field${several ? 's' : ''} ${shown.map((r) => r.missing.join(' and ')).join(several ? ', or ' : ' or ')}`;
    for (const list of branches.values()) for (const error of list) out.set(error, { path: first.instancePath, message });
  }
  return out;
}

function toIssue(error: ErrorObject, root: unknown): SchemaIssue {
  const path = error.instancePath;
  const actual = valueAt(root, path);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return { path, message: `missing required field "${String(params['missingProperty'])}"` };
    case 'additionalProperties': {
      const extra = String(params['additionalProperty']);
      const allowed = allowedKeys(error);
      return {
        path: `${path}/${escapePointerSegment(extra)}`,
        message: `unknown field "${extra}"${didYouMean(extra, allowed)}${allowed.length && allowed.length <= 14 ? ` (allowed: ${allowed.join(', ')})` : ''}`,
      };
    }
    case 'enum': {
      const allowed = (params['allowedValues'] as unknown[]).map(String);
      return { path, message: `must be one of ${allowed.join(', ')} (got ${preview(actual)})${typeof actual === 'string' ? didYouMean(actual, allowed) : ''}` };
    }
    case 'const':
      return { path, message: `must be ${JSON.stringify(params['allowedValue'])} (got ${preview(actual)})` };
    case 'type':
      return { path, message: `must be ${article(String(params['type']))} (got ${describeType(actual)} ${preview(actual, 40)})` };
    case 'pattern':
      return { path, message: `${preview(actual)} does not match the pattern ${String(params['pattern'])}` };
    default:
      return { path, message: `${error.message ?? 'is invalid'}${actual === undefined ? '' : ` (got ${preview(actual, 40)})`}` };
  }
}

function article(type: string): string {
  const name = type.replace(/,/g, ' or ');
  return /^[aeiou]/.test(name) ? `an ${name}` : `a ${name}`;
}
