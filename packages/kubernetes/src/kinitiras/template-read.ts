/**
 * Load-time checks of kinitiras' rule templates (`OverrideRuleTemplate`,
 * `ValidateRuleTemplate`): the enums of their CRDs, and the refusal of HTTP
 * data sources.
 */
import { isObject } from '../read.js';
import { FieldReader, type Report } from '../vap/fields.js';
import { FACTOR, HTTP_REFUSED } from './read.js';

type Json = Readonly<Record<string, unknown>>;

const OVERRIDE_TYPES = ['annotations', 'labels', 'resourcesOversell', 'resources', 'affinity', 'tolerations'] as const;
const CONDS = ['Equal', 'NotEqual', 'Exist', 'NotExist', 'In', 'NotIn', 'Gt', 'Gte', 'Lt', 'Lte'] as const;
const FROM = ['current', 'old', 'k8s', 'owner', 'http'] as const;

/** Checks a `ResourceRefer` (valueRef, dataRef). */
function readRefer(refer: Json, at: string, report: Report): void {
  const f = new FieldReader(refer, at, report).known(['from', 'path', 'k8s', 'http'], 'a resource reference');
  const from = f.oneOf('from', FROM);
  if (refer['from'] === undefined) report(`${at}/from`, 'missing required field "from" (current, old, k8s or owner)');
  f.string('path');
  if (from === 'http' || refer['http'] !== undefined) report(from === 'http' ? `${at}/from` : `${at}/http`, HTTP_REFUSED);
  if (from === 'k8s' && !isObject(refer['k8s'])) report(`${at}/k8s`, 'from: k8s needs k8s (a resource selector: apiVersion, kind, and a name or a labelSelector)');
}

/** Checks a template of kind `override` or `validate`, reporting at `at`. */
export function readTemplate(template: Json, kind: 'override' | 'validate', at: string, report: Report): void {
  if (kind === 'override') {
    const f = new FieldReader(template, at, report).known(['type', 'operation', 'path', 'value', 'valueRef', 'resources', 'resourcesOversell', 'tolerations', 'affinity'], 'an override template');
    f.oneOf('type', OVERRIDE_TYPES);
    f.oneOf('operation', ['add', 'remove', 'replace'] as const);
    if (template['type'] === undefined) report(`${at}/type`, `missing required field "type" (${OVERRIDE_TYPES.join(', ')})`);
    if (template['operation'] === undefined) report(`${at}/operation`, 'missing required field "operation" (add, remove or replace)');
    const ref = f.object('valueRef');
    if (ref) readRefer(ref, `${at}/valueRef`, report);
    const oversell = f.object('resourcesOversell');
    if (oversell) {
      const o = new FieldReader(oversell, `${at}/resourcesOversell`, report).known(['cpuFactor', 'memoryFactor', 'diskFactor'], 'resourcesOversell');
      for (const key of ['cpuFactor', 'memoryFactor', 'diskFactor']) {
        const factor = o.string(key);
        // kinitiras writes the factor into the CUE it renders as it is: only a number keeps that CUE meaningful.
        if (factor !== undefined && factor !== '' && !FACTOR.test(factor)) report(`${at}/resourcesOversell/${key}`, `a factor is a number written as a string, like "0.5" (got ${JSON.stringify(factor)})`);
      }
    }
    return;
  }
  const f = new FieldReader(template, at, report).known(['type', 'condition'], 'a validate template');
  f.oneOf('type', ['condition'] as const);
  if (template['type'] === undefined) report(`${at}/type`, 'missing required field "type" (condition)');
  const condition = f.object('condition');
  if (!condition) return;
  const c = new FieldReader(condition, `${at}/condition`, report).known(['affectMode', 'cond', 'dataRef', 'message', 'value', 'valueRef', 'valueProcess'], 'a condition');
  c.oneOf('affectMode', ['reject', 'allow'] as const);
  c.oneOf('cond', CONDS);
  if (condition['cond'] === undefined) report(`${at}/condition/cond`, `missing required field "cond" (${CONDS.join(', ')})`);
  const dataRef = c.object('dataRef');
  if (dataRef) readRefer(dataRef, `${at}/condition/dataRef`, report);
  // kinitiras renders these templates into CUE that does not compile (or does not render at all), and refuses the policy.
  else report(`${at}/condition/dataRef`, 'missing required field "dataRef" (where the data to check comes from)');
  if (dataRef?.['from'] === 'owner') report(`${at}/condition/dataRef/from`, 'dataRef from: owner is not rendered by kinitiras (only valueRef reads the owner); use from: k8s');
  const valueRef = c.object('valueRef');
  if (valueRef) readRefer(valueRef, `${at}/condition/valueRef`, report);
  const cond = condition['cond'];
  if ((cond === 'In' || cond === 'NotIn') && valueRef) report(`${at}/condition/valueRef`, `cond ${cond} compares with a constant list: use value (stringSlice, integerSlice or floatSlice), not valueRef`);
  const comparing = typeof cond === 'string' && !['Exist', 'NotExist', 'In', 'NotIn'].includes(cond);
  if (comparing && !valueRef && !isObject(condition['value'])) report(`${at}/condition`, `cond ${cond} needs value or valueRef`);
  if (comparing && !valueRef && isObject(condition['value'])) {
    const v = condition['value'];
    const scalar = ['string', 'integer', 'float', 'boolean'].some((k) => v[k] !== undefined && v[k] !== null);
    if (!scalar) report(`${at}/condition/value`, `cond ${cond} compares with one value: use string, integer, float or boolean`);
  }
  const process = c.object('valueProcess');
  if (process) new FieldReader(process, `${at}/condition/valueProcess`, report).known(['operation', 'operationWith'], 'valueProcess').oneOf('operation', ['+', '-', '*', '/'] as const);
}
