/**
 * Deciding many objects with the adapters' own decision path. Kubernetes
 * objects are reviewed as CREATE requests by `@verdict/kubernetes`'s webhook
 * (through `@verdict/testing`'s evaluator), with the audited objects as the
 * inventory and the audited Namespaces' labels; CI jobs, Fiat queries and
 * core inputs go to their adapters as `verdict eval` sends them.
 */
import { PolicyLoadError, type PolicyDocument } from '@verdict/core';
import { admissionReviewFor, InventoryCache, type KubernetesObject } from '@verdict/kubernetes';
import { createEvaluator, detectAdapter, type AdapterName, type AdapterOptions, type Evaluator } from '@verdict/testing';
import { detectPolicyAdapter } from '../policy/detect.js';
import type { Manifest } from './audit-parse.js';
import { policyCatalog } from './audit-catalog.js';
import { outcomeResults, type AuditedObject, type AuditReport, type PolicyResult } from './audit-results.js';

/** How to decide the manifests. */
export interface AuditPlan {
  documents: readonly PolicyDocument[];
  /** The adapter for every input (`--as`); default: from each input's shape. */
  as?: AdapterName;
  adapterOptions: AdapterOptions;
  /** Namespace of namespaced objects without `metadata.namespace` (as `kubectl apply -n`). */
  namespace: string;
  /** Called after each object. */
  onObject?: (done: number, total: number) => void;
}

/** The policies, loaded once per adapter; loading errors surface from {@link Deciders.get}. */
export class Deciders {
  readonly #made = new Map<AdapterName, Promise<Evaluator>>();
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

/** A Kubernetes object prepared for review: namespaced objects without a namespace get the default, as the apiserver stores them. */
interface Prepared {
  object: KubernetesObject;
  /** Where the object lives: `""` for cluster-scoped objects (Namespaces included). */
  namespace: string;
}

function prepare(object: KubernetesObject, fallback: string): Prepared {
  const metadata = isObject(object['metadata']) ? object['metadata'] : {};
  if (object['kind'] === 'Namespace' && object['apiVersion'] === 'v1') return { object, namespace: '' };
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

/** Decides which adapter answers each manifest; fills the inventory and the namespace labels from the Kubernetes objects. */
function planAll(manifests: readonly Manifest[], plan: AuditPlan, policyAdapter: AdapterName) {
  const inventory = new InventoryCache();
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
      prepared = prepare(value, plan.namespace);
    } catch (error) {
      return { item, adapter, value, namespace: '', review: false, error: (error as Error).message };
    }
    const metadata = prepared.object['metadata'] as Record<string, unknown> | undefined;
    if (typeof metadata?.['name'] === 'string' && metadata['name'] !== '') inventory.set(prepared.object, prepared.namespace);
    if (value['kind'] === 'Namespace' && value['apiVersion'] === 'v1' && typeof metadata?.['name'] === 'string') {
      const labels = isObject(metadata['labels']) ? metadata['labels'] : {};
      namespaceLabels.set(metadata['name'], Object.fromEntries(Object.entries(labels).filter((e): e is [string, string] => typeof e[1] === 'string')));
    }
    return { item, adapter, value: prepared.object, namespace: prepared.namespace, review: true };
  });
  return { planned, inventory, namespaceLabels };
}

/**
 * Decides every manifest. Throws what loading the policies throws
 * (`PolicyLoadError`, an adapter's option error); an input the adapter
 * refuses becomes an error result of that object.
 */
export async function auditManifests(manifests: readonly Manifest[], plan: AuditPlan, deciders = new Deciders(plan)): Promise<Omit<AuditReport, 'problems' | 'files'>> {
  await deciders.get(deciders.adapter);
  const { planned, inventory, namespaceLabels } = planAll(manifests, plan, deciders.adapter);
  const objects: AuditedObject[] = [];
  for (let i = 0; i < planned.length; i++) {
    const p = planned[i]!;
    if ('skipped' in p) {
      objects.push({ file: p.item.file, line: p.item.line, adapter: plan.as ?? 'core', apiVersion: '', kind: '', namespace: '', name: '', allowed: true, results: [], skipped: p.skipped });
    } else {
      const id = identity(p.item, p.adapter, p.value, p.namespace);
      try {
        if (p.error !== undefined) throw new Error(p.error);
        const evaluator = await deciders.get(p.adapter);
        const labels = namespaceLabels.get(p.namespace);
        const outcome = p.review
          ? await evaluator.evaluate(admissionReviewFor(p.value, { uid: `verdict-audit-${i}` }), { inventory: inventory.data, explain: false, ...(labels ? { namespaceLabels: labels } : {}) })
          : await evaluator.evaluate(p.value, { explain: false });
        objects.push({ ...id, allowed: outcome.allowed, results: outcomeResults(outcome) });
      } catch (error) {
        if (error instanceof PolicyLoadError) throw error;
        objects.push({ ...id, allowed: false, results: [inputError((error as Error).message)] });
      }
    }
    plan.onObject?.(i + 1, planned.length);
  }
  return { objects, adapter: deciders.adapter, policies: policyCatalog(plan.documents) };
}
