#!/usr/bin/env node
/**
 * The API server's defaults for built-in kinds, as a table for @verdict/kubernetes.
 *
 * Input: defaulting.json beside this script, Kubernetes' defaulting read from kubernetes/kubernetes
 * (the SetDefaults_<Type> functions, the covering SetObjectDefaults_<Kind> compositions of
 * zz_generated.defaults.go, the +default markers published as OpenAPI `default`, the constants
 * they use). This script resolves the constants, drops the steps of feature gates that are off and
 * the steps that only touch status (listing each with its reason), composes every kind's
 * defaulters along the type graph (a kind's own defaulter, then each type reached through its
 * fields, depth first, as zz_generated.defaults.go calls them), and writes
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

/** The defaulters that run on a kind, in order: [path of the struct, defaulter name]. */
function compose(data, kind) {
  const out = [];
  const visit = (type, path, depth) => {
    if (depth > 16) throw new Error(`type graph too deep at ${type}`);
    out.push([path, type]);
    const fields = follow(data.types, type)?.fields ?? {};
    for (const [field, child] of Object.entries(fields)) visit(child, [...path, ...segments(field)], depth + 1);
  };
  const entry = data.kinds[kind];
  if (entry.defaulter) out.push([[], entry.defaulter]);
  for (const [field, child] of Object.entries(entry.fields ?? {})) visit(child, segments(field), 1);
  return out;
}

export function generate(data) {
  const notes = [];
  const functions = {};
  const kinds = {};
  for (const kind of Object.keys(data.kinds).filter((k) => !k.startsWith('$'))) {
    const runs = [];
    for (const [path, name] of compose(data, kind)) {
      functions[name] ??= steps(data, name, notes);
      if (functions[name].length) runs.push([path, name]);
    }
    kinds[kind] = runs;
  }
  for (const name of Object.keys(functions)) if (functions[name].length === 0) delete functions[name];
  const json = (v) => JSON.stringify(v);
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
    ...Object.entries(functions).sort(([a], [b]) => (a < b ? -1 : 1)).map(([name, list]) => `    ${name}: [\n${list.map((s) => `      ${json(s)},`).join('\n')}\n    ],`),
    '  },',
    '  kinds: {',
    ...Object.entries(kinds).map(([kind, runs]) => `    ${json(kind)}: [\n${runs.map((r) => `      ${json(r)},`).join('\n')}\n    ],`),
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
