/**
 * Kyverno's autogen for ValidatingPolicies (kyverno `pkg/cel/autogen` and
 * `pkg/cel/policies/vpol/autogen`), followed exactly: a policy that matches
 * only Pods (one resource rule: group "", version v1, resource pods, no
 * resource names, no exclusions, no object selector) gets one variant per
 * replacement set of the pod controllers it names (all of them by default):
 * `defaults` (daemonsets, deployments, jobs, replicasets, statefulsets: the pod
 * spec at `spec.template`) and `cronjobs` (at `spec.jobTemplate.spec.template`).
 * A variant matches the controllers with the Pod rule's operations and
 * namespaceSelector, and its whole spec (validations, messages, variables,
 * matchConditions, audit annotations) is rewritten as text: every
 * `object.spec` and `oldObject.spec` becomes the template's spec, every
 * `object.metadata` the template's metadata, except `….metadata.namespace`.
 */
import type { KyvernoPolicy } from './types.js';

/** A resource a variant applies to (kyverno/api `Target`). */
export interface AutogenTarget {
  group: string;
  version: string;
  resource: string;
  kind: string;
}

/** One generated variant of a policy. */
export interface AutogenVariant {
  /** `defaults` or `cronjobs`. */
  config: string;
  targets: AutogenTarget[];
  /** The rewritten spec, with the controllers' matchConstraints. */
  spec: Record<string, unknown>;
}

interface Replacement {
  from: string;
  to: string;
}

const REPLACEMENTS: Readonly<Record<string, readonly Replacement[]>> = {
  defaults: [{ from: 'spec', to: 'spec.template.spec' }, { from: 'metadata', to: 'spec.template.metadata' }],
  cronjobs: [{ from: 'spec', to: 'spec.jobTemplate.spec.template.spec' }, { from: 'metadata', to: 'spec.jobTemplate.spec.template.metadata' }],
};

/** Kyverno's pod controllers, by the names `autogen.podControllers.controllers` takes (resources, lowercase plural). */
export const POD_CONTROLLERS: Readonly<Record<string, { target: AutogenTarget; config: string }>> = {
  daemonsets: { target: { group: 'apps', version: 'v1', resource: 'daemonsets', kind: 'DaemonSet' }, config: 'defaults' },
  deployments: { target: { group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment' }, config: 'defaults' },
  replicasets: { target: { group: 'apps', version: 'v1', resource: 'replicasets', kind: 'ReplicaSet' }, config: 'defaults' },
  statefulsets: { target: { group: 'apps', version: 'v1', resource: 'statefulsets', kind: 'StatefulSet' }, config: 'defaults' },
  jobs: { target: { group: 'batch', version: 'v1', resource: 'jobs', kind: 'Job' }, config: 'defaults' },
  cronjobs: { target: { group: 'batch', version: 'v1', resource: 'cronjobs', kind: 'CronJob' }, config: 'cronjobs' },
};

type Block = Readonly<Record<string, unknown>>;

/** Go's byte-wise string order (`cmp.Compare`). */
export const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const isBlock = (v: unknown): v is Block => typeof v === 'object' && v !== null && !Array.isArray(v);
const hasSelector = (v: unknown) => isBlock(v) && ((isBlock(v['matchLabels']) && Object.keys(v['matchLabels']).length > 0) || (Array.isArray(v['matchExpressions']) && v['matchExpressions'].length > 0));
const only = (v: unknown, value: string) => Array.isArray(v) && v.length === 1 && v[0] === value;

/** Kyverno's `CanAutoGen`: whether the match block selects Pods alone, in a way a controller's template can stand for. */
export function canAutogen(match: Block): boolean {
  if (hasSelector(match['objectSelector'])) return false;
  if (Array.isArray(match['excludeResourceRules']) && match['excludeResourceRules'].length > 0) return false;
  const rules = match['resourceRules'];
  if (!Array.isArray(rules) || rules.length !== 1 || !isBlock(rules[0])) return false;
  const rule = rules[0];
  if (Array.isArray(rule['resourceNames']) && rule['resourceNames'].length > 0) return false;
  return only(rule['apiGroups'], '') && only(rule['apiVersions'], 'v1') && only(rule['resources'], 'pods');
}

/** Whether `rest` (after a match) starts with a protected suffix ending the path segment (`.namespace`). */
function isProtected(text: string, at: number): boolean {
  if (!text.startsWith('.namespace', at)) return false;
  const next = text.charCodeAt(at + '.namespace'.length);
  return Number.isNaN(next) || !/[A-Za-z0-9_]/.test(String.fromCharCode(next));
}

/** Kyverno's `replace`: every `from` becomes `to`, except where `.namespace` follows. */
function replace(text: string, from: string, to: string): string {
  let out = '';
  let start = 0;
  for (let i = text.indexOf(from); i >= 0; i = text.indexOf(from, start)) {
    const end = i + from.length;
    out += text.slice(start, i) + (isProtected(text, end) ? from : to);
    start = end;
  }
  return out + text.slice(start);
}

/** Rewrites the expressions of a spec for a replacement set (as Kyverno does, on the spec's JSON text). */
export function rewriteSpec(spec: Block, config: string): Record<string, unknown> {
  let text = JSON.stringify(spec);
  for (const r of REPLACEMENTS[config] ?? []) {
    text = replace(text, `object.${r.from}`, `object.${r.to}`);
    text = replace(text, `oldObject.${r.from}`, `oldObject.${r.to}`);
  }
  return JSON.parse(text) as Record<string, unknown>;
}

/** Kyverno's `CreateMatchConstraints`: one rule per group/version (sorted), the Pod rule's operations, its namespaceSelector. */
export function matchConstraintsFor(targets: readonly AutogenTarget[], operations: unknown, namespaceSelector: unknown): Record<string, unknown> {
  const byVersion = new Map<string, { group: string; version: string; resources: Set<string> }>();
  for (const t of targets) {
    const key = `${t.group}\u0000${t.version}`;
    const entry = byVersion.get(key) ?? { group: t.group, version: t.version, resources: new Set<string>() };
    entry.resources.add(t.resource);
    byVersion.set(key, entry);
  }
  const sorted = [...byVersion.values()].sort((a, b) => compare(a.group, b.group) || compare(a.version, b.version));
  const out: Record<string, unknown> = {
    resourceRules: sorted.map((e) => ({ apiGroups: [e.group], apiVersions: [e.version], resources: [...e.resources].sort(compare), operations })),
  };
  if (namespaceSelector !== undefined && namespaceSelector !== null) out['namespaceSelector'] = namespaceSelector;
  return out;
}

/** The autogen variants of a policy, `cronjobs` before `defaults` (Kyverno's order); none when it cannot be autogenerated. */
export function autogenVariants(policy: KyvernoPolicy): AutogenVariant[] {
  if (!canAutogen(policy.matchConstraints)) return [];
  const rule = (policy.matchConstraints['resourceRules'] as Block[])[0]!;
  const operations = rule['operations'];
  // CreateMatchConstraints returns no match block without operations: such a variant never applies.
  if (!Array.isArray(operations) || operations.length === 0) return [];
  const names = policy.controllers ?? Object.keys(POD_CONTROLLERS);
  const byConfig = new Map<string, AutogenTarget[]>();
  for (const name of new Set(names)) {
    const known = Object.hasOwn(POD_CONTROLLERS, name) ? POD_CONTROLLERS[name] : undefined;
    if (!known) continue; // Kyverno ignores names it does not know (e.g. kinds such as "Deployment").
    byConfig.set(known.config, [...(byConfig.get(known.config) ?? []), known.target]);
  }
  return [...byConfig.keys()].sort(compare).map((config) => {
    const targets = byConfig.get(config)!.sort((a, b) => compare(a.group, b.group) || compare(a.version, b.version) || compare(a.resource, b.resource) || compare(a.kind, b.kind));
    const rest: Record<string, unknown> = { ...policy.spec };
    delete rest['matchConstraints'];
    const spec = rewriteSpec(rest, config);
    spec['matchConstraints'] = matchConstraintsFor(targets, operations, policy.matchConstraints['namespaceSelector']);
    return { config, targets, spec };
  });
}
