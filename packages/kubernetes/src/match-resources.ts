/**
 * `MatchResources`, the match vocabulary of ValidatingAdmissionPolicies and
 * their bindings (apiserver `policy/matching`): `resourceRules` and
 * `excludeResourceRules` (webhook rules plus `resourceNames`), `matchPolicy`,
 * `objectSelector`, `namespaceSelector`. Order follows `Matcher.Matches`:
 * selectors first (a namespace lookup error counts only when everything else
 * matched), exclusions win, an absent `resourceRules` matches every resource.
 */
import type { DialectContext, IndexHint, Selector } from '@verdict/core';
import { namespaceSelector, objectSelector, parseRule, ruleMatches, type ParsedRule } from './match-webhook.js';
import { inputString, own, resourceOf } from './read.js';
import { didYouMean, typeOf } from './suggest.js';
import { pathSegmentError } from './vap/names.js';

type Block = Readonly<Record<string, unknown>>;

/** Keys of a MatchResources block. */
export const MATCH_RESOURCES_KEYS = ['resourceRules', 'excludeResourceRules', 'matchPolicy'] as const;
const MATCH_POLICIES = ['Equivalent', 'Exact'];

interface NamedRule {
  rule: ParsedRule;
  names: ReadonlySet<string> | undefined;
}

interface Resource {
  group: string;
  version: string;
  resource: string;
}

/**
 * Resources served under more than one API group. The apiserver learns
 * equivalents from discovery; verdict has none, so it knows these moves and,
 * within a group, treats every version of a resource as equivalent.
 */
const GROUP_FAMILIES: Readonly<Record<string, readonly string[]>> = {
  deployments: ['apps', 'extensions'],
  daemonsets: ['apps', 'extensions'],
  replicasets: ['apps', 'extensions'],
  ingresses: ['networking.k8s.io', 'extensions'],
  networkpolicies: ['networking.k8s.io', 'extensions'],
  podsecuritypolicies: ['policy', 'extensions'],
  events: ['', 'events.k8s.io'],
};

/** Whether a rule matches the request under `Equivalent`: another version, or a known other group, of the same resource. */
function matchesEquivalent(rule: ParsedRule, input: unknown, request: Resource): boolean {
  const family = GROUP_FAMILIES[request.resource];
  const groups = family && family.includes(request.group) ? family : [request.group];
  const versions = rule.versions ?? [request.version];
  for (const group of groups) {
    for (const version of versions) {
      if (group === request.group && version === request.version) continue;
      if (ruleMatches(rule, input, { group, version, resource: request.resource })) return true;
    }
  }
  return false;
}

function namedRules(value: unknown, at: string, ctx: DialectContext): NamedRule[] | undefined {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    ctx.problem(at, `${at.slice(1)} must be a list of {operations, apiGroups, apiVersions, resources, resourceNames?, scope?} (got ${typeOf(value)})`);
    return undefined;
  }
  const out: NamedRule[] = [];
  let ok = true;
  value.forEach((raw, i) => {
    const where = `${at}/${i}`;
    const rule = parseRule(raw, where, ctx, ['resourceNames']);
    const namesRaw = own(raw, 'resourceNames');
    let names: Set<string> | undefined;
    if (namesRaw !== undefined && namesRaw !== null) {
      if (!Array.isArray(namesRaw)) {
        ctx.problem(`${where}/resourceNames`, `resourceNames must be a list of names (got ${typeOf(namesRaw)})`);
        ok = false;
      } else {
        names = new Set();
        namesRaw.forEach((name, j) => {
          const path = `${where}/resourceNames/${j}`;
          const error = typeof name === 'string' && name !== '' ? pathSegmentError(name) : `a resource name must be a non-empty string (got ${typeOf(name)})`;
          if (error) {
            ctx.problem(path, error);
            ok = false;
          } else if (names!.has(name)) {
            ctx.problem(path, `duplicate resource name "${name}"`);
            ok = false;
          } else names!.add(name);
        });
        if (names.size === 0) names = undefined;
      }
    }
    if (!rule) ok = false;
    else out.push({ rule, names });
  });
  return ok ? out : undefined;
}

function matchesAny(rules: readonly NamedRule[], input: unknown, equivalent: boolean): boolean {
  const request = resourceOf(input);
  const name = inputString(input, 'name');
  const accepts = (r: NamedRule) => r.names === undefined || r.names.has(name);
  for (const r of rules) if (ruleMatches(r.rule, input, request) && accepts(r)) return true;
  if (!equivalent) return false;
  for (const r of rules) if (matchesEquivalent(r.rule, input, request) && accepts(r)) return true;
  return false;
}

function describeRules(rules: readonly NamedRule[]): string {
  return rules.map(({ rule, names }) => {
    const list = (v: readonly string[] | undefined) => (v ? v.map((x) => (x === '' ? '""' : x)).join(',') : '*');
    return `${list(rule.operations)} ${list(rule.groups)}/${list(rule.versions)}/${rule.resources.join(',')}${names ? ` named ${[...names].join(',')}` : ''}`;
  }).join('; ');
}

/** Resource names a rule list can match, for the policy index (none when a rule uses `*`). */
function resourceHint(rules: readonly NamedRule[]): IndexHint | undefined {
  const values = new Set<string>();
  for (const { rule } of rules) for (const e of rule.entries) {
    if (e.res === '*') return undefined;
    values.add(e.res);
  }
  return values.size > 0 ? { path: ['resource', 'resource'], values: [...values] } : undefined;
}

/**
 * Compiles a MatchResources block (`resourceRules`, `excludeResourceRules`,
 * `matchPolicy`, `objectSelector`, `namespaceSelector`).
 */
export function compileMatchResources(block: Block, ctx: DialectContext): Selector {
  const policy = block['matchPolicy'] ?? 'Equivalent';
  if (typeof policy !== 'string' || !MATCH_POLICIES.includes(policy)) {
    const got = typeof policy === 'string' ? `"${policy}"` : typeOf(policy);
    ctx.problem('/matchPolicy', `matchPolicy must be "Equivalent" or "Exact" (got ${got})${typeof policy === 'string' ? didYouMean(policy, MATCH_POLICIES) : ''}`);
  }
  const equivalent = policy !== 'Exact';
  if (block['rules'] !== undefined) ctx.problem('/rules', 'rules is webhook vocabulary; a MatchResources block names its rules resourceRules');
  for (const key of ['namespace', 'labelSelector']) {
    if (block[key] !== undefined) ctx.problem(`/${key}`, `${key} is shell-operator vocabulary; a MatchResources block uses ${key === 'namespace' ? 'namespaceSelector' : 'objectSelector'}`);
  }
  const include = namedRules(block['resourceRules'], '/resourceRules', ctx);
  const exclude = namedRules(block['excludeResourceRules'], '/excludeResourceRules', ctx);
  const object = objectSelector(block['objectSelector'], '/objectSelector', ctx);
  const namespace = namespaceSelector(block['namespaceSelector'], '/namespaceSelector', ctx);
  const parts: Selector[] = [];
  if (exclude && exclude.length > 0) {
    parts.push({ where: '/excludeResourceRules', describe: `not (${describeRules(exclude)})`, test: (input) => !matchesAny(exclude, input, equivalent) });
  }
  if (include && include.length > 0) {
    const rules: Extract<Selector, { test: unknown }> = {
      where: '/resourceRules',
      describe: `resourceRules: ${describeRules(include)}${equivalent ? '' : ' (Exact)'}`,
      test: (input) => matchesAny(include, input, equivalent),
    };
    const hint = resourceHint(include);
    if (hint) rules.index = hint;
    parts.push(rules);
  }
  if (object) parts.push(object);
  if (namespace) parts.push(namespace);
  return parts.length === 0 ? true : { all: parts };
}
