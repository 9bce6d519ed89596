/**
 * kinitiras' matching as a core match dialect (k-cloud-labs/pkg
 * utils/selector.go, overridemanager, validatemanager): a `ResourceSelector`
 * (`kinitirasSelector`) and the rule's gate (`kinitiras`: its
 * targetOperations, and which object the phase reads).
 *
 * The object is the one kinitiras' webhook decodes: `object`, or `oldObject`
 * on DELETE; the mutating webhook fills an object's missing namespace from
 * the request, the validating one does not.
 */
import { matchLabelSelector, type DialectContext, type MatchDialect, type Selector } from '@verdict/core';
import { isObject, metadataOf, str } from '../read.js';
import { knownFieldOperator, readSelector } from './read.js';
import type { ResourceSelector } from './types.js';

type Json = Record<string, unknown>;

/** Which webhook reads the object: `mutate` fills a missing namespace from the request. */
export type Phase = 'mutate' | 'validate';

/** The object kinitiras' webhook decodes for this input: `object`, or `oldObject` on DELETE. */
export function decodedObject(input: unknown): Json | undefined {
  if (!isObject(input)) return undefined;
  const object = input['operation'] === 'DELETE' ? input['oldObject'] : input['object'];
  return isObject(object) ? object : undefined;
}

/** The object's namespace as the phase's webhook sees it. */
export function namespaceOf(input: unknown, object: Json | undefined, phase: Phase): string {
  const own = str(metadataOf(object)?.['namespace']);
  if (own !== '' || phase === 'validate' || !isObject(input)) return own;
  return str(input['namespace']);
}

/**
 * `unstructured.NestedString` of kinitiras' field path (`metadata.annotations.<key>` takes the rest of the
 * path as one key): `error` when a step is not a map or the value is not a string.
 */
export function fieldValue(object: Json, field: string): { found: boolean; value: string; error: boolean } {
  const at = field.indexOf('.annotations.');
  const path = at === -1 ? field.split('.') : [...field.slice(0, at).split('.'), 'annotations', field.slice(at + 13)];
  let current: unknown = object;
  for (const step of path) {
    if (!isObject(current)) return { found: false, value: '', error: true };
    if (!Object.prototype.hasOwnProperty.call(current, step)) return { found: false, value: '', error: false };
    current = current[step];
  }
  return typeof current === 'string' ? { found: true, value: current, error: false } : { found: false, value: '', error: true };
}

/** A field selector (`FieldSelector.MatchObject`): every matchFields entry, then every expression; an error never matches. */
function fieldsMatch(object: Json, selector: NonNullable<ResourceSelector['fieldSelector']>): boolean {
  for (const [field, wanted] of Object.entries(selector.matchFields)) {
    const got = fieldValue(object, field);
    if (got.error || !got.found || got.value !== wanted) return false;
  }
  for (const r of selector.matchExpressions) {
    const got = fieldValue(object, r.field);
    if (got.error || !knownFieldOperator(r.operator)) return false;
    const listed = r.value.includes(got.value);
    const ok = r.operator === 'Exists' ? got.found
      : r.operator === 'DoesNotExist' ? !got.found
        : r.operator === 'In' ? got.found && listed
          : !listed; // NotIn: a missing field reads as "", as in kinitiras
    if (!ok) return false;
  }
  return true;
}

/** `ResourceMatches`: apiVersion and kind exactly, the namespace when set, then the name alone or the field and label selectors. */
function resourceMatches(object: Json | undefined, namespace: string, rs: ResourceSelector): boolean {
  if (!object) return false;
  if (str(object['apiVersion']) !== rs.apiVersion || str(object['kind']) !== rs.kind) return false;
  if (rs.namespace !== '' && namespace !== rs.namespace) return false;
  if (rs.name !== '') return str(metadataOf(object)?.['name']) === rs.name;
  if (rs.fieldSelector && !fieldsMatch(object, rs.fieldSelector)) return false;
  if (rs.labelSelector) {
    const labels = metadataOf(object)?.['labels'];
    return matchLabelSelector(rs.labelSelector as Parameters<typeof matchLabelSelector>[0], (isObject(labels) ? labels : {}) as Record<string, string>);
  }
  return true;
}

/** What a selector requires, for traces. */
function describeSelector(rs: ResourceSelector): string {
  const parts = [`apiVersion ${rs.apiVersion}`, `kind ${rs.kind}`];
  if (rs.namespace) parts.push(`namespace ${rs.namespace}`);
  if (rs.name) parts.push(`name ${rs.name} (name wins: label and field selectors are ignored)`);
  else {
    if (rs.fieldSelector) parts.push(`fieldSelector ${JSON.stringify(rs.fieldSelector)}`);
    if (rs.labelSelector) parts.push(`labelSelector ${JSON.stringify(rs.labelSelector)}`);
  }
  return parts.join(', ');
}

function gate(block: Readonly<Record<string, unknown>>, ctx: DialectContext): Selector {
  const spec = block['kinitiras'];
  if (!isObject(spec)) {
    ctx.problem('/kinitiras', 'must be an object');
    return false;
  }
  const operations = Array.isArray(spec['operations']) ? (spec['operations'] as string[]) : [];
  const phase: Phase = spec['phase'] === 'validate' ? 'validate' : 'mutate';
  const namespaced = spec['namespaced'] === true;
  const parts: Selector[] = [];
  // CONNECT: kinitiras' webhooks answer 400 "unsupported operation" before any policy.
  parts.push({ test: (input) => isObject(input) && input['operation'] !== 'CONNECT' && decodedObject(input) !== undefined, where: '/kinitiras', describe: 'an object kinitiras decodes (CREATE, UPDATE or DELETE)' });
  // Empty targetOperations: every operation; otherwise exact membership ("*" is not special, as in util.Exists).
  if (operations.length > 0) parts.push({ test: (input) => isObject(input) && operations.includes(str(input['operation'])), where: '/kinitiras/operations', describe: `operation in (${operations.join(', ')})` });
  if (namespaced) parts.push({ test: (input) => namespaceOf(input, decodedObject(input), phase) !== '', where: '/kinitiras/namespaced', describe: 'a namespaced object (OverridePolicies apply only to those)' });
  return parts.length === 1 ? parts[0]! : { all: parts };
}

function selector(block: Readonly<Record<string, unknown>>, ctx: DialectContext): Selector {
  const raw = block['kinitirasSelector'];
  if (!isObject(raw)) {
    ctx.problem('/kinitirasSelector', 'must be a ResourceSelector object');
    return false;
  }
  const phase: Phase = raw['phase'] === 'validate' ? 'validate' : 'mutate';
  const { phase: _phase, ...fields } = raw;
  const rs = readSelector(fields, '/kinitirasSelector', (path, message) => ctx.problem(path, message));
  return {
    test: (input) => {
      const object = decodedObject(input);
      return resourceMatches(object, namespaceOf(input, object, phase), rs);
    },
    where: '/kinitirasSelector',
    describe: describeSelector(rs),
  };
}

/**
 * The kinitiras match dialect: `kinitiras: {operations, phase, namespaced}` (a rule's targetOperations, and
 * whether only namespaced objects count) and `kinitirasSelector: <ResourceSelector> & {phase}`.
 */
export const kinitirasDialect: MatchDialect = Object.freeze({
  name: 'kinitiras',
  keys: Object.freeze(['kinitiras', 'kinitirasSelector']),
  compile(block: Readonly<Record<string, unknown>>, ctx: DialectContext): Selector {
    const parts: Selector[] = [];
    if (block['kinitiras'] !== undefined) parts.push(gate(block, ctx));
    if (block['kinitirasSelector'] !== undefined) parts.push(selector(block, ctx));
    return parts.length === 1 ? parts[0]! : { all: parts };
  },
});
