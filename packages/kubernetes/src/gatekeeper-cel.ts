/**
 * Gatekeeper ConstraintTemplates with a `K8sNativeValidation` (CEL) code
 * block (gatekeeper `pkg/drivers/k8scel`), read into the same shape as a
 * ValidatingAdmissionPolicy's logic. Gatekeeper evaluates the block with the
 * VAP validator: `params` is the constraint, and two variables come first,
 * `anyObject` (`oldObject` on DELETE) and `params` (the constraint's
 * `spec.parameters`). Rego blocks are not run.
 */
import { isObject } from './read.js';
import { typeOf } from './suggest.js';
import { counting, FieldReader, type Report } from './vap/fields.js';
import { celIdentifierError, dnsSubdomainError, qualifiedNameError } from './vap/names.js';
import type { NamedExpression, PolicyValidation } from './vap/types.js';

/** Gatekeeper's engine name for CEL code. */
export const CEL_ENGINE = 'K8sNativeValidation';
const RESERVED_PREFIX = 'gatekeeper_internal_';
const TARGET = 'admission.k8s.gatekeeper.sh';
const SOURCE_KEYS = ['validations', 'variables', 'matchCondition', 'matchConditions', 'failurePolicy', 'generateVAP'];

/** The variables Gatekeeper defines before a template's own (`pkg/drivers/k8scel/transform`). */
export const GATEKEEPER_VARIABLES: readonly NamedExpression[] = Object.freeze([
  { name: 'anyObject', expression: 'has(request.operation) && request.operation == "DELETE" && object == null ? oldObject : object' },
  { name: 'params', expression: '!has(params.spec) ? null : !has(params.spec.parameters) ? null: params.spec.parameters' },
]);

/** A ConstraintTemplate's CEL logic. */
export interface CelConstraintTemplate {
  name: string;
  document: number;
  /** The constraint kind it defines (`spec.crd.spec.names.kind`). */
  kind: string;
  parametersSchema?: Readonly<Record<string, unknown>>;
  /** JSON pointer of the CEL `source` block in the document. */
  source: string;
  failurePolicy: 'Fail' | 'Ignore';
  /** `matchCondition` (Gatekeeper's field name) or `matchConditions`, whichever the block uses. */
  matchConditionsKey: 'matchCondition' | 'matchConditions';
  matchConditions: NamedExpression[];
  variables: NamedExpression[];
  validations: PolicyValidation[];
}

/** Whether a document is a Gatekeeper ConstraintTemplate. */
export function isConstraintTemplate(doc: unknown): doc is Readonly<Record<string, unknown>> {
  return isObject(doc) && doc['kind'] === 'ConstraintTemplate' && typeof doc['apiVersion'] === 'string' && doc['apiVersion'].startsWith('templates.gatekeeper.sh/');
}

/** The index of the CEL code block of a ConstraintTemplate's first target, or -1 when it has none (Rego only). */
export function celCodeIndex(doc: Readonly<Record<string, unknown>>): number {
  const spec = doc['spec'];
  const targets = isObject(spec) ? spec['targets'] : undefined;
  const code = Array.isArray(targets) && isObject(targets[0]) ? targets[0]['code'] : undefined;
  return Array.isArray(code) ? code.findIndex((c) => isObject(c) && c['engine'] === CEL_ENGINE) : -1;
}

function named(f: FieldReader, key: string, report: Report, what: 'variables' | 'matchCondition'): NamedExpression[] {
  const names = new Set<string>();
  const out: NamedExpression[] = [];
  f.list(key).forEach((item, i) => {
    const at = `${f.at}/${key}/${i}`;
    const entry = new FieldReader(item, at, report).known(['name', 'expression'], `an entry of ${key}`);
    const name = entry.required('name');
    const expression = entry.required('expression');
    if (name === undefined || expression === undefined) return;
    const error = what === 'variables' ? celIdentifierError(name) : qualifiedNameError(name);
    if (error) report(`${at}/name`, error);
    else if (name.startsWith(RESERVED_PREFIX)) report(`${at}/name`, `"${name}" cannot be used: names starting with "${RESERVED_PREFIX}" are reserved by Gatekeeper`);
    else if (what === 'variables' && (name === 'params' || name === 'anyObject')) report(`${at}/name`, `"${name}" is a reserved variable name: Gatekeeper defines variables.${name} itself`);
    else if (names.has(name)) report(`${at}/name`, `duplicate name "${name}" in ${key}`);
    else {
      names.add(name);
      out.push({ name, expression });
    }
  });
  return out;
}

/** Reads a ConstraintTemplate with a CEL block (`code` is its index); `undefined` when it has problems (all reported). */
export function readCelTemplate(doc: Readonly<Record<string, unknown>>, document: number, code: number, report: Report): CelConstraintTemplate | undefined {
  const count = counting(report);
  const metadata = isObject(doc['metadata']) ? doc['metadata'] : {};
  const name = new FieldReader(metadata, '/metadata', count).required('name');
  const spec = doc['spec'] as Readonly<Record<string, unknown>>;
  const crd = isObject(spec['crd']) && isObject(spec['crd']['spec']) ? spec['crd']['spec'] : {};
  const names = isObject(crd['names']) ? crd['names'] : {};
  const kind = new FieldReader(names, '/spec/crd/spec/names', count).required('kind');
  if (kind !== undefined && name !== undefined && name !== kind.toLowerCase()) {
    count('/metadata/name', `the name of a ConstraintTemplate must be the lowercase of its kind: expected "${kind.toLowerCase()}" (got "${name}")`);
  } else if (name !== undefined) {
    const error = dnsSubdomainError(name);
    if (error) count('/metadata/name', `metadata.name ${error}`);
  }
  const targets = spec['targets'] as unknown[];
  if (targets.length !== 1) count('/spec/targets', `a ConstraintTemplate must have exactly one target (got ${targets.length})`);
  const target = targets[0] as Readonly<Record<string, unknown>>;
  if (target['target'] !== TARGET) count('/spec/targets/0/target', `the target must be "${TARGET}" (got ${typeof target['target'] === 'string' ? `"${target['target']}"` : typeOf(target['target'])})`);
  const at = `/spec/targets/0/code/${code}/source`;
  const raw = (target['code'] as unknown[])[code] as Readonly<Record<string, unknown>>;
  const source = raw['source'];
  if (!isObject(source)) {
    count(at, `the ${CEL_ENGINE} source must be an object with validations (got ${typeOf(source)})`);
    return undefined;
  }
  const f = new FieldReader(source, at, count).known(SOURCE_KEYS, `a ${CEL_ENGINE} source`);
  if (source['matchCondition'] !== undefined && source['matchConditions'] !== undefined) {
    count(`${at}/matchConditions`, 'give matchCondition (Gatekeeper\'s field name) or matchConditions, not both');
  }
  const matchConditionsKey = source['matchConditions'] !== undefined ? 'matchConditions' : 'matchCondition';
  const validations = f.list('validations').map((item, i): PolicyValidation => {
    const v = new FieldReader(item, `${at}/validations/${i}`, count).known(['expression', 'message', 'messageExpression'], 'a validation');
    const out: PolicyValidation = { expression: v.required('expression') ?? 'false' };
    const message = v.string('message');
    const messageExpression = v.string('messageExpression');
    if (message) out.message = message;
    if (messageExpression) out.messageExpression = messageExpression;
    return out;
  });
  const template: CelConstraintTemplate = {
    name: name ?? '', document, kind: kind ?? '', source: at,
    failurePolicy: f.oneOf('failurePolicy', ['Fail', 'Ignore'] as const) ?? 'Fail',
    matchConditionsKey,
    matchConditions: named(f, matchConditionsKey, count, 'matchCondition'),
    variables: named(f, 'variables', count, 'variables'),
    validations,
  };
  const validation = isObject(crd['validation']) ? crd['validation'] : undefined;
  const schema = validation?.['openAPIV3Schema'];
  if (isObject(schema)) template.parametersSchema = schema;
  return count.count() === 0 ? template : undefined;
}
