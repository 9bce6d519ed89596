/**
 * Workload 2's policy sets: N constraints of four kinds with mixed selectors,
 * generated deterministically as engine-neutral specs, then rendered to
 * verdict documents here and to each peer's native form in scale-peers.ts.
 *
 * Mix: 40 % `matchLabels {app}` on the Pod (half also `env In (…)`),
 * 25 % `matchLabels {project}` on the namespace labels, 20 % the kubectl
 * string form `team=…,tier in (web,api)`, 15 % a namespace field matcher,
 * plus two global constraints without an indexable condition (they match
 * everything except system namespaces). 30 % have a parameterSelection entry
 * (`namespaceLabels env In (prod)`). Value pools grow with N, so each input
 * matches a handful of constraints at every size.
 */
import { GI, makePod, parseQuantity, REGISTRIES, splitImage, type Pod } from '../pods.js';

export type Kind = 'K8sMemoryLimits' | 'K8sAllowedRegistries' | 'K8sRequiredLabels' | 'K8sDisallowedTags';
export const KINDS: readonly Kind[] = ['K8sMemoryLimits', 'K8sAllowedRegistries', 'K8sRequiredLabels', 'K8sDisallowedTags'];

/** Where a requirement looks: the Pod's labels, the namespace labels, or the namespace name. */
export type Where = 'labels' | 'nsLabels' | 'namespace';

export interface Req {
  where: Where;
  /** Label key (not for `namespace`). */
  key?: string;
  op: 'In' | 'NotIn';
  values: string[];
}

export interface Params {
  limit?: string;
  registries?: string[];
  labels?: string[];
  tags?: string[];
}

export interface Spec {
  name: string;
  kind: Kind;
  /** How the verdict document writes its labels requirement. */
  style: 'structured' | 'string';
  reqs: Req[];
  params: Params;
  /** One MatchFirst parameterSelection entry, when present (its params already merged over `params`). */
  entry?: { reqs: Req[]; params: Params; merged: Params };
}

export interface ScaleInput {
  object: Pod;
  namespace: string;
  namespaceLabels: Record<string, string>;
}

/** mulberry32: a small deterministic PRNG. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function baseParams(kind: Kind): Params {
  switch (kind) {
    case 'K8sMemoryLimits': return { limit: '16Gi' };
    case 'K8sAllowedRegistries': return { registries: [...REGISTRIES] };
    case 'K8sRequiredLabels': return { labels: ['app', 'team'] };
    default: return { tags: ['latest', 'dev'] };
  }
}

function entryParams(kind: Kind): Params {
  switch (kind) {
    case 'K8sMemoryLimits': return { limit: '8Gi' };
    case 'K8sAllowedRegistries': return { registries: ['mirror.corp.example'] };
    case 'K8sRequiredLabels': return { labels: ['env'] };
    default: return { tags: ['canary'] };
  }
}

/** verdict's default merge: scalars replaced, arrays of scalars as an ordered union. */
function merge(base: Params, over: Params): Params {
  const out: Params = { ...base };
  for (const [k, v] of Object.entries(over) as Array<[keyof Params, string & string[]]>) {
    const b = base[k];
    out[k] = Array.isArray(v) && Array.isArray(b) ? ([...new Set([...b, ...v])] as never) : v;
  }
  return out;
}

/** Pool sizes per selector type, so that each value is used by about one constraint. */
function pools(n: number): { app: number; project: number; team: number; ns: number } {
  const rest = Math.max(n - 2, 1);
  return { app: Math.max(1, Math.round(rest * 0.4)), project: Math.max(1, Math.round(rest * 0.25)), team: Math.max(1, Math.round(rest * 0.2)), ns: Math.max(1, Math.round(rest * 0.15)) };
}

/** N constraint specs (N ≥ 3), deterministic for a given N. */
export function generateSpecs(n: number): Spec[] {
  const random = prng(n * 7919 + 1);
  const pool = pools(n);
  const specs: Spec[] = [
    { name: 'global-memory', kind: 'K8sMemoryLimits', style: 'structured', reqs: [{ where: 'nsLabels', key: 'project', op: 'NotIn', values: ['system'] }], params: baseParams('K8sMemoryLimits') },
    { name: 'global-registries', kind: 'K8sAllowedRegistries', style: 'structured', reqs: [{ where: 'namespace', op: 'NotIn', values: ['kube-system', 'kube-public'] }], params: baseParams('K8sAllowedRegistries') },
  ];
  for (let j = 0; j < n - 2; j++) {
    const kind = KINDS[Math.floor(random() * KINDS.length)]!;
    const r = random();
    let reqs: Req[];
    let style: Spec['style'] = 'structured';
    if (r < 0.4) {
      reqs = [{ where: 'labels', key: 'app', op: 'In', values: [`app-${Math.floor(random() * pool.app)}`] }];
      if (random() < 0.5) reqs.push({ where: 'labels', key: 'env', op: 'In', values: random() < 0.75 ? ['prod', 'staging'] : ['dev', 'staging'] });
    } else if (r < 0.65) {
      reqs = [{ where: 'nsLabels', key: 'project', op: 'In', values: [`proj-${Math.floor(random() * pool.project)}`] }];
    } else if (r < 0.85) {
      style = 'string';
      reqs = [{ where: 'labels', key: 'team', op: 'In', values: [`team-${Math.floor(random() * pool.team)}`] }, { where: 'labels', key: 'tier', op: 'In', values: ['web', 'api'] }];
    } else {
      const k = Math.floor(random() * pool.ns);
      reqs = [{ where: 'namespace', op: 'In', values: [`ns-${k}`, `ns-${(k + 1) % pool.ns}`] }];
    }
    const spec: Spec = { name: `c-${String(j).padStart(5, '0')}`, kind, style, reqs, params: baseParams(kind) };
    if (random() < 0.3) {
      const over = entryParams(kind);
      spec.entry = { reqs: [{ where: 'nsLabels', key: 'env', op: 'In', values: ['prod'] }], params: over, merged: merge(spec.params, over) };
    }
    specs.push(spec);
  }
  return specs;
}

/** The 8 inputs for a policy set of size N (every one allowed), and one bad input per kind. */
export function scaleInputs(n: number): { good: ScaleInput[]; bad: ScaleInput[] } {
  const pool = pools(n);
  const input = (i: number, pod: (labels: Record<string, string>, namespace: string) => Pod): ScaleInput => {
    const namespace = `ns-${(i * 5) % pool.ns}`;
    const labels = { app: `app-${(i * 7) % pool.app}`, team: `team-${(i * 3) % pool.team}`, tier: 'web', env: 'prod', version: `1.${i}`, 'pod-template-hash': '7d9f8b6c5' };
    return { object: pod(labels, namespace), namespace, namespaceLabels: { project: `proj-${(i * 11) % pool.project}`, env: i % 2 ? 'prod' : 'staging' } };
  };
  const good = Array.from({ length: 8 }, (_, i) => input(i, (labels, namespace) => makePod(i, { labels, namespace })));
  const bad = [
    input(0, (labels, namespace) => makePod(100, { labels, namespace, memory: ['128Mi', '20Gi', '512Mi'] })),
    input(1, (labels, namespace) => makePod(101, { labels, namespace, images: ['gcr.io/a/web:1', 'nginx:1.25', 'quay.io/a/m:2'] })),
  ];
  return { good, bad };
}

// ---- verdict documents ----------------------------------------------------------------

const RULES: Record<Kind, unknown> = {
  K8sMemoryLimits: { forEach: { var: 'object.spec.containers' }, rule: { '<=': [{ quantity: { var: 'element.resources.limits.memory' } }, { quantity: { var: 'parameters.limit' } }] } },
  K8sAllowedRegistries: { forEach: { var: 'object.spec.containers' }, rule: { in: [{ get: [{ image: { var: 'element.image' } }, 'registry'] }, { var: 'parameters.registries' }] } },
  K8sRequiredLabels: { rule: { all: [{ var: 'parameters.labels' }, { '!!': { get: [{ input: 'object.metadata.labels' }, { var: '' }] } }] } },
  K8sDisallowedTags: { forEach: { var: 'object.spec.containers' }, rule: { '!': { in: [{ get: [{ image: { var: 'element.image' } }, 'tag'] }, { var: 'parameters.tags' }] } } },
};

const SCHEMAS: Record<Kind, unknown> = {
  K8sMemoryLimits: { type: 'object', properties: { limit: { type: 'string' } }, required: ['limit'] },
  K8sAllowedRegistries: { type: 'object', properties: { registries: { type: 'array', items: { type: 'string' } } }, required: ['registries'] },
  K8sRequiredLabels: { type: 'object', properties: { labels: { type: 'array', items: { type: 'string' } } }, required: ['labels'] },
  K8sDisallowedTags: { type: 'object', properties: { tags: { type: 'array', items: { type: 'string' } } }, required: ['tags'] },
};

export function templateDocuments(): object[] {
  return KINDS.map((kind) => ({
    apiVersion: 'verdict.dev/v1',
    kind: 'PolicyTemplate',
    metadata: { name: kind.toLowerCase() },
    spec: { kind, parametersSchema: SCHEMAS[kind], validate: [{ name: 'check', ...(RULES[kind] as object), message: `${kind} violated by {{object.metadata.name}}` }] },
  }));
}

function labelSelector(reqs: readonly Req[]): Record<string, unknown> {
  const matchLabels: Record<string, string> = {};
  const matchExpressions: unknown[] = [];
  for (const r of reqs) {
    if (r.op === 'In' && r.values.length === 1) matchLabels[r.key!] = r.values[0]!;
    else matchExpressions.push({ key: r.key, operator: r.op, values: r.values });
  }
  const out: Record<string, unknown> = {};
  if (Object.keys(matchLabels).length) out['matchLabels'] = matchLabels;
  if (matchExpressions.length) out['matchExpressions'] = matchExpressions;
  return out;
}

function selectorString(reqs: readonly Req[]): string {
  return reqs.map((r) => (r.op === 'In' && r.values.length === 1 ? `${r.key}=${r.values[0]}` : `${r.key} ${r.op === 'In' ? 'in' : 'notin'} (${r.values.join(',')})`)).join(',');
}

/** A verdict match block for requirements (core keys only: `labels` and `fields`). */
export function matchBlock(reqs: readonly Req[], style: Spec['style']): Record<string, unknown> {
  const labels: unknown[] = [];
  const pod = reqs.filter((r) => r.where === 'labels');
  const ns = reqs.filter((r) => r.where === 'nsLabels');
  if (pod.length) labels.push(style === 'string' ? { path: 'object.metadata.labels', selector: selectorString(pod) } : { path: 'object.metadata.labels', ...labelSelector(pod) });
  if (ns.length) labels.push({ path: 'namespaceLabels', ...labelSelector(ns) });
  const fields = reqs.filter((r) => r.where === 'namespace').map((r) => (r.op === 'In' ? { path: 'namespace', values: r.values } : { path: 'namespace', exclude: r.values }));
  const out: Record<string, unknown> = {};
  if (labels.length) out['labels'] = labels.length === 1 ? labels[0] : labels;
  if (fields.length) out['fields'] = fields;
  return out;
}

export function constraintDocument(s: Spec): object {
  const spec: Record<string, unknown> = { match: matchBlock(s.reqs, s.style), parameters: s.params };
  if (s.entry) spec['parameterSelection'] = [{ name: 'prod', match: matchBlock(s.entry.reqs, 'structured'), parameters: s.entry.params }];
  return { apiVersion: 'verdict.dev/v1', kind: s.kind, metadata: { name: s.name }, spec };
}

export function scaleDocuments(specs: readonly Spec[]): object[] {
  return [...templateDocuments(), ...specs.map(constraintDocument)];
}

// ---- hand-written JS ------------------------------------------------------------------

function readReq(input: ScaleInput, r: Req): string | undefined {
  return r.where === 'namespace' ? input.namespace : r.where === 'labels' ? input.object.metadata.labels[r.key!] : input.namespaceLabels[r.key!];
}

export function reqsMatch(input: ScaleInput, reqs: readonly Req[]): boolean {
  for (let i = 0; i < reqs.length; i++) {
    const r = reqs[i]!;
    const v = readReq(input, r);
    const has = v !== undefined && r.values.includes(v);
    if (r.op === 'In' ? !has : has) return false;
  }
  return true;
}

/** The rule of a kind in plain JS on the raw Pod (parsing quantities and images on every call). */
export function handRule(kind: Kind, p: Params, pod: Pod): boolean {
  const containers = pod.spec.containers;
  switch (kind) {
    case 'K8sMemoryLimits': {
      const limit = parseQuantity(p.limit);
      for (const c of containers) if (!(parseQuantity(c.resources.limits.memory) <= limit)) return false;
      return true;
    }
    case 'K8sAllowedRegistries':
      for (const c of containers) if (!p.registries!.includes(splitImage(c.image).registry)) return false;
      return true;
    case 'K8sRequiredLabels':
      for (const k of p.labels!) if (!pod.metadata.labels[k]) return false;
      return true;
    default:
      for (const c of containers) if (p.tags!.includes(splitImage(c.image).tag)) return false;
      return true;
  }
}

/** Maximum memory in bytes for a spec's params (for peers that compare numbers). */
export function limitBytes(p: Params): number {
  return p.limit ? parseQuantity(p.limit) : 16 * GI;
}
