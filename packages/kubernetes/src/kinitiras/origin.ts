/**
 * kinitiras' `origin` overriders (k-cloud-labs/pkg utils/origin): each typed
 * field becomes one `replace` operation computed from the object as it is,
 * for Pods (`/spec/...`) and Deployments (`/spec/template/spec/...`).
 * Values are the policy's own JSON; a field the policy leaves out is `null`,
 * as kinitiras marshals an unset map, list or pointer.
 */
import { formatQuantity, parseResourceQuantity, Quantity, scaledValue, type ParsedQuantity, type PatchOperation, type QuantityFormat } from '@verdict/core';
import { isObject } from '../read.js';
import type { OriginOverrider } from './types.js';

type Json = Record<string, unknown>;

const UNSUPPORTED_OPERATOR = 'unsupported operator type error';
const UNSUPPORTED_KIND = 'unsupported kind type error';

/** `/spec/<field>` of a Pod, `/spec/template/spec/<field>` of a Deployment; other kinds are an error. */
function podSpecPath(object: Json, field: string): string {
  if (object['kind'] === 'Pod') return `/spec/${field}`;
  if (object['kind'] === 'Deployment') return `/spec/template/spec/${field}`;
  throw new Error(UNSUPPORTED_KIND);
}

function podSpec(object: Json): Json | undefined {
  const spec = object['spec'];
  if (!isObject(spec)) return undefined;
  if (object['kind'] === 'Pod') return spec;
  const template = spec['template'];
  return isObject(template) && isObject(template['spec']) ? template['spec'] : undefined;
}

/** `unstructured.NestedStringMap`: `undefined` when absent; an error when a value is not a string. */
function stringMap(value: unknown, what: string): Record<string, string> | undefined {
  if (value === undefined) return undefined;
  if (!isObject(value)) throw new Error(`get ${what} error: value is of the type ${Array.isArray(value) ? 'array' : typeof value}, expected map`);
  for (const v of Object.values(value)) if (typeof v !== 'string') throw new Error(`get ${what} error: value is not a string`);
  return value as Record<string, string>;
}

/** Maps (annotations, labels, nodeSelector): replace whole, merge (add, replace) or delete keys (remove). */
function mergeMap(current: Record<string, string> | undefined, given: unknown, o: OriginOverrider): unknown {
  const wanted = isObject(given) ? (given as Record<string, string>) : undefined;
  if (o.replace) return wanted ?? null;
  if (o.operation === 'remove') {
    if (!current) return null;
    const out = { ...current };
    for (const key of Object.keys(wanted ?? {})) delete out[key];
    return out;
  }
  if (!current) return wanted ?? null;
  return { ...current, ...wanted };
}

/** A toleration's identity, as kinitiras' tolerationToString (key, operator, value, effect). */
function tolerationKey(t: unknown): string {
  const x = isObject(t) ? t : {};
  const s = (k: string) => (typeof x[k] === 'string' ? x[k] : '');
  return JSON.stringify([s('key'), s('operator'), s('value'), s('effect')]);
}

function tolerations(object: Json, o: OriginOverrider): unknown {
  const list = podSpec(object)?.['tolerations'];
  const current = Array.isArray(list) ? list : [];
  const given = Array.isArray(o.raw['tolerations']) ? (o.raw['tolerations'] as unknown[]) : undefined;
  if (o.replace || (o.operation !== 'remove' && current.length === 0)) return given ?? null;
  if (o.operation === 'remove' && current.length === 0) return null;
  const have = new Set(current.map(tolerationKey));
  const out: unknown[] = [];
  if (o.operation === 'remove') {
    const drop = new Set((given ?? []).map(tolerationKey).filter((k) => have.has(k)));
    for (const t of current) if (!drop.has(tolerationKey(t))) out.push(t);
  } else {
    const kept = new Set<string>();
    for (const t of given ?? []) {
      if (have.has(tolerationKey(t))) kept.add(tolerationKey(t));
      out.push(t);
    }
    for (const t of current) if (!kept.has(tolerationKey(t))) out.push(t);
  }
  return out.length === 0 ? null : out;
}

const CPU = 'cpu';
const BYTES = new Set(['memory', 'storage', 'ephemeral-storage']);

/** A container's `resources` as corev1.ResourceRequirements reads it: every quantity parsed (an error when one is not). */
function readRequirements(resources: unknown, what: string): Record<'limits' | 'requests', Map<string, ParsedQuantity>> {
  const out = { limits: new Map<string, ParsedQuantity>(), requests: new Map<string, ParsedQuantity>() };
  if (!isObject(resources)) return out;
  for (const part of ['limits', 'requests'] as const) {
    const list = resources[part];
    if (!isObject(list)) continue;
    for (const [name, raw] of Object.entries(list)) {
      // A quantity is a JSON string or number (resource.Quantity.UnmarshalJSON).
      if (typeof raw !== 'string' && typeof raw !== 'number') throw new Error(`${what} error: quantities must be strings or numbers (${part}.${name})`);
      try {
        out[part].set(name, parseResourceQuantity(String(raw).trim()));
      } catch (e) {
        throw new Error(`${what} error: ${(e as Error).message} (${part}.${name})`);
      }
    }
  }
  return out;
}

/** A quantity made by resource.NewMilliQuantity or NewQuantity: written in its canonical form. */
function made(value: Quantity, format: QuantityFormat): ParsedQuantity {
  return { value, format, text: formatQuantity(value, format) };
}

/**
 * kinitiras' ResourceOversell (utils/origin/resourceoversell.go): the container's requests and limits with
 * cpu rescaled in millicores (`int64(milli * factor)`, DecimalSI) and memory, storage and ephemeral-storage
 * in bytes (`int64(bytes * factor)`, BinarySI); a zero or absent quantity is left alone. The whole
 * ResourceRequirements is written back, every quantity in resource.Quantity's JSON form.
 */
function resourceOversell(object: Json, o: OriginOverrider): PatchOperation {
  if (o.operation !== 'replace') throw new Error(UNSUPPORTED_OPERATOR);
  const pod = object['kind'] === 'Pod';
  const path = podSpecPath(object, `containers/${o.containerCount}/resources`);
  const what = pod ? 'get spec.containers resources' : 'get spec.template.spec.containers resources';
  const list = podSpec(object)?.['containers'];
  const containers = Array.isArray(list) ? list : [];
  if (containers.length === 0) throw new Error(pod ? 'containers not found in pod spec' : 'containers not found in deployment template pod spec');
  if (containers.length <= o.containerCount) throw new Error('containerCount cannot be greater than the number of containers in the pod');
  const container: unknown = containers[o.containerCount];
  const current = readRequirements(isObject(container) ? container['resources'] : undefined, what);
  const factors = isObject(o.raw['resourcesOversell']) ? o.raw['resourcesOversell'] : {};
  for (const part of ['requests', 'limits'] as const) {
    const wanted = isObject(factors[part]) ? factors[part] : {};
    for (const [name, text] of Object.entries(wanted)) {
      const factor = Number(text);
      const q = current[part].get(name);
      if (name === CPU) {
        const milli = q ? scaledValue(q.value, -3) : 0n;
        if (milli === 0n) continue;
        // float64(milli) * factor, truncated by int64() as Go converts a float.
        const scaled = BigInt(Math.trunc(Number(milli) * factor));
        current[part].set(name, made(new Quantity(scaled, 3), 'DecimalSI'));
      } else if (BYTES.has(name)) {
        const bytes = q ? scaledValue(q.value, 0) : 0n;
        if (bytes === 0n) continue;
        const scaled = BigInt(Math.trunc(Number(bytes) * factor));
        current[part].set(name, made(new Quantity(scaled, 0), 'BinarySI'));
      }
    }
  }
  const value: Json = {};
  for (const part of ['limits', 'requests'] as const) {
    // omitempty: an empty list is left out.
    if (current[part].size > 0) value[part] = Object.fromEntries([...current[part]].map(([k, v]) => [k, v.text]));
  }
  return { op: 'replace', path, value };
}

/** The operation of one origin overrider on `object` (kinitiras' `GetJsonPatch`); throws kinitiras' errors. */
export function originOperation(object: Json, o: OriginOverrider): PatchOperation {
  const typed = (field: string, value: unknown): PatchOperation => {
    if (o.operation !== 'replace') throw new Error(UNSUPPORTED_OPERATOR);
    return { op: 'replace', path: podSpecPath(object, field), value };
  };
  const raw = o.raw;
  const metadata = isObject(object['metadata']) ? object['metadata'] : {};
  switch (o.type) {
    case 'annotations':
    case 'labels': {
      const current = isObject(metadata[o.type]) ? (metadata[o.type] as Record<string, string>) : undefined;
      return { op: 'replace', path: `/metadata/${o.type}`, value: mergeMap(current, raw[o.type], o) };
    }
    case 'nodeSelector': {
      const path = podSpecPath(object, 'nodeSelector');
      const current = stringMap(podSpec(object)?.['nodeSelector'], path.slice(1).replaceAll('/', '.'));
      return { op: 'replace', path, value: mergeMap(current, raw['nodeSelector'], o) };
    }
    case 'hostNetwork':
      return typed('hostNetwork', raw['hostNetwork'] === true);
    case 'schedulerName':
      return typed('schedulerName', typeof raw['schedulerName'] === 'string' ? raw['schedulerName'] : '');
    case 'affinity':
      return typed('affinity', raw['affinity'] ?? null);
    case 'topologySpreadConstraints':
      return typed('topologySpreadConstraints', raw['topologySpreadConstraints'] ?? null);
    case 'resourceRequirements':
      return typed(`containers/${o.containerCount}/resources`, raw['resourceRequirements'] ?? {});
    case 'resourceOversell':
      return resourceOversell(object, o);
    case 'tolerations':
      return { op: 'replace', path: podSpecPath(object, 'tolerations'), value: tolerations(object, o) };
    default:
      throw new Error(`origin overrider type "${o.type}" is not supported by verdict`);
  }
}
