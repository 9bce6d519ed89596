/**
 * Webhook-level matching, as a ValidatingWebhookConfiguration entry or a
 * shell-operator `kubernetesValidating` binding writes it: `rules`
 * (apiserver `rules.Matcher`), `objectSelector` (on object OR oldObject) and
 * `namespaceSelector` (apiserver `namespace.Matcher`). shell-operator's
 * spellings `labelSelector` and `namespace: {labelSelector}` are accepted.
 * Order follows the apiserver: a namespace error counts only when the rules
 * and the objectSelector match.
 */
import type { DialectContext, IndexHint, Selector } from '@verdict/core';
import { inputObject, inputString, isObject, metadataMap, metadataOf, resourceField } from './read.js';
import { labelSelector, stringList } from './match-gatekeeper.js';
import { didYouMean, typeOf } from './suggest.js';

type Block = Readonly<Record<string, unknown>>;
type TestSelector = Extract<Selector, { test: unknown }>;

const OPERATIONS = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT', '*'];
const RULE_KEYS = ['operations', 'apiGroups', 'apiVersions', 'resources', 'scope'];

/** `v1/namespaces`: Cluster scope even though the request carries the Namespace's own name. */
function isNamespacesResource(input: unknown): boolean {
  return resourceField(input, 'resource') === 'namespaces' && resourceField(input, 'group') === '' && resourceField(input, 'version') === 'v1';
}

/** A required, non-empty list where `*` must stand alone (resources have their own rules). */
function wildcardList(rule: Block, key: string, at: string, ctx: DialectContext): string[] | undefined {
  const lone = key !== 'resources';
  const value = rule[key];
  if (value === undefined || value === null || (Array.isArray(value) && value.length === 0)) {
    ctx.problem(`${at}/${key}`, `${key} is required and must not be empty (use ["*"] for all)`);
    return undefined;
  }
  const list = stringList(value, `${at}/${key}`, ctx, key);
  if (lone && list && list.includes('*') && list.length > 1) {
    ctx.problem(`${at}/${key}`, `if "*" is present in ${key}, it must be the only entry`);
    return undefined;
  }
  return list;
}

function resourceProblems(resources: readonly string[]): string[] {
  const out: string[] = [];
  const split = resources.map((r) => {
    const slash = r.indexOf('/');
    return slash < 0 ? { res: r, sub: '' } : { res: r.slice(0, slash), sub: r.slice(slash + 1) };
  });
  if (resources.includes('')) out.push('resources must not contain an empty string');
  if (resources.includes('*/*') && resources.length > 1) out.push('if "*/*" is present in resources, it must be the only entry');
  if (resources.includes('*') && split.some((s) => s.sub === '' && s.res !== '*')) out.push('if "*" is present in resources, it must not be combined with other resources without subresources');
  for (const { res, sub } of split) {
    if (sub !== '' && sub !== '*' && resources.includes(`${res}/*`)) out.push(`if "${res}/*" is present, "${res}/${sub}" must not be listed`);
    if (res !== '*' && sub !== '' && resources.includes(`*/${sub}`)) out.push(`if "*/${sub}" is present, "${res}/${sub}" must not be listed`);
  }
  return out;
}

function inList(path: readonly string[], values: readonly string[] | undefined, label: string, read: (input: unknown) => string): TestSelector {
  if (!values) return { test: () => true, describe: `${label}: any` };
  const set = new Set(values);
  const selector: TestSelector = { test: (input) => set.has(read(input)), describe: `${label} in (${values.map((v) => (v === '' ? '""' : v)).join(', ')})` };
  selector.index = { path, values } satisfies IndexHint;
  return selector;
}

/** A validated rule: `undefined` lists stand for `*`. */
export interface ParsedRule {
  operations: readonly string[] | undefined;
  groups: readonly string[] | undefined;
  versions: readonly string[] | undefined;
  resources: readonly string[];
  entries: ReadonlyArray<{ res: string; sub: string }>;
  scope: '*' | 'Cluster' | 'Namespaced';
}

/**
 * Checks one rule as the apiserver's validation does (every problem reported
 * through `ctx`, keys outside `extraKeys` refused) and returns it parsed, or
 * `undefined` when it is invalid.
 */
export function parseRule(rule: unknown, at: string, ctx: DialectContext, extraKeys: readonly string[] = []): ParsedRule | undefined {
  if (!isObject(rule)) {
    ctx.problem(at, `a rule must be an object {operations, apiGroups, apiVersions, resources, scope?} (got ${typeOf(rule)})`);
    return undefined;
  }
  const known = [...RULE_KEYS, ...extraKeys];
  for (const key of Object.keys(rule)) if (!known.includes(key)) ctx.problem(`${at}/${key}`, `unknown field "${key}" in a rule${didYouMean(key, known)}`);
  const operations = wildcardList(rule, 'operations', at, ctx);
  operations?.forEach((op, i) => {
    if (!OPERATIONS.includes(op)) ctx.problem(`${at}/operations/${i}`, `operation "${op}" is not one of ${OPERATIONS.join(', ')}${didYouMean(op, OPERATIONS)}`);
  });
  const groups = wildcardList(rule, 'apiGroups', at, ctx);
  const versions = wildcardList(rule, 'apiVersions', at, ctx);
  versions?.forEach((v, i) => {
    if (v === '') ctx.problem(`${at}/apiVersions/${i}`, 'apiVersions must not contain an empty string');
  });
  const resources = wildcardList(rule, 'resources', at, ctx);
  if (resources) for (const message of resourceProblems(resources)) ctx.problem(`${at}/resources`, message);
  const scope = rule['scope'] ?? '*';
  if (scope !== '*' && scope !== 'Cluster' && scope !== 'Namespaced') {
    ctx.problem(`${at}/scope`, `scope must be "*", "Cluster" or "Namespaced" (got ${typeof scope === 'string' ? `"${scope}"` : typeOf(scope)})${typeof scope === 'string' ? didYouMean(scope, ['Cluster', 'Namespaced']) : ''}`);
    return undefined;
  }
  if (!operations || !groups || !versions || !resources) return undefined;
  const all = (list: string[]) => (list[0] === '*' ? undefined : list);
  const entries = resources.map((r) => {
    const slash = r.indexOf('/');
    return slash < 0 ? { res: r, sub: '' } : { res: r.slice(0, slash), sub: r.slice(slash + 1) };
  });
  return { operations: all(operations), groups: all(groups), versions: all(versions), resources, entries, scope };
}

/** The apiserver's `rules.Matcher` for one request (`resource` may be an equivalent of the request's). */
export function ruleMatches(rule: ParsedRule, input: unknown, resource: { group: string; version: string; resource: string }): boolean {
  if (rule.operations && !rule.operations.includes(inputString(input, 'operation'))) return false;
  if (rule.groups && !rule.groups.includes(resource.group)) return false;
  if (rule.versions && !rule.versions.includes(resource.version)) return false;
  const sub = inputString(input, 'subResource');
  if (!rule.entries.some((e) => (e.res === '*' || e.res === resource.resource) && (e.sub === '*' || e.sub === sub))) return false;
  if (rule.scope === '*') return true;
  const namespaced = inputString(input, 'namespace') !== '' && !(resource.group === '' && resource.version === 'v1' && resource.resource === 'namespaces');
  return rule.scope === 'Cluster' ? !namespaced : namespaced;
}

function compileRule(rule: unknown, at: string, ctx: DialectContext): Selector | undefined {
  const parsed = parseRule(rule, at, ctx);
  if (!parsed) return undefined;
  const { entries, resources, scope } = parsed;
  const resourceTest: TestSelector = {
    describe: `resource in (${resources.join(', ')})`,
    test: (input) => {
      const res = resourceField(input, 'resource');
      const sub = inputString(input, 'subResource');
      return entries.some((e) => (e.res === '*' || e.res === res) && (e.sub === '*' || e.sub === sub));
    },
  };
  if (entries.every((e) => e.res !== '*')) resourceTest.index = { path: ['resource', 'resource'], values: [...new Set(entries.map((e) => e.res))] };
  const parts: Selector[] = [
    inList(['operation'], parsed.operations, 'operation', (input) => inputString(input, 'operation')),
    inList(['resource', 'group'], parsed.groups, 'apiGroup', (input) => resourceField(input, 'group')),
    inList(['resource', 'version'], parsed.versions, 'apiVersion', (input) => resourceField(input, 'version')),
    resourceTest,
  ];
  if (scope === 'Cluster' || scope === 'Namespaced') {
    const cluster = scope === 'Cluster';
    parts.push({
      describe: `scope: ${scope}`,
      test: (input) => {
        const namespaced = inputString(input, 'namespace') !== '' && !isNamespacesResource(input);
        return cluster ? !namespaced : namespaced;
      },
    });
  }
  return { all: parts, where: at };
}

function rules(value: unknown, ctx: DialectContext): Selector | undefined {
  if (!Array.isArray(value)) {
    ctx.problem('/rules', `rules must be a list of {operations, apiGroups, apiVersions, resources, scope?} (got ${typeOf(value)})`);
    return undefined;
  }
  if (value.length === 0) {
    ctx.problem('/rules', 'rules is empty, so nothing would ever match (a webhook without rules is never called); remove the key to match every request');
    return undefined;
  }
  const compiled = value.map((rule, i) => compileRule(rule, `/rules/${i}`, ctx));
  if (compiled.some((c) => c === undefined)) return undefined;
  return compiled.length === 1 ? compiled[0] : { any: compiled as Selector[], where: '/rules', describe: `rules: any of ${compiled.length} rules` };
}

export function objectSelector(value: unknown, path: string, ctx: DialectContext): Selector | undefined {
  if (value === undefined || value === null) return undefined; // API default {}: matches without looking
  const sel = labelSelector(value, path, ctx);
  if (!sel || sel.text === '(everything)') return undefined;
  // A missing object (CREATE's oldObject, DELETE's object) or one without metadata never matches.
  const matches = (object: unknown) => metadataOf(object) !== undefined && sel.matches(metadataMap(object, 'labels'));
  return { where: path, describe: `objectSelector: ${sel.text} (object or oldObject)`, test: (input) => matches(inputObject(input, 'object')) || matches(inputObject(input, 'oldObject')) };
}

export function namespaceSelector(value: unknown, path: string, ctx: DialectContext): Selector | undefined {
  if (value === undefined || value === null) return undefined;
  const sel = labelSelector(value, path, ctx);
  if (!sel || sel.text === '(everything)') return undefined;
  return {
    where: path,
    describe: `namespaceSelector: ${sel.text}`,
    test: (input) => {
      const namespace = inputString(input, 'namespace');
      // A cluster-scoped request other than a Namespace is never exempted.
      if (namespace === '' && resourceField(input, 'resource') !== 'namespaces') return true;
      const labels = isObject(input) ? input['namespaceLabels'] : undefined;
      if (!isObject(labels)) throw new Error(`namespace "${namespace}" not found: the namespace lookup does not know it`);
      return sel.matches(labels);
    },
  };
}

/** Compiles the webhook-level keys of one match block. */
export function compileWebhookMatch(block: Block, ctx: DialectContext): Selector {
  const parts: Selector[] = [];
  if (block['rules'] !== undefined) {
    const r = rules(block['rules'], ctx);
    if (r) parts.push(r);
  }
  if (block['objectSelector'] !== undefined && block['labelSelector'] !== undefined) {
    ctx.problem('/labelSelector', 'give either objectSelector or labelSelector (shell-operator\'s name for it), not both');
  }
  const object = block['objectSelector'] !== undefined ? objectSelector(block['objectSelector'], '/objectSelector', ctx) : objectSelector(block['labelSelector'], '/labelSelector', ctx);
  if (object) parts.push(object);
  let nsPath = '/namespaceSelector';
  let nsValue = block['namespaceSelector'];
  const alias = block['namespace'];
  if (alias !== undefined) {
    if (nsValue !== undefined) ctx.problem('/namespace', 'give either namespaceSelector or namespace.labelSelector (shell-operator\'s form), not both');
    if (!isObject(alias) || Object.keys(alias).some((k) => k !== 'labelSelector')) {
      ctx.problem('/namespace', 'namespace takes only {labelSelector: …} (shell-operator\'s form of namespaceSelector)');
    } else {
      nsPath = '/namespace/labelSelector';
      nsValue = alias['labelSelector'];
    }
  }
  const ns = namespaceSelector(nsValue, nsPath, ctx);
  if (ns) parts.push(ns);
  return parts.length === 0 ? true : { all: parts };
}
