/**
 * Reading Kyverno ValidatingPolicy and NamespacedValidatingPolicy documents
 * (`policies.kyverno.io`, kyverno/api `ValidatingPolicySpec`) with the checks
 * Kyverno makes when they are created (its CRD schema and
 * `pkg/cel/policies/vpol/validate.go`), after its defaulting (validationActions
 * `[Deny]`, failurePolicy `Fail`, admission and background enabled). CEL
 * expressions and the match block are checked when they are compiled.
 */
import { isObject } from '../read.js';
import { typeOf } from '../suggest.js';
import { counting, FieldReader, type Report } from '../vap/fields.js';
import { dnsSubdomainError } from '../vap/names.js';
import { readAuditAnnotations, readName, readNamedExpressions, readSpec, readValidations } from '../vap/read.js';
import type { ValidationAction } from '../vap/types.js';
import type { KyvernoPolicy, KyvernoPolicyKind } from './types.js';

/** API group of Kyverno's CEL policies. */
export const KYVERNO_POLICIES = 'policies.kyverno.io';
/** Versions Kyverno serves, per kind (its CRDs). */
export const KYVERNO_VERSIONS: Readonly<Record<KyvernoPolicyKind, readonly string[]>> = {
  ValidatingPolicy: ['v1', 'v1beta1', 'v1alpha1'],
  NamespacedValidatingPolicy: ['v1', 'v1beta1'],
};

const SPEC = ['matchConstraints', 'matchConditions', 'variables', 'validations', 'auditAnnotations', 'failurePolicy', 'validationActions', 'evaluation', 'autogen', 'webhookConfiguration'];
const ACTIONS: readonly ValidationAction[] = ['Deny', 'Warn', 'Audit'];

type Doc = Readonly<Record<string, unknown>>;

function validationActions(spec: Doc, report: Report): ValidationAction[] {
  const at = '/spec/validationActions';
  const value = spec['validationActions'];
  if (value === undefined || value === null) return ['Deny'];
  if (!Array.isArray(value)) {
    report(at, `validationActions must be a list of Deny, Warn, Audit (got ${typeOf(value)})`);
    return [];
  }
  const out: ValidationAction[] = [];
  value.forEach((action, i) => {
    if (!(ACTIONS as readonly unknown[]).includes(action)) report(`${at}/${i}`, `validation action must be one of Deny, Warn, Audit (got ${typeof action === 'string' ? `"${action}"` : typeOf(action)})`);
    else if (out.includes(action as ValidationAction)) report(`${at}/${i}`, `duplicate validation action "${String(action)}" (validationActions is a set)`);
    else out.push(action as ValidationAction);
  });
  // Kyverno's default (ValidatingPolicySpec.ValidationActions): an empty list means Deny.
  return value.length === 0 ? ['Deny'] : out;
}

/** `spec.evaluation.<key>.enabled` (absent: `fallback`). */
export function enabled(block: Doc | undefined, key: string, report: Report, fallback = true): boolean {
  const value = block ? new FieldReader(block, '/spec/evaluation', report).object(key) : undefined;
  if (!value) return fallback;
  const f = new FieldReader(value, `/spec/evaluation/${key}`, report).known(['enabled'], `evaluation.${key}`);
  const flag = f.value['enabled'];
  if (flag !== undefined && flag !== null && typeof flag !== 'boolean') report(`/spec/evaluation/${key}/enabled`, `enabled must be true or false (got ${typeOf(flag)})`);
  return typeof flag === 'boolean' ? flag : fallback;
}

/** `spec.evaluation`: admission and background enabled (default true), mode Kubernetes; `known` adds a kind's own keys. */
export function evaluation(spec: Doc, report: Report, known: readonly string[] = []): { admission: boolean; background: boolean } {
  const block = new FieldReader(spec, '/spec', report).object('evaluation');
  if (block) {
    const f = new FieldReader(block, '/spec/evaluation', report).known(['admission', 'background', 'mode', ...known], 'evaluation');
    const mode = f.string('mode');
    if (mode !== undefined && mode !== '' && mode !== 'Kubernetes') {
      report('/spec/evaluation/mode', mode === 'JSON' || mode === 'HTTP' || mode === 'Envoy'
        ? `evaluation.mode ${mode} is not supported: verdict's Kubernetes adapter evaluates admission requests (mode Kubernetes); write a verdict Policy for other payloads (docs/concepts/documents.md)`
        : `evaluation.mode must be Kubernetes (got "${mode}")`);
    }
  }
  return { admission: enabled(block, 'admission', report), background: enabled(block, 'background', report) };
}

/** `autogen.podControllers.controllers`; `admissionPolicy`: the kind's generated-policy key (read, no effect). */
export function controllers(spec: Doc, report: Report, admissionPolicy = 'validatingAdmissionPolicy'): readonly string[] | undefined {
  const autogen = new FieldReader(spec, '/spec', report).object('autogen');
  if (!autogen) return undefined;
  const f = new FieldReader(autogen, '/spec/autogen', report).known(['podControllers', admissionPolicy], 'autogen');
  f.object(admissionPolicy);
  const pods = f.object('podControllers');
  if (!pods) return undefined;
  new FieldReader(pods, '/spec/autogen/podControllers', report).known(['controllers'], 'autogen.podControllers');
  const list = pods['controllers'];
  if (list === undefined || list === null) return undefined;
  if (!Array.isArray(list) || list.some((c) => typeof c !== 'string')) {
    report('/spec/autogen/podControllers/controllers', `controllers must be a list of strings (got ${typeOf(list)})`);
    return undefined;
  }
  return list as string[];
}

/** The namespace of a namespaced policy: `metadata.namespace`, `default` when absent (as kubectl applies it). */
function namespaceOf(doc: Doc, report: Report): string {
  const metadata = isObject(doc['metadata']) ? doc['metadata'] : {};
  const namespace = new FieldReader(metadata, '/metadata', report).string('namespace');
  if (namespace === undefined || namespace === '') return 'default';
  const error = dnsSubdomainError(namespace);
  if (error) report('/metadata/namespace', `metadata.namespace ${error}`);
  return namespace;
}

/** What every Kyverno CEL policy kind reads first: its name (and namespace), its spec, matchConstraints, webhookConfiguration. */
export interface KyvernoHead {
  name: string;
  namespace?: string;
  spec: Doc;
  fields: FieldReader;
  matchConstraints: Doc;
}

/** Reads a Kyverno policy's head; `undefined` when it has no spec object (reported). `known`: the kind's spec fields. */
export function readKyvernoHead(doc: Doc, kind: { name: string; namespaced: boolean; spec: readonly string[] }, count: Report): KyvernoHead | undefined {
  const name = readName(doc, count);
  const namespace = kind.namespaced ? namespaceOf(doc, count) : undefined;
  const spec = readSpec(doc, kind.spec, kind.name, count);
  if (!spec) return undefined;
  const fields = new FieldReader(spec, '/spec', count);
  const matchConstraints = fields.object('matchConstraints');
  // Kyverno's validate.go: "a matchConstraints with at least one resource rule is required".
  if (!matchConstraints || !Array.isArray(matchConstraints['resourceRules']) || matchConstraints['resourceRules'].length === 0) {
    count('/spec/matchConstraints', 'a matchConstraints with at least one resource rule is required (which requests the policy applies to)');
  }
  const webhook = fields.object('webhookConfiguration');
  if (webhook) new FieldReader(webhook, '/spec/webhookConfiguration', count).known(['timeoutSeconds'], 'webhookConfiguration');
  return { name: name ?? '', spec, fields, matchConstraints: matchConstraints ?? {}, ...(namespace !== undefined ? { namespace } : {}) };
}

/** Reads a ValidatingPolicy or NamespacedValidatingPolicy; `undefined` when it has problems (all reported). */
export function readKyvernoPolicy(doc: Doc, kind: KyvernoPolicyKind, document: number, report: Report): KyvernoPolicy | undefined {
  const count = counting(report);
  const head = readKyvernoHead(doc, { name: kind, namespaced: kind === 'NamespacedValidatingPolicy', spec: SPEC }, count);
  if (!head) return undefined;
  const { name, spec, fields: f } = head;
  const { admission, background } = evaluation(spec, count);
  const policy: KyvernoPolicy = {
    kind, name, document, spec,
    failurePolicy: f.oneOf('failurePolicy', ['Fail', 'Ignore'] as const) ?? 'Fail',
    matchConstraints: head.matchConstraints,
    matchConditions: readNamedExpressions(spec, 'matchConditions', count),
    variables: readNamedExpressions(spec, 'variables', count),
    validations: readValidations(spec, count, false),
    auditAnnotations: readAuditAnnotations(spec, name, count),
    actions: validationActions(spec, count),
    admission, background,
  };
  if (head.namespace !== undefined) policy.namespace = head.namespace;
  const list = controllers(spec, count);
  if (list) policy.controllers = list;
  return count.count() === 0 ? policy : undefined;
}
