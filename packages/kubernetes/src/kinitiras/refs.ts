/**
 * Other cluster objects a template reads (`valueRef`/`dataRef` with
 * `from: k8s` or `from: owner`; k-cloud-labs/pkg utils/cue/params.go), found
 * in the inventory verdict already has (`createAdmissionWebhook({inventory})`,
 * a suite case's `inventory:`, the objects `verdict audit` reads) instead of
 * the cluster's listers.
 */
import { matchLabelSelector } from '@verdict/core';
import type { Inventory } from '../inventory.js';
import { isObject, metadataOf, str } from '../read.js';
import type { ResourceRefer, ResourceSelector } from './types.js';

type Json = Record<string, unknown>;

/** The objects of one apiVersion and kind in a namespace (`""`: cluster-scoped), by name. */
function objectsOf(inventory: Inventory | undefined, apiVersion: string, kind: string, namespace: string): Readonly<Record<string, Json>> {
  const tree = namespace === '' ? inventory?.cluster : inventory?.namespace[namespace];
  return tree?.[apiVersion]?.[kind] ?? {};
}

/** `unstructured.NestedString` of a dot path: `undefined` when absent; throws when a step or the value has another type. */
function nestedString(object: Json, path: string): string | undefined {
  let current: unknown = object;
  for (const step of path.split('.')) {
    if (!isObject(current)) throw new Error(`get reference value from current object got error,err=.${path} accessor error: ${JSON.stringify(current)} is of the type ${typeof current}, expected map[string]interface{}`);
    if (!Object.prototype.hasOwnProperty.call(current, step)) return undefined;
    current = current[step];
  }
  if (typeof current !== 'string') throw new Error(`get reference value from current object got error,err=.${path} accessor error: ${JSON.stringify(current)} is of the type ${typeof current}, expected string`);
  return current;
}

/** kinitiras' `parseAndGetRefValue`: the first `{{path}}` of `key` replaced by that string of the object; `undefined` when it is absent. */
export function refValue(key: string, object: Json): string | undefined {
  if (key.includes('{{}}')) throw new Error('invalid ref key');
  const m = /\{\{(.*?)\}\}/.exec(key);
  if (!m || m[1] === '') return key;
  const value = nestedString(object, m[1]!);
  return value === undefined ? undefined : key.replace(`{{${m[1]}}}`, value);
}

function notFound(kind: string, name: string): Error {
  return new Error(`${kind.toLowerCase()} "${name}" not found`);
}

/** kinitiras' `getObject`: by name (templated), or the first object its labelSelector matches; `{}` when a reference is absent. */
function getObject(inventory: Inventory | undefined, object: Json, rs: ResourceSelector): Json | null {
  const namespace = refValue(rs.namespace, object);
  if (rs.name !== '') {
    const name = refValue(rs.name, object);
    if (name === undefined || namespace === undefined) return {};
    const found = objectsOf(inventory, rs.apiVersion, rs.kind, namespace)[name];
    if (!found) throw notFound(rs.kind, name);
    return found;
  }
  if (!rs.labelSelector) return null;
  const selector: Json = {};
  const labels = isObject(rs.labelSelector['matchLabels']) ? rs.labelSelector['matchLabels'] : {};
  const matchLabels: Record<string, string> = {};
  for (const [k, v] of Object.entries(labels)) {
    const value = refValue(str(v), object);
    if (value === undefined) return {};
    matchLabels[k] = value;
  }
  selector['matchLabels'] = matchLabels;
  const expressions = Array.isArray(rs.labelSelector['matchExpressions']) ? rs.labelSelector['matchExpressions'] : [];
  const matchExpressions: Json[] = [];
  for (const e of expressions) {
    if (!isObject(e)) continue;
    const values: string[] = [];
    for (const v of Array.isArray(e['values']) ? e['values'] : []) {
      const value = refValue(str(v), object);
      if (value === undefined) return {};
      values.push(value);
    }
    matchExpressions.push({ key: e['key'], operator: e['operator'], values });
  }
  selector['matchExpressions'] = matchExpressions;
  if (namespace === undefined) return {};
  // Without a namespace kinitiras lists every namespace (the lister itself); a lister lists in no particular
  // order, so verdict takes the first by namespace, then name, and the answer is stable.
  const namespaces = namespace === '' ? ['', ...Object.keys(inventory?.namespace ?? {}).sort()] : [namespace];
  for (const ns of namespaces) {
    const candidates = objectsOf(inventory, rs.apiVersion, rs.kind, ns);
    for (const name of Object.keys(candidates).sort()) {
      const labelsOf = metadataOf(candidates[name])?.['labels'];
      if (matchLabelSelector(selector as Parameters<typeof matchLabelSelector>[0], (isObject(labelsOf) ? labelsOf : {}) as Record<string, string>)) return candidates[name]!;
    }
  }
  return null;
}

/** kinitiras' `getOwnerReference`: the first owner reference, in the object's namespace. */
function getOwner(inventory: Inventory | undefined, object: Json): Json {
  const refs = metadataOf(object)?.['ownerReferences'];
  const first = Array.isArray(refs) ? refs[0] : undefined;
  if (!isObject(first)) throw new Error('object has no owner reference');
  const name = str(first['name']);
  if (name === '') return {};
  const found = objectsOf(inventory, str(first['apiVersion']), str(first['kind']), str(metadataOf(object)?.['namespace']))[name];
  if (!found) throw notFound(str(first['kind']), name);
  return found;
}

/** The object a `k8s` or `owner` reference reads (`null` when a label selector matches none). */
export function referencedObject(refer: ResourceRefer, object: Json, inventory: Inventory | undefined): Json | null {
  return refer.from === 'owner' ? getOwner(inventory, object) : getObject(inventory, object, refer.k8s!);
}
