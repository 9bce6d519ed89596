/**
 * Deciding many objects with the adapters' own decision path. Kubernetes
 * objects are reviewed as CREATE requests by `@verdict/kubernetes`'s webhook
 * (through `@verdict/testing`'s evaluator), with the audited objects as the
 * inventory and the audited Namespaces' labels; CI jobs, Fiat queries and
 * core inputs go to their adapters as `verdict eval` sends them.
 */
import { PolicyLoadError, type Decision, type PolicyDocument, type PolicyInfo } from '@verdict/core';
import { admissionReviewFor, applyApiServerDefaults, InventoryCache, type KubernetesObject } from '@verdict/kubernetes';
import { createEvaluator, detectAdapter, type AdapterName, type AdapterOptions, type Evaluator } from '@verdict/testing';
import { detectPolicyAdapter, loadPoliciesFor } from '../policy/detect.js';
import type { Manifest } from './audit-parse.js';
import { completeCatalog, policyCatalog } from './audit-catalog.js';
import { outcomeResults, type AuditedObject, type AuditReport, type PolicyResult } from './audit-results.js';

/** How to decide the manifests. */
export interface AuditPlan {
  documents: readonly PolicyDocument[];
  /** The adapter for every input (`--as`); default: from each input's shape. */
  as?: AdapterName;
  adapterOptions: AdapterOptions;
  /** Namespace of namespaced objects without `metadata.namespace` (as `kubectl apply -n`). */
  namespace: string;
  /**
   * Namespaces neither the manifests (a Namespace document) nor `adapterOptions.kubernetes.namespaces` define
   * are unknown to the namespace lookup, as on a cluster where they do not exist (a `namespaceSelector` then
   * errs). Default false: they are assumed to exist with only the label the API server guarantees
   * (`kubernetes.io/metadata.name`), as they must on any cluster that admits the objects.
   */
  strictNamespaces?: boolean;
  /** Apply the API server's defaults for built-in kinds before review, as admission sees objects (default true). */
  defaults?: boolean;
  /** Called after each object. */
  onObject?: (done: number, total: number) => void;
}

/** The policies, loaded once per adapter; loading errors surface from {@link Deciders.get}. */
export class Deciders {
  readonly #made = new Map<AdapterName, Promise<Evaluator>>();
  #policies: readonly PolicyInfo[] | undefined;
  /** The adapter the policies are written for. */
  readonly adapter: AdapterName;

  constructor(private readonly plan: Pick<AuditPlan, 'documents' | 'adapterOptions' | 'as'>) {
    this.adapter = plan.as ?? detectPolicyAdapter(plan.documents);
  }

  get(adapter: AdapterName): Promise<Evaluator> {
    let made = this.#made.get(adapter);
    if (!made) this.#made.set(adapter, (made = createEvaluator(adapter, this.plan.documents, this.plan.adapterOptions)));
    return made;
  }

  /** The policies as the adapter compiles them, for the reports' rule metadata (empty if they do not compile on their own). */
  policies(): readonly PolicyInfo[] {
    if (!this.#policies) {
      try {
        this.#policies = loadPoliciesFor(this.adapter, this.plan.documents).policies;
      } catch {
        // The evaluator reports the loading error itself; the reports then list the policies their results name.
        this.#policies = [];
      }
    }
    return this.#policies;
  }
}

const INPUTS: Record<AdapterName, string> = { kubernetes: 'a Kubernetes object', ci: 'a CI job', spinnaker: 'a Fiat query', core: 'an input document' };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '';
}

function kindOfValue(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'a list' : `a ${typeof value}`;
}

/**
 * A Kubernetes object prepared for review as the API server hands it to admission: defaulted (unless turned off),
 * and namespaced objects without a namespace get the default one.
 */
interface Prepared {
  object: KubernetesObject;
  /** Where the object lives: `""` for cluster-scoped objects (Namespaces included). */
  namespace: string;
}

function prepare(given: KubernetesObject, fallback: string, defaults: boolean): Prepared {
  const object = defaults ? applyApiServerDefaults(given) : given;
  const metadata = isObject(object['metadata']) ? object['metadata'] : {};
  if (object['kind'] === 'Namespace' && object['apiVersion'] === 'v1') return { object, namespace: '' };
  if (typeof metadata['namespace'] === 'string' && metadata['namespace'] !== '') return { object, namespace: metadata['namespace'] };
  // Without a namespace: the adapter knows which kinds are cluster-scoped (it gives them "").
  const namespace = admissionReviewFor(object, { uid: 'probe' }).request.namespace ?? '';
  if (namespace === '' || typeof metadata['namespace'] === 'string') return { object, namespace };
  return { object: { ...object, metadata: { ...metadata, namespace: fallback } }, namespace: fallback };
}

function inputError(message: string): PolicyResult {
  return { kind: '', policy: '(input)', rule: '', enforcementAction: 'deny', status: 'error', messages: [message] };
}

function identity(item: Manifest, adapter: AdapterName, value: Record<string, unknown>, namespace: string): Omit<AuditedObject, 'allowed' | 'results'> {
  const base = { file: item.file, line: item.line, adapter, apiVersion: '', kind: '', namespace: '', name: '' };
  if (adapter === 'kubernetes') {
    const review = value['kind'] === 'AdmissionReview' && isObject(value['request']) ? value['request'] : undefined;
    const object = review ? (isObject(review['object']) ? review['object'] : isObject(review['oldObject']) ? review['oldObject'] : {}) : value;
    const metadata = isObject(object['metadata']) ? object['metadata'] : {};
    const uid = str(metadata['uid']);
    return {
      ...base, apiVersion: str(object['apiVersion']), kind: str(object['kind']), namespace: review ? str(review['namespace']) : namespace,
      name: str(metadata['name']) || str(metadata['generateName']), ...(uid ? { uid } : {}),
    };
  }
  if (adapter === 'ci') return { ...base, kind: 'Job', name: str(value['id']) || str(value['name']) };
  if (adapter === 'spinnaker') return { ...base, kind: str(value['resourceType']), name: str(value['resourceName']) };
  return { ...base, kind: str(value['kind']), name: str(isObject(value['metadata']) ? value['metadata']['name'] : value['name']) };
}

type Planned =
  | { item: Manifest; skipped: string }
  | { item: Manifest; adapter: AdapterName; value: Record<string, unknown>; namespace: string; review: boolean; error?: string };

/** The manifests, each with the adapter that decides it; the inventory and namespace labels the Kubernetes objects give. */
export interface AuditState {
  planned: Planned[];
  inventory: InventoryCache;
  namespaceLabels: Map<string, Record<string, string>>;
  /** Namespaces objects live in that neither the manifests nor the config define, assumed to exist (sorted); empty when strict. */
  assumedNamespaces: ReadonlySet<string>;
  as?: AdapterName;
}

/** Decides which adapter answers each manifest; fills the inventory and the namespace labels from the Kubernetes objects. */
export function planAudit(manifests: readonly Manifest[], plan: Pick<AuditPlan, 'as' | 'namespace' | 'documents' | 'strictNamespaces' | 'adapterOptions' | 'defaults'>, policyAdapter: AdapterName): AuditState {
  const inventory = new InventoryCache();
  // Filling the inventory costs a little per object: only when some policy can read it.
  const needsInventory = JSON.stringify(plan.documents).includes('inventory');
  const namespaceLabels = new Map<string, Record<string, string>>();
  const planned = manifests.map((item): Planned => {
    const value = item.value;
    if (!isObject(value)) return { item, skipped: `not an object (${kindOfValue(value)})` };
    const adapter = plan.as ?? detectAdapter(value);
    if (plan.as === undefined && policyAdapter !== 'core' && adapter !== policyAdapter) {
      return { item, skipped: `not ${INPUTS[policyAdapter]} (the policies are for ${policyAdapter})` };
    }
    if (adapter !== 'kubernetes' || value['kind'] === 'AdmissionReview') return { item, adapter, value, namespace: '', review: false };
    let prepared: Prepared;
    try {
      prepared = prepare(value, plan.namespace, plan.defaults !== false);
    } catch (error) {
      return { item, adapter, value, namespace: '', review: false, error: (error as Error).message };
    }
    const metadata = prepared.object['metadata'] as Record<string, unknown> | undefined;
    if (needsInventory && typeof metadata?.['name'] === 'string' && metadata['name'] !== '') inventory.set(prepared.object, prepared.namespace);
    if (value['kind'] === 'Namespace' && value['apiVersion'] === 'v1' && typeof metadata?.['name'] === 'string') {
      const labels = isObject(metadata['labels']) ? metadata['labels'] : {};
      namespaceLabels.set(metadata['name'], Object.fromEntries(Object.entries(labels).filter((e): e is [string, string] => typeof e[1] === 'string')));
    }
    return { item, adapter, value: prepared.object, namespace: prepared.namespace, review: true };
  });
  return { planned, inventory, namespaceLabels, assumedNamespaces: assumed(planned, namespaceLabels, plan), ...(plan.as ? { as: plan.as } : {}) };
}

/** The namespaces reviewed objects live in that no Namespace document and no configured label set defines (none when strict). */
function assumed(planned: readonly Planned[], corpus: ReadonlyMap<string, unknown>, plan: Pick<AuditPlan, 'strictNamespaces' | 'adapterOptions'>): Set<string> {
  if (plan.strictNamespaces === true) return new Set();
  const configured = plan.adapterOptions.kubernetes?.namespaces ?? {};
  const out = new Set<string>();
  for (const p of planned) {
    if ('skipped' in p || !p.review || p.namespace === '' || corpus.has(p.namespace) || Object.hasOwn(configured, p.namespace)) continue;
    out.add(p.namespace);
  }
  return new Set([...out].sort());
}

async function outcomeOf(state: AuditState, i: number, deciders: Deciders, explain: boolean) {
  const p = state.planned[i]!;
  if ('skipped' in p) return undefined;
  if (p.error !== undefined) throw new Error(p.error);
  const evaluator = await deciders.get(p.adapter);
  if (!p.review) return evaluator.evaluate(p.value, { explain });
  // A namespace assumed to exist has only the label the API server gives every namespace (the webhook's lookup adds it).
  const labels = state.namespaceLabels.get(p.namespace) ?? (state.assumedNamespaces.has(p.namespace) ? {} : undefined);
  return evaluator.evaluate(admissionReviewFor(p.value, { uid: `verdict-audit-${i}` }), { inventory: state.inventory.data, explain, ...(labels ? { namespaceLabels: labels } : {}) });
}

/** Decides the `i`-th manifest. Throws `PolicyLoadError` when an adapter's policies do not load. */
export async function decideOne(state: AuditState, i: number, deciders: Deciders): Promise<AuditedObject> {
  const p = state.planned[i]!;
  if ('skipped' in p) {
    // What the document says it is (a Kustomization, say), so the report can name it.
    const value = isObject(p.item.value) ? p.item.value : {};
    const metadata = isObject(value['metadata']) ? value['metadata'] : {};
    return {
      file: p.item.file, line: p.item.line, adapter: state.as ?? 'core', apiVersion: str(value['apiVersion']), kind: str(value['kind']),
      namespace: str(metadata['namespace']), name: str(metadata['name']) || str(value['name']), allowed: true, results: [], skipped: p.skipped,
    };
  }
  const id = identity(p.item, p.adapter, p.value, p.namespace);
  try {
    const outcome = (await outcomeOf(state, i, deciders, false))!;
    return { ...id, allowed: outcome.allowed, results: outcomeResults(outcome) };
  } catch (error) {
    if (error instanceof PolicyLoadError) throw error;
    return { ...id, allowed: false, results: [inputError((error as Error).message)] };
  }
}

/** The decision of the `i`-th manifest with the full trace (every policy, and why those that did not match did not), or `undefined`. */
export async function explainOne(state: AuditState, i: number, deciders: Deciders): Promise<Decision | undefined> {
  try {
    return (await outcomeOf(state, i, deciders, true))?.decision;
  } catch (error) {
    if (error instanceof PolicyLoadError) throw error;
    return undefined;
  }
}

/** Decides every planned manifest in order; `onObject` after each. */
export async function decideAll(state: AuditState, deciders: Deciders, onObject?: (done: number, total: number) => void): Promise<AuditedObject[]> {
  const objects: AuditedObject[] = [];
  for (let i = 0; i < state.planned.length; i++) {
    objects.push(await decideOne(state, i, deciders));
    onObject?.(i + 1, state.planned.length);
  }
  return objects;
}

/**
 * Decides every manifest. Throws what loading the policies throws
 * (`PolicyLoadError`, an adapter's option error); an input the adapter
 * refuses becomes an error result of that object.
 */
export async function auditManifests(manifests: readonly Manifest[], plan: AuditPlan, deciders = new Deciders(plan)): Promise<Omit<AuditReport, 'problems' | 'files'>> {
  await deciders.get(deciders.adapter);
  const state = planAudit(manifests, plan, deciders.adapter);
  const objects = await decideAll(state, deciders, plan.onObject);
  const catalog = policyCatalog(deciders.policies(), plan.documents);
  return { objects, adapter: deciders.adapter, policies: completeCatalog(catalog, objects.flatMap((o) => o.results)), assumedNamespaces: [...state.assumedNamespaces] };
}
