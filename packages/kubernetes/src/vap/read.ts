/**
 * Reading ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding
 * documents with the checks the apiserver makes when they are created
 * (kubernetes `pkg/apis/admissionregistration/validation`), after its
 * defaulting (failurePolicy Fail, matchPolicy Equivalent, empty selectors).
 * CEL expressions and match blocks are checked when they are compiled.
 */
import { validateLabelSelector, type LabelSelector } from '@verdict/core';
import { isObject } from '../read.js';
import { typeOf } from '../suggest.js';
import { counting, FieldReader, type Report } from './fields.js';
import { celIdentifierError, dnsLabelError, dnsSubdomainError, pathSegmentError, qualifiedNameError } from './names.js';
import type { AdmissionPolicy, AuditAnnotation, BindingCommon, NamedExpression, ParamKind, ParamRef, PolicyBinding, PolicyCommon, PolicyValidation, StatusReason, ValidationAction } from './types.js';

/** API group of the policy kinds. */
export const ADMISSION_REGISTRATION = 'admissionregistration.k8s.io';
/** Versions whose ValidatingAdmissionPolicy schema verdict reads (they share the fields it supports). */
export const ADMISSION_REGISTRATION_VERSIONS = ['v1', 'v1beta1', 'v1alpha1'];

const POLICY_SPEC = ['failurePolicy', 'paramKind', 'matchConstraints', 'matchConditions', 'variables', 'validations', 'auditAnnotations'];
const BINDING_SPEC = ['policyName', 'paramRef', 'matchResources', 'validationActions'];
const REASONS: readonly StatusReason[] = ['Invalid', 'Forbidden', 'RequestEntityTooLarge', 'Unauthorized'];
const ACTIONS: readonly ValidationAction[] = ['Deny', 'Warn', 'Audit'];

/**
 * The core enforcement of a binding's validationActions: Deny denies; Warn (without Deny) warns, so
 * reports (`verdict audit`) show its failures as warnings; Audit alone only records. The adapter still
 * answers Warn and Audit in the API server's words from the violations (answer.ts).
 */
export function enforcementOf(actions: readonly ValidationAction[]): 'deny' | 'warn' | 'audit' {
  return actions.includes('Deny') ? 'deny' : actions.includes('Warn') ? 'warn' : 'audit';
}
/** Every action of a binding's validationActions, in core's words and the binding's order (explained traces show them all). */
export function actionsOf(actions: readonly ValidationAction[]): Array<'deny' | 'warn' | 'audit'> {
  return actions.map((a) => (a === 'Deny' ? 'deny' : a === 'Warn' ? 'warn' : 'audit'));
}
const MAX_MATCH_CONDITIONS = 64;
const MAX_AUDIT_ANNOTATIONS = 20;
const MAX_VALUE_EXPRESSION = 5 * 1024;

/** `metadata.name`, checked as a DNS subdomain. */
export function readName(doc: Readonly<Record<string, unknown>>, report: Report): string | undefined {
  const metadata = doc['metadata'];
  if (!isObject(metadata)) {
    report('/metadata', `metadata must be an object with a name (got ${typeOf(metadata)})`);
    return undefined;
  }
  const name = new FieldReader(metadata, '/metadata', report).required('name');
  if (name === undefined) return undefined;
  const error = dnsSubdomainError(name);
  if (error) report('/metadata/name', `metadata.name ${error}`);
  return error ? undefined : name;
}

/** `spec` of a document, as an object. */
export function readSpec(doc: Readonly<Record<string, unknown>>, known: readonly string[], what: string, report: Report): Readonly<Record<string, unknown>> | undefined {
  const spec = doc['spec'];
  if (!isObject(spec)) {
    report('/spec', `spec must be an object (got ${typeOf(spec)})`);
    return undefined;
  }
  new FieldReader(spec, '/spec', report).known(known, `the spec of a ${what}`);
  return spec;
}

/**
 * `spec.matchConditions` or `spec.variables`: named expressions with unique, well-formed names. `apiServer`
 * (default true) adds the API server's limits on matchConditions (qualified names, at most 64); Kyverno's
 * MutatingPolicy stores them unchecked.
 */
export function readNamedExpressions(spec: Readonly<Record<string, unknown>>, key: 'matchConditions' | 'variables', report: Report, apiServer = true): NamedExpression[] {
  const out: NamedExpression[] = [];
  const names = new Set<string>();
  const list = new FieldReader(spec, '/spec', report).list(key);
  if (apiServer && key === 'matchConditions' && list.length > MAX_MATCH_CONDITIONS) report(`/spec/${key}`, `at most ${MAX_MATCH_CONDITIONS} match conditions are allowed (got ${list.length})`);
  list.forEach((item, i) => {
    const at = `/spec/${key}/${i}`;
    const f = new FieldReader(item, at, report).known(['name', 'expression'], `an entry of ${key}`);
    const name = f.required('name');
    const expression = f.required('expression');
    if (name !== undefined) {
      const error = key === 'variables' ? celIdentifierError(name) : apiServer ? qualifiedNameError(name) : undefined;
      if (error) report(`${at}/name`, error);
      else if (names.has(name)) report(`${at}/name`, `duplicate name "${name}" in ${key}`);
      names.add(name);
    }
    if (name !== undefined && expression !== undefined) out.push({ name, expression });
  });
  return out;
}

/**
 * `spec.validations`. `apiServer` (default true) adds the API server's checks of messages (non-empty,
 * single-line, messageExpression non-empty); Kyverno stores them unchecked.
 */
export function readValidations(spec: Readonly<Record<string, unknown>>, report: Report, apiServer = true): PolicyValidation[] {
  return new FieldReader(spec, '/spec', report).list('validations').map((item, i) => {
    const at = `/spec/validations/${i}`;
    const f = new FieldReader(item, at, report).known(['expression', 'message', 'messageExpression', 'reason'], 'a validation');
    const out: PolicyValidation = { expression: f.required('expression') ?? 'false' };
    const message = f.string('message');
    if (message !== undefined && !apiServer) out.message = message;
    else if (message !== undefined) {
      if (message.trim() === '') report(`${at}/message`, 'message must be non-empty if specified');
      else if (/[\n\r]/.test(message.trim())) report(`${at}/message`, 'message must not contain line breaks (use messageExpression for a computed message)');
      else out.message = message;
    }
    const messageExpression = f.string('messageExpression');
    if (messageExpression !== undefined && !apiServer) {
      if (messageExpression.trim() !== '') out.messageExpression = messageExpression;
    } else if (messageExpression !== undefined) {
      if (messageExpression.trim() === '') report(`${at}/messageExpression`, 'messageExpression must be non-empty if specified');
      else out.messageExpression = messageExpression;
    }
    const reason = f.oneOf('reason', REASONS);
    if (reason) out.reason = reason;
    return out;
  });
}

/** `spec.auditAnnotations`: keys unique and, prefixed with the policy name, qualified names. */
export function readAuditAnnotations(spec: Readonly<Record<string, unknown>>, policyName: string, report: Report): AuditAnnotation[] {
  const list = new FieldReader(spec, '/spec', report).list('auditAnnotations');
  if (list.length > MAX_AUDIT_ANNOTATIONS) report('/spec/auditAnnotations', `at most ${MAX_AUDIT_ANNOTATIONS} auditAnnotations are allowed (got ${list.length})`);
  const keys = new Set<string>();
  const out: AuditAnnotation[] = [];
  list.forEach((item, i) => {
    const at = `/spec/auditAnnotations/${i}`;
    const f = new FieldReader(item, at, report).known(['key', 'valueExpression'], 'an audit annotation');
    const key = f.required('key');
    const valueExpression = f.required('valueExpression');
    if (key !== undefined) {
      const error = qualifiedNameError(`${policyName}/${key}`);
      if (error) report(`${at}/key`, `"${policyName}/${key}" (policy name/key) must be a qualified name: ${error}`);
      if (keys.has(key)) report(`${at}/key`, `duplicate audit annotation key "${key}"`);
      keys.add(key);
    }
    if (valueExpression !== undefined && valueExpression.trim().length > MAX_VALUE_EXPRESSION) {
      report(`${at}/valueExpression`, `valueExpression must not exceed ${MAX_VALUE_EXPRESSION} bytes`);
    }
    if (key !== undefined && valueExpression !== undefined) out.push({ key, valueExpression });
  });
  return out;
}

function paramKind(spec: Readonly<Record<string, unknown>>, report: Report): ParamKind | undefined {
  const value = new FieldReader(spec, '/spec', report).object('paramKind');
  if (!value) return undefined;
  const at = '/spec/paramKind';
  const f = new FieldReader(value, at, report).known(['apiVersion', 'kind'], 'paramKind');
  const apiVersion = f.required('apiVersion');
  const kind = f.required('kind');
  if (apiVersion !== undefined) {
    const parts = apiVersion.split('/');
    const [group, version] = parts.length === 1 ? ['', parts[0]!] : [parts[0]!, parts[1] ?? ''];
    if (parts.length > 2) report(`${at}/apiVersion`, `unexpected GroupVersion string "${apiVersion}": expected "group/version" or "version"`);
    else if (version === '') report(`${at}/apiVersion`, `"${apiVersion}": version must be specified`);
    else {
      const error = (group ? dnsSubdomainError(group) : undefined) ?? dnsLabelError(version);
      if (error) report(`${at}/apiVersion`, error);
    }
  }
  if (kind !== undefined) {
    const error = dnsLabelError(kind.toLowerCase());
    if (error) report(`${at}/kind`, `kind may have mixed case, but should otherwise match: ${error}`);
  }
  return apiVersion !== undefined && kind !== undefined ? { apiVersion, kind } : undefined;
}

/**
 * The fields both policy kinds share (failurePolicy, paramKind, matchConstraints, matchConditions, variables);
 * `undefined` without a spec. `report` should count (see `counting`).
 */
export function readPolicyCommon(doc: Readonly<Record<string, unknown>>, document: number, kind: { name: string; spec: readonly string[] }, count: Report): { policy: PolicyCommon; spec: Readonly<Record<string, unknown>> } | undefined {
  const name = readName(doc, count);
  const spec = readSpec(doc, kind.spec, kind.name, count);
  if (!spec) return undefined;
  const f = new FieldReader(spec, '/spec', count);
  const failurePolicy = f.oneOf('failurePolicy', ['Fail', 'Ignore'] as const) ?? 'Fail';
  const paramKindOf = paramKind(spec, count);
  const matchConstraints = f.object('matchConstraints');
  if (!matchConstraints) {
    if (spec['matchConstraints'] === undefined || spec['matchConstraints'] === null) count('/spec/matchConstraints', 'missing required field "matchConstraints" (which requests the policy applies to)');
  } else if (!Array.isArray(matchConstraints['resourceRules']) || matchConstraints['resourceRules'].length === 0) {
    count('/spec/matchConstraints/resourceRules', 'matchConstraints.resourceRules is required and must hold at least one rule');
  }
  const policy: PolicyCommon = {
    name: name ?? '', document, failurePolicy, matchConstraints: matchConstraints ?? {},
    matchConditions: readNamedExpressions(spec, 'matchConditions', count),
    variables: readNamedExpressions(spec, 'variables', count),
  };
  if (paramKindOf) policy.paramKind = paramKindOf;
  return { policy, spec };
}

/** Reads a ValidatingAdmissionPolicy; `undefined` when it has problems (all reported). */
export function readAdmissionPolicy(doc: Readonly<Record<string, unknown>>, document: number, report: Report): AdmissionPolicy | undefined {
  const count = counting(report);
  const common = readPolicyCommon(doc, document, { name: 'ValidatingAdmissionPolicy', spec: POLICY_SPEC }, count);
  if (!common) return undefined;
  const { spec } = common;
  const policy: AdmissionPolicy = {
    ...common.policy,
    validations: readValidations(spec, count),
    auditAnnotations: readAuditAnnotations(spec, common.policy.name, count),
  };
  const written = (key: string) => Array.isArray(spec[key]) && (spec[key] as unknown[]).length > 0;
  if (!written('validations') && !written('auditAnnotations')) count('/spec/validations', 'validations or auditAnnotations must contain at least one item');
  return count.count() === 0 ? policy : undefined;
}

function paramRef(spec: Readonly<Record<string, unknown>>, report: Report): ParamRef | undefined {
  const value = new FieldReader(spec, '/spec', report).object('paramRef');
  if (!value) return undefined;
  const at = '/spec/paramRef';
  const f = new FieldReader(value, at, report).known(['name', 'namespace', 'selector', 'parameterNotFoundAction'], 'paramRef');
  const name = f.string('name');
  const namespace = f.string('namespace');
  const selector = value['selector'];
  if (name) {
    const error = pathSegmentError(name);
    if (error) report(`${at}/name`, error);
    if (selector !== undefined && selector !== null) report(`${at}/name`, 'name and selector are mutually exclusive: give the name of one parameter object, or a selector for several');
  }
  if (selector !== undefined && selector !== null) {
    for (const issue of validateLabelSelector(selector)) report(`${at}/selector${issue.path}`, issue.message);
  }
  if (!name && (selector === undefined || selector === null)) report(at, 'one of name or selector must be specified');
  if (namespace) {
    const error = dnsSubdomainError(namespace);
    if (error) report(`${at}/namespace`, `namespace ${error}`);
  }
  const action = f.oneOf('parameterNotFoundAction', ['Allow', 'Deny'] as const);
  // The API server defaults it to Deny (SetDefaults_ParamRef), so documents may leave it out.
  const ref: ParamRef = { parameterNotFoundAction: action ?? 'Deny' };
  if (name) ref.name = name;
  if (namespace) ref.namespace = namespace;
  if (isObject(selector) || typeof selector === 'string') ref.selector = selector as LabelSelector;
  return ref;
}

function validationActions(spec: Readonly<Record<string, unknown>>, report: Report): ValidationAction[] {
  const at = '/spec/validationActions';
  const value = spec['validationActions'];
  if (!Array.isArray(value) || value.length === 0) {
    report(at, `validationActions must list at least one of Deny, Warn, Audit (got ${Array.isArray(value) ? 'an empty list' : typeOf(value)})`);
    return [];
  }
  const out: ValidationAction[] = [];
  value.forEach((action, i) => {
    if (!(ACTIONS as readonly unknown[]).includes(action)) report(`${at}/${i}`, `validation action must be one of Deny, Warn, Audit (got ${typeof action === 'string' ? `"${action}"` : typeOf(action)})`);
    else if (out.includes(action as ValidationAction)) report(`${at}/${i}`, `duplicate validation action "${String(action)}"`);
    else out.push(action as ValidationAction);
  });
  if (out.includes('Deny') && out.includes('Warn')) {
    report(at, 'must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)');
  }
  return out;
}

/** The fields both binding kinds share (policyName, paramRef, matchResources); `undefined` without a spec. */
export function readBindingCommon(doc: Readonly<Record<string, unknown>>, document: number, kind: { name: string; spec: readonly string[] }, count: Report): { binding: BindingCommon; spec: Readonly<Record<string, unknown>> } | undefined {
  const name = readName(doc, count);
  const spec = readSpec(doc, kind.spec, kind.name, count);
  if (!spec) return undefined;
  const f = new FieldReader(spec, '/spec', count);
  const policyName = f.required('policyName');
  if (policyName !== undefined) {
    const error = dnsSubdomainError(policyName);
    if (error) count('/spec/policyName', `policyName ${error}`);
  }
  const binding: BindingCommon = { name: name ?? '', document, policyName: policyName ?? '' };
  const ref = paramRef(spec, count);
  if (ref) binding.paramRef = ref;
  const matchResources = f.object('matchResources');
  if (matchResources) binding.matchResources = matchResources;
  return { binding, spec };
}

/** Reads a ValidatingAdmissionPolicyBinding; `undefined` when it has problems (all reported). */
export function readPolicyBinding(doc: Readonly<Record<string, unknown>>, document: number, report: Report): PolicyBinding | undefined {
  const count = counting(report);
  const common = readBindingCommon(doc, document, { name: 'ValidatingAdmissionPolicyBinding', spec: BINDING_SPEC }, count);
  if (!common) return undefined;
  const binding: PolicyBinding = { ...common.binding, validationActions: validationActions(common.spec, count) };
  return count.count() === 0 ? binding : undefined;
}
