/**
 * Reading MutatingAdmissionPolicy and MutatingAdmissionPolicyBinding documents
 * with the checks the API server makes when they are created, on top of the
 * ones both policy kinds share (vap/read.ts).
 */
import { counting, FieldReader, type Report } from '../vap/fields.js';
import { readBindingCommon, readPolicyCommon } from '../vap/read.js';
import type { Mutation, MutatingBinding, MutatingPolicy } from './types.js';

const POLICY_SPEC = ['failurePolicy', 'paramKind', 'matchConstraints', 'matchConditions', 'variables', 'mutations', 'reinvocationPolicy'];
const BINDING_SPEC = ['policyName', 'paramRef', 'matchResources'];
const PATCH_TYPES = ['JSONPatch', 'ApplyConfiguration'] as const;
/** The field holding each patch type's expression. */
export const EXPRESSION_FIELD = { JSONPatch: 'jsonPatch', ApplyConfiguration: 'applyConfiguration' } as const;
const MAX_EXPRESSION = 5 * 1024;

/** Reads `spec.mutations` (shared with Kyverno's MutatingPolicy, whose CRD sets no length limit: `maxLength` Infinity). */
export function readMutations(spec: Readonly<Record<string, unknown>>, report: Report, maxLength = MAX_EXPRESSION): Mutation[] {
  const list = new FieldReader(spec, '/spec', report).list('mutations');
  if (list.length === 0) report('/spec/mutations', 'mutations must contain at least one item');
  return list.flatMap((item, i): Mutation[] => {
    const at = `/spec/mutations/${i}`;
    const f = new FieldReader(item, at, report).known(['patchType', 'jsonPatch', 'applyConfiguration'], 'a mutation');
    const patchType = f.oneOf('patchType', PATCH_TYPES);
    if (item['patchType'] === undefined || item['patchType'] === null) report(`${at}/patchType`, 'missing required field "patchType" (JSONPatch or ApplyConfiguration)');
    if (!patchType) return [];
    const field = EXPRESSION_FIELD[patchType];
    const other = EXPRESSION_FIELD[patchType === 'JSONPatch' ? 'ApplyConfiguration' : 'JSONPatch'];
    if (item[other] !== undefined && item[other] !== null) report(`${at}/${other}`, `${other} must not be set when patchType is ${patchType}`);
    const block = f.object(field);
    if (!block) {
      if (item[field] === undefined || item[field] === null) report(`${at}/${field}`, `${field} is required when patchType is ${patchType}`);
      return [];
    }
    const expression = new FieldReader(block, `${at}/${field}`, report).known(['expression'], field).required('expression');
    if (expression === undefined) return [];
    if (expression.length > maxLength) report(`${at}/${field}/expression`, `expression must not exceed ${maxLength} characters`);
    return [{ patchType, expression }];
  });
}

/** Reads a MutatingAdmissionPolicy; `undefined` when it has problems (all reported). */
export function readMutatingPolicy(doc: Readonly<Record<string, unknown>>, document: number, report: Report): MutatingPolicy | undefined {
  const count = counting(report);
  const common = readPolicyCommon(doc, document, { name: 'MutatingAdmissionPolicy', spec: POLICY_SPEC }, count);
  if (!common) return undefined;
  const reinvocationPolicy = new FieldReader(common.spec, '/spec', count).oneOf('reinvocationPolicy', ['Never', 'IfNeeded'] as const) ?? 'Never';
  const policy: MutatingPolicy = { ...common.policy, mutations: readMutations(common.spec, count), reinvocationPolicy };
  return count.count() === 0 ? policy : undefined;
}

/** Reads a MutatingAdmissionPolicyBinding; `undefined` when it has problems (all reported). */
export function readMutatingBinding(doc: Readonly<Record<string, unknown>>, document: number, report: Report): MutatingBinding | undefined {
  const count = counting(report);
  const common = readBindingCommon(doc, document, { name: 'MutatingAdmissionPolicyBinding', spec: BINDING_SPEC }, count);
  return common && count.count() === 0 ? common.binding : undefined;
}
