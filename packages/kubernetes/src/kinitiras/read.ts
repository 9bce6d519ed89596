/**
 * Reading kinitiras' OverridePolicy, ClusterOverridePolicy and
 * ClusterValidatePolicy documents with the checks their CRDs and kinitiras'
 * own policy webhook (k-cloud-labs/pkg utils/interrupter) make when they are
 * applied; everything verdict cannot run (HTTP data sources) is refused with
 * the reason.
 */
import { labelKeyError, labelValueError, validateLabelSelector } from '@verdict/core';
import { isObject } from '../read.js';
import { typeOf } from '../suggest.js';
import { counting, FieldReader, type Report } from '../vap/fields.js';
import { cueSyntaxError } from './cue-syntax.js';
import { readTemplate } from './template-read.js';
import {
  KINITIRAS_API_VERSION, type FieldRequirement, type KinitirasKind, type KinitirasPolicy, type OriginOverrider, type OverrideRule,
  type PlaintextOverrider, type ResourceSelector, type ValidateRule,
} from './types.js';

type Json = Readonly<Record<string, unknown>>;

const KINDS: readonly KinitirasKind[] = ['OverridePolicy', 'ClusterOverridePolicy', 'ClusterValidatePolicy'];
const OPERATIONS = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT', '*'];
const ORIGIN_TYPES = ['annotations', 'labels', 'nodeSelector', 'hostNetwork', 'schedulerName', 'resourceRequirements', 'resourceOversell', 'affinity', 'tolerations', 'topologySpreadConstraints'] as const;
const ORIGIN_FIELDS = ['type', 'operation', 'replace', 'resourcesOversell', 'containerCount', 'resourceRequirements', 'tolerations', 'affinity', 'topologySpreadConstraints', 'schedulerName', 'hostNetwork', 'nodeSelector', 'annotations', 'labels'];
const FIELD_OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist'];

/** Said of every HTTP data source: verdict never calls the network while it decides. */
export const HTTP_REFUSED = 'HTTP data sources are not supported: verdict decides without calling the network (docs/kinitiras.md#what-is-refused); read the data from the cluster (from: k8s) or put it in the policy';

/** The kinitiras kind of `doc`, if it is one of the three. */
export function kinitirasKindOf(doc: unknown): KinitirasKind | undefined {
  if (!isObject(doc) || doc['apiVersion'] !== KINITIRAS_API_VERSION) return undefined;
  return KINDS.find((k) => k === doc['kind']);
}

/** Whether `doc` claims the kinitiras API group with a kind or version verdict does not read. */
export function kinitirasUnknown(doc: unknown): string | undefined {
  if (!isObject(doc) || typeof doc['apiVersion'] !== 'string' || !doc['apiVersion'].startsWith('policy.kcloudlabs.io/')) return undefined;
  if (kinitirasKindOf(doc)) return undefined;
  if (doc['apiVersion'] !== KINITIRAS_API_VERSION) return `apiVersion "${doc['apiVersion']}" is not a kinitiras version verdict reads (${KINITIRAS_API_VERSION})`;
  return `kind ${typeof doc['kind'] === 'string' ? `"${doc['kind']}"` : typeOf(doc['kind'])} is not a kinitiras policy kind (${KINDS.join(', ')})`;
}

function stringMap(value: unknown, at: string, report: Report): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (!isObject(value)) {
    report(at, `must be a map of strings (got ${typeOf(value)})`);
    return {};
  }
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(value)) {
    if (typeof v === 'string') out[k] = v;
    else report(`${at}/${k}`, `must be a string (got ${typeOf(v)})`);
  }
  return out;
}

function stringList(value: unknown, at: string, report: Report): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
    report(at, `must be a list of strings (got ${typeOf(value)})`);
    return [];
  }
  return value as string[];
}

/** Reads a `ResourceSelector` at `at`. */
export function readSelector(item: Json, at: string, report: Report): ResourceSelector {
  const f = new FieldReader(item, at, report).known(['apiVersion', 'kind', 'namespace', 'name', 'labelSelector', 'fieldSelector'], 'a resourceSelector');
  const selector: ResourceSelector = { apiVersion: f.required('apiVersion') ?? '', kind: f.required('kind') ?? '', namespace: f.string('namespace') ?? '', name: f.string('name') ?? '' };
  const labels = f.object('labelSelector');
  if (labels) {
    for (const issue of validateLabelSelector(labels)) report(`${at}/labelSelector${issue.path}`, issue.message);
    selector.labelSelector = labels;
  }
  const fields = f.object('fieldSelector');
  if (fields) {
    const ff = new FieldReader(fields, `${at}/fieldSelector`, report).known(['matchFields', 'matchExpressions'], 'a fieldSelector');
    const matchExpressions: FieldRequirement[] = ff.list('matchExpressions').map((e, i) => {
      const where = `${at}/fieldSelector/matchExpressions/${i}`;
      const ef = new FieldReader(e, where, report).known(['field', 'operator', 'value'], 'a field selector requirement');
      // An operator other than these four makes the selector never match (kinitiras: "unknown operator"), as upstream.
      return { field: ef.required('field') ?? '', operator: ef.string('operator') ?? '', value: stringList(e['value'], `${where}/value`, report) };
    });
    selector.fieldSelector = { matchFields: stringMap(fields['matchFields'], `${at}/fieldSelector/matchFields`, report), matchExpressions };
  }
  return selector;
}

function operations(value: unknown, at: string, report: Report): string[] {
  const list = stringList(value, at, report);
  list.forEach((op, i) => {
    if (!OPERATIONS.includes(op)) report(`${at}/${i}`, `targetOperations must be CREATE, UPDATE, DELETE, CONNECT or * (got "${op}")`);
  });
  return list;
}

function cueSource(value: unknown, at: string, report: Report): string {
  if (value === undefined || value === null || value === '') return '';
  if (typeof value !== 'string') {
    report(at, `must be CUE source text (got ${typeOf(value)})`);
    return '';
  }
  const error = cueSyntaxError(value);
  if (error) report(at, `CUE syntax error: ${error}`);
  // kinitiras' CUE runs an HTTP task found at processing.http (utils/cue/cue.go): it calls the network.
  if (/\bprocessing\b[\s\S]*\bhttp\s*:/.test(value) || /\bprocessing\.http\b/.test(value)) report(at, `a CUE program with processing.http: ${HTTP_REFUSED}`);
  return value;
}

function readPlaintext(list: readonly Json[], at: string, report: Report): PlaintextOverrider[] {
  return list.flatMap((item, i) => {
    const where = `${at}/${i}`;
    const f = new FieldReader(item, where, report).known(['path', 'op', 'value'], 'a plaintext overrider');
    const path = f.string('path');
    if (path === undefined) report(`${where}/path`, 'missing required field "path"');
    const op = f.oneOf('op', ['add', 'remove', 'replace'] as const);
    if (item['op'] === undefined) report(`${where}/op`, 'missing required field "op" (add, remove or replace)');
    if (path === undefined || !op) return [];
    // An absent value marshals as null (apiextensionsv1.JSON), which is what kinitiras patches with.
    return [{ path, op, value: item['value'] === undefined ? null : item['value'] }];
  });
}

function readOrigin(list: readonly Json[], at: string, report: Report): OriginOverrider[] {
  return list.flatMap((item, i) => {
    const where = `${at}/${i}`;
    const f = new FieldReader(item, where, report).known(ORIGIN_FIELDS, 'an origin overrider');
    const type = f.oneOf('type', ORIGIN_TYPES);
    const operation = f.oneOf('operation', ['add', 'remove', 'replace'] as const);
    if (item['type'] === undefined) report(`${where}/type`, 'missing required field "type"');
    if (item['operation'] === undefined) report(`${where}/operation`, 'missing required field "operation" (add, remove or replace)');
    const count = item['containerCount'] ?? 0;
    if (typeof count !== 'number' || !Number.isInteger(count) || count < 0) report(`${where}/containerCount`, `containerCount must be a non-negative integer (got ${typeOf(count)})`);
    if (item['resourcesOversell'] !== undefined) readOversellFactors(item['resourcesOversell'], `${where}/resourcesOversell`, report);
    if (Array.isArray(item['tolerations'])) item['tolerations'].forEach((t, j) => checkToleration(t, `${where}/tolerations/${j}`, report));
    if (!type || !operation) return [];
    return [{ type, operation, replace: item['replace'] === true, containerCount: typeof count === 'number' ? count : 0, raw: item }];
  });
}

const EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

/**
 * The interrupter's validateTolerations (utils/interrupter/overridepolicy_interrupter.go), which refuses an
 * origin overrider's tolerations as the API server refuses a Pod's: a qualified key, Exists for an empty key,
 * tolerationSeconds only with NoExecute, a label value with Equal and none with Exists, a known effect.
 */
function checkToleration(t: unknown, at: string, report: Report): void {
  if (!isObject(t)) {
    report(at, `a toleration must be an object (got ${typeOf(t)})`);
    return;
  }
  const text = (k: string) => (typeof t[k] === 'string' ? t[k] : '');
  const key = text('key');
  const operator = text('operator');
  const value = text('value');
  const effect = text('effect');
  const keyError = key === '' ? undefined : labelKeyError(key);
  if (keyError) report(`${at}/key`, keyError);
  if (key === '' && operator !== 'Exists') report(`${at}/operator`, 'operator must be Exists when `key` is empty, which means "match all values and all keys"');
  if (t['tolerationSeconds'] !== undefined && t['tolerationSeconds'] !== null && effect !== 'NoExecute') report(`${at}/effect`, 'effect must be \'NoExecute\' when `tolerationSeconds` is set');
  if (operator === 'Equal' || operator === '') {
    const valueError = labelValueError(value);
    if (valueError) report(`${at}/value`, valueError);
  } else if (operator === 'Exists') {
    if (value !== '') report(`${at}/value`, 'value must be empty when `operator` is \'Exists\'');
  } else report(`${at}/operator`, `unsupported operator ${JSON.stringify(operator)} (Equal or Exists)`);
  if (effect !== '' && !EFFECTS.includes(effect)) report(`${at}/effect`, `unsupported effect ${JSON.stringify(effect)} (${EFFECTS.join(', ')})`);
}

/** A Float64 factor (a string strconv.ParseFloat reads; kinitiras dereferences its result unchecked). */
export const FACTOR = /^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/;

/** `resourcesOversell` of an origin overrider: `{requests|limits: {resource: "factor"}}`. */
function readOversellFactors(value: unknown, at: string, report: Report): void {
  if (!isObject(value)) {
    report(at, `must be a map of requests and limits to factors (got ${typeOf(value)})`);
    return;
  }
  for (const [part, factors] of Object.entries(value)) {
    if (!isObject(factors)) {
      report(`${at}/${part}`, `must be a map of resource names to factors (got ${typeOf(factors)})`);
      continue;
    }
    for (const [name, factor] of Object.entries(factors)) {
      if (typeof factor !== 'string' || !FACTOR.test(factor)) report(`${at}/${part}/${name}`, `a factor is a number written as a string, like "0.5" (got ${JSON.stringify(factor)})`);
    }
  }
}

/** The interrupter's check: a ResourceRequirements and a ResourceOversell overrider of one rule may not name the same container. */
function originConflict(origin: readonly OriginOverrider[], at: string, report: Report): void {
  const requirements = new Set(origin.filter((o) => o.type === 'resourceRequirements').map((o) => o.containerCount));
  if (origin.some((o) => o.type === 'resourceOversell' && requirements.has(o.containerCount))) {
    report(at, 'in the same rule there cannot be a resourceRequirements and a resourceOversell overrider with the same containerCount (kinitiras refuses the policy)');
  }
}

function readOverrideRules(spec: Json, report: Report): OverrideRule[] {
  const f = new FieldReader(spec, '/spec', report);
  if (spec['overrideRules'] === undefined || spec['overrideRules'] === null) report('/spec/overrideRules', 'missing required field "overrideRules"');
  return f.list('overrideRules').map((rule, i) => {
    const at = `/spec/overrideRules/${i}`;
    const rf = new FieldReader(rule, at, report).known(['targetOperations', 'overriders'], 'an override rule');
    const o = rf.object('overriders') ?? {};
    if (rule['overriders'] === undefined) report(`${at}/overriders`, 'missing required field "overriders"');
    const of = new FieldReader(o, `${at}/overriders`, report).known(['plaintext', 'cue', 'template', 'renderedCue', 'origin'], 'overriders');
    const template = of.object('template');
    if (template) readTemplate(template, 'override', `${at}/overriders/template`, report);
    const originList = o['origin'] === undefined || o['origin'] === null ? undefined : readOrigin(of.list('origin'), `${at}/overriders/origin`, report);
    if (originList) originConflict(originList, `${at}/overriders/origin`, report);
    return {
      operations: operations(rule['targetOperations'], `${at}/targetOperations`, report),
      overriders: {
        plaintext: readPlaintext(of.list('plaintext'), `${at}/overriders/plaintext`, report),
        cue: cueSource(o['cue'], `${at}/overriders/cue`, report),
        renderedCue: cueSource(o['renderedCue'], `${at}/overriders/renderedCue`, report),
        ...(template ? { template } : {}),
        ...(originList ? { origin: originList } : {}),
      },
    };
  });
}

function readValidateRules(spec: Json, report: Report): ValidateRule[] {
  const f = new FieldReader(spec, '/spec', report);
  if (spec['validateRules'] === undefined || spec['validateRules'] === null) report('/spec/validateRules', 'missing required field "validateRules"');
  return f.list('validateRules').map((rule, i) => {
    const at = `/spec/validateRules/${i}`;
    const rf = new FieldReader(rule, at, report).known(['targetOperations', 'cue', 'template', 'renderedCue'], 'a validate rule');
    const template = rf.object('template');
    if (template) readTemplate(template, 'validate', `${at}/template`, report);
    return {
      operations: operations(rule['targetOperations'], `${at}/targetOperations`, report),
      cue: cueSource(rule['cue'], `${at}/cue`, report),
      renderedCue: cueSource(rule['renderedCue'], `${at}/renderedCue`, report),
      ...(template ? { template } : {}),
    };
  });
}

/** Reads one kinitiras policy; `undefined` when it has problems (all reported). */
export function readKinitirasPolicy(doc: Json, document: number, report: Report): KinitirasPolicy | undefined {
  const count = counting(report);
  const kind = kinitirasKindOf(doc)!;
  new FieldReader(doc, '', count).known(['apiVersion', 'kind', 'metadata', 'spec', 'status'], kind);
  const metadata = isObject(doc['metadata']) ? doc['metadata'] : {};
  const name = new FieldReader(metadata, '/metadata', count).required('name') ?? '';
  const namespace = kind === 'OverridePolicy' ? (typeof metadata['namespace'] === 'string' && metadata['namespace'] !== '' ? metadata['namespace'] : 'default') : '';
  const spec = isObject(doc['spec']) ? doc['spec'] : undefined;
  if (!spec) {
    count('/spec', `missing required field "spec" (${kind === 'ClusterValidatePolicy' ? 'validateRules' : 'overrideRules'})`);
    return undefined;
  }
  const validate = kind === 'ClusterValidatePolicy';
  new FieldReader(spec, '/spec', count).known(['resourceSelectors', validate ? 'validateRules' : 'overrideRules'], `the spec of a ${kind}`);
  const selectors = new FieldReader(spec, '/spec', count).list('resourceSelectors').map((s, i) => readSelector(s, `/spec/resourceSelectors/${i}`, count));
  const policy: KinitirasPolicy = {
    kind, name, namespace, document, selectors,
    overrideRules: validate ? [] : readOverrideRules(spec, count),
    validateRules: validate ? readValidateRules(spec, count) : [],
  };
  return count.count() === 0 ? policy : undefined;
}

/** Whether `operator` is one a field selector requirement knows (others never match, as in kinitiras). */
export function knownFieldOperator(operator: string): boolean {
  return FIELD_OPERATORS.includes(operator);
}
