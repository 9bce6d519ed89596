/**
 * kinitiras' rule templates compiled into verdict's own code, with the
 * results of the CUE kinitiras renders from them (k-cloud-labs/pkg
 * utils/templatemanager/templates/{override,validate}.go.tmpl, rendered from
 * utils/interrupter/model): every path is read the way the rendered CUE reads
 * it (`handlePath`), values are compared as CUE compares them, and the
 * operations come in the rendered order, each computed from the object as it
 * was before the rule.
 */
import { parseResourceQuantity, Quantity, scaledValue, type PatchOperation } from '@verdict/core';
import type { Inventory } from '../inventory.js';
import { isObject } from '../read.js';
import { readSelector } from './read.js';
import { referencedObject } from './refs.js';
import type { ResourceRefer } from './types.js';

type Json = Record<string, unknown>;

/** Absent, in CUE's words: `_|_` (a missing field, or a selection on something that has none). */
const BOTTOM = Symbol('bottom');
type Value = unknown;

/** kinitiras' `handlePath`: `/a/b-c/0/d` → `a."b-c"[0].d`, as steps; a path without `/` is a CUE selector path as written. */
function cuePath(path: string): Array<string | number> {
  if (!path.includes('/')) return path.split('.');
  const steps: Array<string | number> = [];
  for (const segment of path.replace(/^\/+|\/+$/g, '').split('/')) {
    if (segment.includes('-')) steps.push(segment);
    else if (/^\d+$/.test(segment)) steps.push(Number(segment));
    else steps.push(...segment.split('.'));
  }
  return steps;
}

/** The rendered text of `handlePath` (used where kinitiras writes it into a JSON Patch path). */
export function handlePath(path: string): string {
  if (!path.includes('/')) return path;
  return path.replace(/^\/+|\/+$/g, '').split('/').map((s, i) => {
    const quoted = s.includes('-') ? `"${s}"` : s;
    if (/^\d+$/.test(s)) return `[${s}]`;
    return i > 0 ? `.${quoted}` : quoted;
  }).join('');
}

/** The value at `steps` of `root`, or {@link BOTTOM}. */
function select(root: Value, steps: ReadonlyArray<string | number>): Value | typeof BOTTOM {
  let current: Value = root;
  for (const step of steps) {
    if (typeof step === 'number') {
      if (!Array.isArray(current) || step >= current.length) return BOTTOM;
      current = current[step];
    } else {
      if (!isObject(current) || !Object.prototype.hasOwnProperty.call(current, step)) return BOTTOM;
      current = current[step];
    }
  }
  return current;
}

const kind = (v: Value): string => (v === null ? 'null' : Array.isArray(v) ? 'list' : typeof v === 'object' ? 'struct' : typeof v);

/** `Value.Equals` of two concrete values, as `list.Contains` compares (different kinds are unequal; lists and structs element by element). */
function cueEqual(a: Value, b: Value): boolean {
  const stack: Array<[Value, Value]> = [[a, b]];
  while (stack.length > 0) {
    const [x, y] = stack.pop()!;
    if (kind(x) !== kind(y)) return false;
    if (Array.isArray(x)) {
      const ys = y as Value[];
      if (x.length !== ys.length) return false;
      x.forEach((v, i) => stack.push([v, ys[i]]));
    } else if (isObject(x)) {
      const ky = Object.keys(y as Json);
      if (Object.keys(x).length !== ky.length) return false;
      for (const k of ky) {
        if (!Object.prototype.hasOwnProperty.call(x, k)) return false;
        stack.push([x[k], (y as Json)[k]]);
      }
    } else if (x !== y) return false;
  }
  return true;
}

/**
 * CUE 0.4's `a == b`: null equals only null; otherwise both must be of one kind, and not structs ("invalid
 * operands ... to '=='", which fails the evaluation); lists element by element.
 */
function cueEquals(a: Value, b: Value): boolean {
  const stack: Array<[Value, Value]> = [[a, b]];
  let equal = true;
  while (stack.length > 0) {
    const [x, y] = stack.pop()!;
    if (x === null || y === null) {
      equal &&= x === y;
      continue;
    }
    if (kind(x) !== kind(y) || isObject(x)) throw new Error(`invalid operands ${JSON.stringify(x)} and ${JSON.stringify(y)} to '==' (type ${kind(x)} and ${kind(y)})`);
    if (Array.isArray(x)) {
      const ys = y as Value[];
      if (x.length !== ys.length) equal = false;
      else x.forEach((v, i) => stack.push([v, ys[i]]));
    } else equal &&= x === y;
  }
  return equal;
}

/** A CUE comparison `a <op> b`; an ordering of other than two numbers or two strings is an error, as in CUE. */
function compare(a: Value, op: string, b: Value): boolean {
  if (op === '==') return cueEquals(a, b);
  if (op === '!=') return !cueEquals(a, b);
  const ordered = (typeof a === 'number' && typeof b === 'number') || (typeof a === 'string' && typeof b === 'string');
  if (!ordered) throw new Error(`invalid operands ${JSON.stringify(a)} and ${JSON.stringify(b)} to '${op}' (type ${kind(a)} and ${kind(b)})`);
  const x = a as number | string;
  const y = b as number | string;
  return op === '>' ? x > y : op === '>=' ? x >= y : op === '<' ? x < y : x <= y;
}

/** CUE arithmetic of a valueProcess (`value <op> with`); `/` gives a float, as in CUE. */
function arithmetic(a: Value, op: string, b: number): number {
  if (typeof a !== 'number') throw new Error(`invalid operands ${JSON.stringify(a)} and ${b} to '${op}' (type ${kind(a)} and number)`);
  return op === '+' ? a + b : op === '-' ? a - b : op === '*' ? a * b : a / b;
}

/** `ConstantValue.Value()`: the first field set, in the CRD's order. */
function constantOf(value: unknown): Value | undefined {
  if (!isObject(value)) return undefined;
  for (const key of ['string', 'integer', 'float', 'boolean']) if (value[key] !== undefined && value[key] !== null) return value[key];
  for (const key of ['stringSlice', 'integerSlice', 'floatSlice']) if (Array.isArray(value[key]) && (value[key] as unknown[]).length > 0) return value[key];
  if (isObject(value['stringMap']) && Object.keys(value['stringMap']).length > 0) return value['stringMap'];
  return undefined;
}

/** The CUE value kinitiras renders for a scalar constant (`convertConstValue`): a float is written as the number it spells. */
function constValue(value: unknown): Value {
  if (!isObject(value)) return undefined;
  if (typeof value['string'] === 'string') return value['string'];
  const v = constantOf(value);
  if (isObject(value) && v === value['float']) return Number(v);
  return v;
}

/** The list kinitiras renders for In/NotIn (`convertSliceValue`: the JSON of the slice; floats stay strings). */
function sliceValue(value: unknown): Value[] {
  if (!isObject(value)) return [];
  for (const key of ['stringSlice', 'integerSlice', 'floatSlice']) if (Array.isArray(value[key]) && (value[key] as unknown[]).length > 0) return value[key] as Value[];
  return [];
}

/** `ResourceRefer` of a template, as read (the k8s selector parsed). */
function referOf(raw: unknown): ResourceRefer | undefined {
  if (!isObject(raw)) return undefined;
  const from = raw['from'] as ResourceRefer['from'];
  const refer: ResourceRefer = { from, path: typeof raw['path'] === 'string' ? raw['path'] : '' };
  if (isObject(raw['k8s'])) refer.k8s = readSelector(raw['k8s'], '', () => undefined);
  return refer;
}

/** Where a reference reads: the object, the old object, or the referenced object. */
function source(refer: ResourceRefer, object: Json, oldObject: Json | null, other: Value): Value {
  return refer.from === 'current' ? object : refer.from === 'old' ? oldObject : other;
}

/** A compiled ValidateRuleTemplate. */
export interface ValidateTemplate {
  evaluate(object: Json, oldObject: Json | null, inventory: Inventory | undefined): { valid: boolean; reason: string };
  /** `extraParams` of the rendered CUE (`otherObject`, `otherObject_d`). */
  extraParams(object: Json, inventory: Inventory | undefined): Json;
}

const CONDS: Readonly<Record<string, string>> = { Equal: '==', NotEqual: '!=', Gt: '>', Gte: '>=', Lt: '<', Lte: '<=' };

/** Compiles a validate template (`type: condition`) into the rendered CUE's decision. */
export function compileValidateTemplate(template: Json): ValidateTemplate {
  const c = isObject(template['condition']) ? template['condition'] : {};
  const cond = String(c['cond'] ?? '');
  const dataRef = referOf(c['dataRef']);
  const valueRef = referOf(c['valueRef']);
  const message = typeof c['message'] === 'string' ? c['message'] : '';
  const process = isObject(c['valueProcess']) ? c['valueProcess'] : undefined;
  const operation = process ? String(process['operation'] ?? '') : '';
  const withValue = process ? operationWith(process['operationWith']) : 0;
  const isRef = valueRef !== undefined;
  const extraParams = (object: Json, inventory: Inventory | undefined): Json => {
    const out: Json = {};
    if (valueRef && (valueRef.from === 'k8s' || valueRef.from === 'owner')) out['otherObject'] = referencedObject(valueRef, object, inventory);
    if (dataRef && (dataRef.from === 'k8s' || dataRef.from === 'owner')) out['otherObject_d'] = referencedObject(dataRef, object, inventory);
    return out;
  };
  const reject = { valid: false, reason: message };
  return {
    extraParams,
    evaluate(object, oldObject, inventory) {
      if (!dataRef) throw new Error('a condition template needs dataRef');
      const extra = extraParams(object, inventory);
      const data = select(source(dataRef, object, oldObject, extra['otherObject_d']), cuePath(dataRef.path));
      if (cond === 'NotExist') return data === BOTTOM ? reject : { valid: true, reason: '' };
      if (data === BOTTOM) return { valid: true, reason: '' };
      if (cond === 'Exist') return reject;
      if (cond === 'In' || cond === 'NotIn') {
        const contained = sliceValue(c['value']).some((v) => cueEqual(v, data));
        return contained === (cond === 'In') ? reject : { valid: true, reason: '' };
      }
      let value: Value;
      if (isRef) {
        const ref = select(source(valueRef, object, oldObject, extra['otherObject']), cuePath(valueRef.path));
        if (ref === BOTTOM) return { valid: true, reason: '' };
        value = ref;
      } else value = constValue(c['value']);
      if (process) value = arithmetic(value, operation, withValue);
      return compare(data, CONDS[cond]!, value) ? reject : { valid: true, reason: '' };
    },
  };
}

/** `valueProcess.operationWith`: an integer, or a string number (`"50%"` is 0.5). */
export function operationWith(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value !== 'string') return 0;
  const percent = value.endsWith('%');
  const n = Number.parseFloat(percent ? value.slice(0, -1) : value);
  const f = Number.isNaN(n) ? 0 : n;
  return percent ? f / 100 : f;
}

/** A compiled OverrideRuleTemplate. */
export interface OverrideTemplate {
  operations(object: Json, oldObject: Json | null, inventory: Inventory | undefined): PatchOperation[];
  /** `extraParams` of the rendered CUE (`otherObject`). */
  extraParams(object: Json, inventory: Inventory | undefined): Json;
}

/** Go's `%v` of a constant inside the rendered quotes (a slice prints as `[a b]`, a map as `map[k:v]`). */
function goText(value: Value): string {
  if (Array.isArray(value)) return `[${value.map(goText).join(' ')}]`;
  if (isObject(value)) return `map[${Object.keys(value).sort().map((k) => `${k}:${goText(value[k])}`).join(' ')}]`;
  return String(value);
}

function metadataOps(type: 'annotations' | 'labels', t: Json, object: Json, resolve: (r: ResourceRefer) => Value): PatchOperation[] {
  const op = String(t['operation'] ?? '') as PatchOperation['op'];
  const key = handlePath(typeof t['path'] === 'string' ? t['path'] : '');
  const map = select(object, ['metadata', type]);
  const out: PatchOperation[] = [];
  if (map === BOTTOM) out.push({ op: 'replace', path: `/metadata/${type}`, value: {} });
  if (op === 'remove') {
    if (select(map, [key]) !== BOTTOM) out.push({ op: 'remove', path: `/metadata/${type}/${key}` });
    return out;
  }
  const value = t['value'] === undefined || t['value'] === null ? undefined : constantOf(t['value']);
  if (t['value'] !== undefined && t['value'] !== null) {
    // ValueType const: a string map gives one operation per key (Go ranges over a map in key order).
    if (isObject(value)) for (const k of Object.keys(value).sort()) out.push({ op, path: `/metadata/${type}/${k}`, value: goText(value[k]) });
    else out.push({ op, path: `/metadata/${type}/${key}`, value: value === undefined ? '<nil>' : goText(value) });
    return out;
  }
  const refer = referOf(t['valueRef']);
  if (refer) {
    const v = resolve(refer);
    if (v !== BOTTOM) out.push({ op, path: `/metadata/${type}/${key}`, value: v });
  }
  return out;
}

/** Where a resources template writes: the first container of a Pod, or of any other kind's pod template. */
function resourceBase(object: Json): { base: Array<string | number>; at: string } {
  const pod = object['kind'] === 'Pod';
  return pod
    ? { base: ['spec', 'containers', 0, 'resources'], at: '/spec/containers/0/resources' }
    : { base: ['spec', 'template', 'spec', 'containers', 0, 'resources'], at: '/spec/template/spec/containers/0/resources' };
}

/** The rendered prologue of both resources templates: `resources`, `requests` and `limits` set to `{}` where absent. */
function ensureResources(object: Json): PatchOperation[] {
  const { base, at } = resourceBase(object);
  const out: PatchOperation[] = [];
  if (select(object, base) === BOTTOM) out.push({ op: 'replace', path: at, value: {} });
  if (select(object, [...base, 'requests']) === BOTTOM) out.push({ op: 'replace', path: `${at}/requests`, value: {} });
  if (select(object, [...base, 'limits']) === BOTTOM) out.push({ op: 'replace', path: `${at}/limits`, value: {} });
  return out;
}

function resourceOps(t: Json, object: Json): PatchOperation[] {
  const resources = isObject(t['resources']) ? t['resources'] : undefined;
  const { base, at } = resourceBase(object);
  const out = ensureResources(object);
  if (!resources) return out; // "rule is invalid, skip"
  for (const part of ['requests', 'limits'] as const) {
    const list = isObject(resources[part]) ? resources[part] : {};
    for (const name of Object.keys(list).sort()) {
      if (t['operation'] === 'remove') {
        if (select(object, [...base, part, name]) !== BOTTOM) out.push({ op: 'remove', path: `${at}/${part}/${name}` });
      } else {
        // convertQuantity: resource.Quantity.Value(), the exact value rounded up to an integer.
        const raw = list[name];
        if (typeof raw !== 'string' && typeof raw !== 'number') throw new Error(`a quantity is a string or a number (got ${JSON.stringify(raw)})`);
        let value: bigint;
        try {
          value = scaledValue(parseResourceQuantity(String(raw).trim()).value, 0);
        } catch (e) {
          throw new Error(`${(e as Error).message} (got ${JSON.stringify(raw)})`);
        }
        out.push({ op: 'replace', path: `${at}/${part}/${name}`, value: String(value) });
      }
    }
  }
  return out;
}

/** A CUE number literal as the exact decimal CUE reads it (`0.5`, `5e-1`). */
function decimal(text: string): Quantity {
  const m = /^([+-]?)([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]+))?$/.exec(text)!;
  const digits = BigInt(`${m[2] ?? ''}${m[3] ?? ''}` || '0') * (m[1] === '-' ? -1n : 1n);
  const scale = (m[3] ?? '').length - Number(m[4] ?? 0);
  return scale >= 0 ? new Quantity(digits, scale) : new Quantity(digits * 10n ** BigInt(-scale), 0);
}

const times = (a: Quantity, b: Quantity): Quantity => new Quantity(a.num * b.num, a.scale + b.scale);

/** CUE's `math.Round`: the nearest integer, halves away from zero. */
function round(q: Quantity): bigint {
  if (q.scale <= 0) return q.num * 10n ** BigInt(-q.scale);
  const step = 10n ** BigInt(q.scale);
  const magnitude = q.num < 0n ? -q.num : q.num;
  const r = (magnitude * 2n + step) / (2n * step);
  return q.num < 0n ? -r : r;
}

/** CUE's `strconv.Atoi` (Go's): an optionally signed decimal integer in int64's range. */
function atoi(text: unknown): Quantity {
  if (typeof text !== 'string') throw new Error(`strconv.Atoi: cannot use ${JSON.stringify(text)} (type ${kind(text)}) as string`);
  const n = /^[+-]?[0-9]+$/.test(text) ? BigInt(text) : undefined;
  if (n === undefined || n > 2n ** 63n - 1n || n < -(2n ** 63n)) throw new Error(`error in call to strconv.Atoi: strconv.Atoi: parsing ${JSON.stringify(text)}: ${n === undefined ? 'invalid syntax' : 'value out of range'}`);
  return new Quantity(n, 0);
}

function hasSuffix(value: unknown, suffix: string): boolean {
  if (typeof value !== 'string') throw new Error(`strings.HasSuffix: cannot use ${JSON.stringify(value)} (type ${kind(value)}) as string`);
  return value.endsWith(suffix);
}

/** `x !~ "^[0-9]*$"`: a regular expression matches strings only. */
function withUnit(value: unknown): boolean {
  if (typeof value !== 'string') throw new Error(`invalid operand ${JSON.stringify(value)} ('!~' requires concrete value of type string)`);
  return !/^[0-9]*$/.test(value);
}

const UNITS: ReadonlyArray<[string, bigint]> = [['Gi', 1n << 30n], ['G', 10n ** 9n], ['Mi', 1n << 20n], ['M', 10n ** 6n], ['Ki', 1n << 10n], ['K', 1000n], ['Ti', 1n << 40n], ['T', 10n ** 12n]];

/** The rendered CUE's bytes of a memory or disk limit: the suffixes it knows, or the plain integer; 0 for another suffix. */
function bytesOf(limit: string): Quantity {
  const hit = UNITS.find(([suffix]) => limit.endsWith(suffix));
  if (!hit) return new Quantity(0n, 0);
  return times(atoi(limit.slice(0, -hit[0].length)), new Quantity(hit[1], 0));
}

/** CUE 0.4's `x == "s"`: null is unequal, a value of another kind is an error ("invalid operands"). */
function equalsString(value: unknown, text: string): boolean {
  if (value === null) return false;
  if (typeof value !== 'string') throw new Error(`invalid operands ${JSON.stringify(value)} and ${JSON.stringify(text)} to '==' (type ${kind(value)} and string)`);
  return value === text;
}

/** Absent in CUE's sense, where the rendered CUE needs a value: the evaluation cannot complete. */
function incomplete(what: string): never {
  throw new Error(`incomplete value: ${what}`);
}

/**
 * The resourcesOversell template, as its rendered CUE computes it (override.go.tmpl, PreResourcesOversellTemplate
 * and ResourcesOversellTemplate): the first container's requests set from its limits times each factor, in
 * CUE's exact decimals. cpu from `<n>` or `<n>m` (0 when the cpu request is "0", "0m" when there is no cpu
 * limit) written `"<millicores>m"`; memory and ephemeral-storage from a plain integer or a Gi, G, Mi, M, Ki, K,
 * Ti or T suffix (another suffix counts as 0), written as a number of bytes; ephemeral-storage only when
 * there is a disk limit. A template whose three factors are all outside (0, 1) is skipped, as kinitiras' model
 * drops it; a factor that is set is applied even outside (0, 1), as the rendered CUE does.
 */
function oversellOps(t: Json, object: Json): PatchOperation[] {
  const out = ensureResources(object);
  const rule = isObject(t['resourcesOversell']) ? t['resourcesOversell'] : undefined;
  const factor = (key: string): string => (typeof rule?.[key] === 'string' ? rule[key] : '');
  const valid = (text: string) => text !== '' && Number(text) > 0 && Number(text) < 1;
  if (!rule || !['cpuFactor', 'memoryFactor', 'diskFactor'].some((k) => valid(factor(k)))) return out;
  const { base, at } = resourceBase(object);
  const resources = select(object, base);
  const part = (name: string): Json => {
    const v = resources === BOTTOM ? BOTTOM : select(resources, [name]);
    return isObject(v) ? v : {};
  };
  const limits = part('limits');
  const requests = part('requests');
  const remove = t['operation'] === 'remove';
  const has = (list: Json, name: string) => Object.prototype.hasOwnProperty.call(list, name);
  const set = (name: string, value: unknown) => out.push({ op: 'replace', path: `${at}/requests/${name}`, value });
  const drop = (name: string) => {
    if (has(requests, name)) out.push({ op: 'remove', path: `${at}/requests/${name}` });
  };
  if (factor('cpuFactor') !== '') {
    const f = decimal(factor('cpuFactor'));
    const zeroRequest = has(requests, 'cpu') && equalsString(requests['cpu'], '0');
    let cpu = new Quantity(0n, 0);
    if (has(limits, 'cpu')) {
      const limit = limits['cpu'];
      const milli = hasSuffix(limit, 'm');
      if (!zeroRequest) cpu = milli ? times(times(atoi((limit as string).slice(0, -1)), new Quantity(1n, 3)), f) : times(atoi(limit), f);
    }
    if (remove) drop('cpu');
    else set('cpu', `${round(times(cpu, new Quantity(1000n, 0)))}m`);
  }
  if (factor('memoryFactor') !== '') {
    const f = decimal(factor('memoryFactor'));
    const limit = has(limits, 'memory') ? limits['memory'] : BOTTOM;
    let memory: Quantity | undefined;
    if (limit !== BOTTOM && withUnit(limit)) memory = times(bytesOf(limit as string), f);
    else if (limit !== BOTTOM) memory = times(atoi(limit), f);
    if (remove) drop('memory');
    else set('memory', Number(round(memory ?? incomplete('memory (the container has no memory limit)'))));
  }
  if (factor('diskFactor') !== '') {
    const f = decimal(factor('diskFactor'));
    const limit = has(limits, 'ephemeral-storage') ? limits['ephemeral-storage'] : BOTTOM;
    const unit = limit !== BOTTOM && withUnit(limit);
    // isZeroDiskLimit is left open (bool) when the limit is "0" or "": the rendered CUE cannot decide.
    if (limit !== BOTTOM && (limit === '0' || limit === '')) incomplete('isZeroDiskLimit (the ephemeral-storage limit is "0" or "")');
    if (limit !== BOTTOM) {
      const disk = times(unit ? bytesOf(limit as string) : atoi(limit), f);
      if (remove) drop('ephemeral-storage');
      else set('ephemeral-storage', Number(round(disk)));
    }
  }
  return out;
}

function tolerationOps(t: Json, object: Json): PatchOperation[] {
  const wanted = Array.isArray(t['tolerations']) ? (t['tolerations'] as Json[]) : [];
  const op = String(t['operation'] ?? '');
  if (wanted.length === 0) return [];
  const current = select(object, ['spec', 'tolerations']);
  if (current === BOTTOM || (Array.isArray(current) && current.length === 0)) return op === 'remove' ? [] : [{ op: 'replace', path: '/spec/tolerations', value: wanted }];
  if (!Array.isArray(current)) throw new Error('spec.tolerations must be a list');
  const out: PatchOperation[] = [];
  for (const w of wanted) {
    if (op === 'add') {
      out.push({ op: 'add', path: '/spec/tolerations/0', value: w });
      continue;
    }
    current.forEach((c, i) => {
      const ck = select(c, ['key']);
      const hit = w['operator'] === 'Exists' ? ck === w['key']
        : w['operator'] === 'Equal' ? ck === w['key'] && select(c, ['value']) === (w['value'] ?? '') : false;
      if (hit) out.push(op === 'replace' ? { op: 'replace', path: `/spec/tolerations/${i}`, value: w } : { op: 'remove', path: `/spec/tolerations/${i}` });
    });
  }
  return out;
}

const hasItems = (v: unknown): boolean => Array.isArray(v) && v.length > 0;

/** `isValidOp` for affinity: some node, pod or pod-anti affinity with terms. */
function validAffinity(a: Json): boolean {
  const node = isObject(a['nodeAffinity']) ? a['nodeAffinity'] : undefined;
  const terms = (list: unknown, key: string) => Array.isArray(list) && list.some((x) => isObject(x) && isObject(x[key] ?? x) && ((hasItems((x[key] as Json | undefined)?.['matchExpressions']) || hasItems((x[key] as Json | undefined)?.['matchFields']))));
  const required = node && isObject(node['requiredDuringSchedulingIgnoredDuringExecution']) ? node['requiredDuringSchedulingIgnoredDuringExecution'] : undefined;
  const nodeValid = node !== undefined && ((required !== undefined && Array.isArray(required['nodeSelectorTerms']) && required['nodeSelectorTerms'].some((x) => isObject(x) && (hasItems(x['matchExpressions']) || hasItems(x['matchFields']))))
    || terms(node['preferredDuringSchedulingIgnoredDuringExecution'], 'preference'));
  const pod = (k: string) => isObject(a[k]) && (hasItems((a[k] as Json)['requiredDuringSchedulingIgnoredDuringExecution']) || hasItems((a[k] as Json)['preferredDuringSchedulingIgnoredDuringExecution']));
  return nodeValid || pod('podAffinity') || pod('podAntiAffinity');
}

function affinityOps(t: Json, object: Json): PatchOperation[] {
  const a = isObject(t['affinity']) ? t['affinity'] : undefined;
  if (!a || !validAffinity(a)) return [];
  const op = String(t['operation'] ?? '');
  const out: PatchOperation[] = [];
  const current = select(object, ['spec', 'affinity']);
  if (current === BOTTOM) {
    if (op !== 'remove') out.push({ op: 'replace', path: '/spec/affinity', value: a });
    return out;
  }
  const REQ = 'requiredDuringSchedulingIgnoredDuringExecution';
  const PRE = 'preferredDuringSchedulingIgnoredDuringExecution';
  /** One list-valued field of an affinity: replace/remove it whole; add to its front (or set it when absent or empty). */
  const list = (at: string, path: Array<string | number>, wanted: unknown[], lengthOf: Array<string | number> = path) => {
    if (op === 'replace' || op === 'remove') {
      out.push(op === 'replace' ? { op: 'replace', path: at, value: wanted } : { op: 'remove', path: at });
      return;
    }
    const have = select(current, path);
    if (have === BOTTOM) {
      out.push({ op: 'replace', path: at, value: wanted });
      return;
    }
    const length = select(current, lengthOf);
    if (!Array.isArray(length)) throw new Error(`len of ${lengthOf.join('.')}: incomplete value`);
    if (length.length === 0) out.push({ op: 'replace', path: at, value: wanted });
    else for (const item of wanted) out.push({ op: 'add', path: `${at}/0`, value: item });
  };
  const node = isObject(a['nodeAffinity']) ? a['nodeAffinity'] : undefined;
  if (node) {
    const there = select(current, ['nodeAffinity']);
    if (op !== 'remove' && there === BOTTOM) out.push({ op: 'replace', path: '/spec/affinity/nodeAffinity', value: node });
    if (there !== BOTTOM && (node[REQ] || node[PRE])) {
      const req = isObject(node[REQ]) ? node[REQ] : undefined;
      if (req) {
        const at = `/spec/affinity/nodeAffinity/${REQ}`;
        if (op === 'replace' || op === 'remove') out.push(op === 'replace' ? { op: 'replace', path: at, value: req } : { op: 'remove', path: at });
        else {
          const have = select(current, ['nodeAffinity', REQ]);
          if (have === BOTTOM) out.push({ op: 'replace', path: at, value: req });
          const terms = Array.isArray(req['nodeSelectorTerms']) ? req['nodeSelectorTerms'] : [];
          if (terms.length > 0 && have !== BOTTOM) {
            const length = select(have, ['nodeSelectorTerms']);
            if (!Array.isArray(length)) throw new Error('len of nodeSelectorTerms: incomplete value');
            if (length.length === 0) out.push({ op: 'replace', path: `${at}/nodeSelectorTerms`, value: terms });
            else for (const term of terms) out.push({ op: 'add', path: `${at}/nodeSelectorTerms/0`, value: term });
          }
        }
      }
      if (Array.isArray(node[PRE])) list(`/spec/affinity/nodeAffinity/${PRE}`, ['nodeAffinity', PRE], node[PRE]);
    }
  }
  for (const kindOf of ['podAffinity', 'podAntiAffinity'] as const) {
    const pod = isObject(a[kindOf]) ? a[kindOf] : undefined;
    if (!pod) continue;
    const there = select(current, [kindOf]);
    if (op !== 'remove' && there === BOTTOM) out.push({ op: 'replace', path: `/spec/affinity/${kindOf}`, value: pod });
    if (there === BOTTOM || !(hasItems(pod[REQ]) || hasItems(pod[PRE]))) continue;
    if (hasItems(pod[REQ])) list(`/spec/affinity/${kindOf}/${REQ}`, [kindOf, REQ], pod[REQ] as unknown[]);
    // The rendered CUE measures podAffinity's preferred terms by nodeAffinity's list (a slip kinitiras ships).
    if (hasItems(pod[PRE])) list(`/spec/affinity/${kindOf}/${PRE}`, [kindOf, PRE], pod[PRE] as unknown[], kindOf === 'podAffinity' ? ['nodeAffinity', PRE] : [kindOf, PRE]);
  }
  return out;
}

/** Compiles an override template into the operations its rendered CUE gives. */
export function compileOverrideTemplate(template: Json): OverrideTemplate {
  const type = String(template['type'] ?? '');
  const refer = referOf(template['valueRef']);
  const extraParams = (object: Json, inventory: Inventory | undefined): Json => {
    // Only annotations and labels templates read a valueRef (the others have none in their model).
    if (!refer || (type !== 'annotations' && type !== 'labels') || template['value'] !== undefined) return {};
    return refer.from === 'k8s' || refer.from === 'owner' ? { otherObject: referencedObject(refer, object, inventory) } : {};
  };
  return {
    extraParams,
    operations(object, oldObject, inventory) {
      switch (type) {
        case 'annotations':
        case 'labels': {
          const extra = extraParams(object, inventory);
          return metadataOps(type, template, object, (r) => select(source(r, object, oldObject ?? {}, extra['otherObject']), cuePath(r.path)));
        }
        case 'resources':
          return resourceOps(template, object);
        case 'resourcesOversell':
          return oversellOps(template, object);
        case 'tolerations':
          return tolerationOps(template, object);
        case 'affinity':
          return affinityOps(template, object);
        default:
          throw new Error(`template type "${type}" is not supported by verdict`);
      }
    },
  };
}
