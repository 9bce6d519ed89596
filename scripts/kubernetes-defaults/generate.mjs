#!/usr/bin/env node
/**
 * The API server's defaults for built-in kinds, as a table for @verdict/kubernetes.
 *
 * Input: defaulting.json beside this script, Kubernetes' defaulting read from kubernetes/kubernetes
 * (the SetDefaults_<Type> functions, the covering SetObjectDefaults_<Kind> compositions of
 * zz_generated.defaults.go, the +default markers published as OpenAPI `default`, the constants
 * they use). This script resolves the constants, drops the steps of feature gates that are off and
 * the steps that only touch status (listing each with its reason), and writes the type graph
 * of zz_generated.defaults.go (a kind's own defaulter, then the types at its fields, each with
 * its own defaulter and fields) with every defaulter's steps to
 * packages/kubernetes/src/defaults/table.ts.
 *
 *   node scripts/kubernetes-defaults/generate.mjs           write the table
 *   node scripts/kubernetes-defaults/generate.mjs --check   fail when the committed table is stale
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const target = join(root, 'packages/kubernetes/src/defaults/table.ts');

/** JSON pointer (with `*` for every list element) → segments. */
function segments(pointer) {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new Error(`not a JSON pointer: ${pointer}`);
  return pointer.slice(1).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function resolveValue(value, constants) {
  if (Array.isArray(value)) return value.map((v) => resolveValue(v, constants));
  if (value !== null && typeof value === 'object') {
    if (Object.keys(value).length === 1 && typeof value.const === 'string') {
      if (!(value.const in constants)) throw new Error(`unknown constant ${value.const}`);
      return constants[value.const];
    }
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveValue(v, constants)]));
  }
  return value;
}

function condition(c, constants) {
  const out = { path: segments(c.path) };
  if (c.item) out.item = true;
  if ('equals' in c) out.equals = resolveValue(c.equals, constants);
  else if ('in' in c) out.oneOf = resolveValue(c.in, constants);
  else if (c.absent) out.absent = true;
  else if (c.present) out.present = true;
  else if (c.notEmpty) out.notEmpty = true;
  else if (c.onlyKeys) out.onlyKeys = c.onlyKeys;
  else throw new Error(`unknown condition ${JSON.stringify(c)}`);
  return out;
}

/** One step of a defaulter, ready for the table; `undefined` (with a note) when it does not apply. */
function step(s, data, name, notes) {
  if (s.skipped) {
    notes.push(`${name}: ${s.skipped}`);
    return undefined;
  }
  if (s.gate !== undefined) {
    if (!(s.gate in data.gates)) throw new Error(`${name}: unknown gate ${s.gate}`);
    if (!data.gates[s.gate]) {
      notes.push(`${name}: ${s.set ?? s.remove} (gate ${s.gate}, off by default)`);
      return undefined;
    }
  }
  const out = {};
  if (s.in !== undefined) out.in = segments(s.in);
  if (s.remove !== undefined) out.remove = segments(s.remove);
  else {
    out.set = segments(s.set);
    if (s.zero) out.zero = true;
    if (s.force) out.force = true;
    if ('value' in s) out.value = resolveValue(s.value, data.constants);
    else if (s.from !== undefined) out.from = segments(s.from);
    else if (s.mergeFrom !== undefined) out.mergeFrom = segments(s.mergeFrom);
    else if (s.imagePullPolicyOf !== undefined) {
      out.imagePullPolicyOf = segments(s.imagePullPolicyOf);
      out.latest = data.constants['v1.PullAlways'];
      out.otherwise = data.constants['v1.PullIfNotPresent'];
    } else throw new Error(`${name}: a step without a value: ${JSON.stringify(s)}`);
  }
  if (s.if) out.if = s.if.map((c) => condition(c, data.constants));
  return out;
}

/** A type's or function's entry, following `sameAs`. */
function follow(table, name) {
  let entry = table[name];
  for (let i = 0; entry && !Array.isArray(entry) && entry.sameAs; i++) {
    if (i > 8) throw new Error(`sameAs loop at ${name}`);
    entry = table[entry.sameAs];
  }
  return entry;
}

function steps(data, name, notes) {
  const fn = follow(data.functions, name);
  const marker = data.markers[name] ?? [];
  if (fn === undefined && marker.length === 0) return [];
  const list = Array.isArray(fn) ? fn : fn?.skipped ? [fn] : [];
  return [...list, ...marker].map((s) => step(s, data, name, notes)).filter(Boolean);
}

/** A type's or kind's node: its defaulter (when it has steps) and the types at its fields, in zz_generated order. */
function node(defaulter, fields, functions) {
  const out = {};
  if (defaulter !== undefined && functions[defaulter]?.length) out.defaulter = defaulter;
  out.fields = Object.entries(fields ?? {}).map(([field, type]) => [segments(field), type]);
  return out;
}

export function generate(data) {
  const notes = [];
  const functions = {};
  const names = new Set([...Object.keys(data.functions), ...Object.keys(data.markers), ...Object.keys(data.types)].filter((k) => !k.startsWith('$')));
  // A defaulter that only calls another (SetDefaults_EphemeralContainer) is that one.
  const own = (name) => {
    let at = name;
    for (let i = 0; data.functions[at]?.sameAs; i++) {
      if (i > 8) throw new Error(`sameAs loop at ${name}`);
      at = data.functions[at].sameAs;
    }
    return at;
  };
  for (const name of [...names].sort()) {
    if (own(name) !== name) continue;
    const list = steps(data, name, notes);
    if (list.length) functions[name] = list;
  }
  // A type runs its own defaulter (SetDefaults_<Type> and its markers), then the types at its fields.
  const types = {};
  const reached = new Set();
  const visit = (type, depth) => {
    if (depth > 16) throw new Error(`type graph too deep at ${type}`);
    if (reached.has(type)) return;
    reached.add(type);
    const fields = follow(data.types, type)?.fields;
    types[type] = node(own(type), fields, functions);
    for (const child of Object.values(fields ?? {})) visit(child, depth + 1);
  };
  const kinds = {};
  for (const kind of Object.keys(data.kinds).filter((k) => !k.startsWith('$'))) {
    const entry = data.kinds[kind];
    for (const child of Object.values(entry.fields ?? {})) visit(child, 1);
    kinds[kind] = node(entry.defaulter === undefined ? undefined : own(entry.defaulter), entry.fields, functions);
  }
  // Types with neither steps nor fields that reach steps are left out, and so are the fields that lead to them.
  const useful = (type, seen = new Set()) => {
    if (seen.has(type)) return false;
    seen.add(type);
    const t = types[type];
    return Boolean(t && (t.defaulter || t.fields.some(([, child]) => useful(child, seen))));
  };
  const prune = (n) => ({ ...n, fields: n.fields.filter(([, child]) => useful(child)) });
  for (const name of Object.keys(types)) {
    if (!useful(name)) delete types[name];
    else types[name] = prune(types[name]);
  }
  for (const name of Object.keys(kinds)) kinds[name] = prune(kinds[name]);
  const usedFunctions = new Set([...Object.values(types), ...Object.values(kinds)].map((n) => n.defaulter).filter(Boolean));
  const json = (v) => JSON.stringify(v);
  const entries = (o) => Object.entries(o).sort(([x], [y]) => (x < y ? -1 : 1));
  const lines = [
    '/**',
    ' * The API server\'s defaults for built-in kinds. GENERATED by scripts/kubernetes-defaults/generate.mjs',
    ' * from scripts/kubernetes-defaults/defaulting.json (Kubernetes\' own defaulting, Apache-2.0); do not edit.',
    ' *',
    ' * Not applied (the reasons are in the data):',
    ...[...new Set(notes)].sort().map((n) => ` * - ${n}`),
    ' */',
    "import type { DefaultingTable } from './types.js';",
    '',
    'export const DEFAULTING: DefaultingTable = {',
    '  functions: {',
    ...entries(functions).filter(([name]) => usedFunctions.has(name)).map(([name, list]) => `    ${name}: [\n${list.map((st) => `      ${json(st)},`).join('\n')}\n    ],`),
    '  },',
    '  types: {',
    ...entries(types).map(([name, n]) => `    ${name}: ${json(n)},`),
    '  },',
    '  kinds: {',
    ...Object.entries(kinds).map(([kind, n]) => `    ${json(kind)}: ${json(n)},`),
    '  },',
    '};',
    '',
  ];
  return lines.join('\n');
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const data = JSON.parse(readFileSync(join(here, 'defaulting.json'), 'utf8'));
  const text = generate(data);
  if (process.argv.includes('--check')) {
    if (readFileSync(target, 'utf8') !== text) {
      console.error(`${target} is stale: run node scripts/kubernetes-defaults/generate.mjs`);
      process.exit(1);
    }
  } else writeFileSync(target, text);
}
