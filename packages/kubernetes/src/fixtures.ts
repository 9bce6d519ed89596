/**
 * `admissionReviewFor`: an AdmissionReview v1 request for a bare object, as the
 * apiserver would send it after `kubectl apply`/`delete`. For tests, the CLI
 * and examples.
 */
import { applyApiServerDefaults } from './defaults/apply.js';
import { AdmissionError } from './errors.js';
import { isObject, own, str } from './read.js';
import { API_VERSION } from './review.js';
import type { AdmissionReview, GroupVersionKind, GroupVersionResource, KubernetesObject, Operation, UserInfo } from './types.js';

/** Options of {@link admissionReviewFor}: the operation, old object, user and request fields of the review it builds. */
export interface AdmissionReviewOptions {
  /** Default: `DELETE` when `object` is null, `UPDATE` when `oldObject` is given, else `CREATE`. */
  operation?: Operation;
  /** The existing object (UPDATE/DELETE). On DELETE without it, `object` becomes the oldObject. */
  oldObject?: KubernetesObject | null;
  /** Default `{username: "kubernetes-admin", groups: ["system:masters", "system:authenticated"]}`. */
  userInfo?: UserInfo;
  /** Default: `metadata.namespace`, else `""` for well-known cluster-scoped kinds, else `"default"` (as kubectl). A Namespace's own name for Namespaces. */
  namespace?: string;
  /** Default `metadata.name` (`""` with only generateName). */
  name?: string;
  /** Default `""`. */
  subResource?: string;
  dryRun?: boolean;
  /** Default: a random UUID. */
  uid?: string;
  /** Default: from the object's `apiVersion` and `kind`. */
  kind?: GroupVersionKind;
  /** A resource name (`deployments`) or a full GVR. Default: guessed from the kind as apimachinery does (`Ingress` → `ingresses`); give it for CRDs with irregular plurals. */
  resource?: string | GroupVersionResource;
  /** Default: Create/Update/DeleteOptions for the operation, `null` for CONNECT. */
  options?: KubernetesObject | null;
  /**
   * Apply the API server's defaults for built-in kinds to `object` and `oldObject` first, as the API server does
   * before any admission webhook sees them (a Deployment without `spec.replicas` gets 1). Default `false`: the objects
   * as given. The inputs are not changed.
   */
  defaults?: boolean;
}

const CLUSTER_SCOPED = new Set([
  'Namespace', 'Node', 'PersistentVolume', 'ClusterRole', 'ClusterRoleBinding', 'StorageClass', 'CustomResourceDefinition',
  'ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration', 'ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding',
  'PriorityClass', 'APIService', 'CSIDriver', 'CSINode', 'RuntimeClass', 'IngressClass', 'VolumeAttachment',
  'CertificateSigningRequest', 'ComponentStatus', 'FlowSchema', 'PriorityLevelConfiguration', 'PodSecurityPolicy',
]);

const OPTION_KINDS: Partial<Record<Operation, string>> = { CREATE: 'CreateOptions', UPDATE: 'UpdateOptions', DELETE: 'DeleteOptions' };

/** Lowercase plural of a kind (apimachinery `UnsafeGuessKindToResource`, with `-ays`/`-eys` kept as `s`). */
export function guessResource(kind: string): string {
  const singular = kind.toLowerCase();
  if (singular.endsWith('endpoints')) return singular;
  if (singular.endsWith('s')) return `${singular}es`;
  if (/[^aeiou]y$/.test(singular)) return `${singular.slice(0, -1)}ies`;
  return `${singular}s`;
}

function kindOfObject(object: unknown): GroupVersionKind | undefined {
  const apiVersion = str(own(object, 'apiVersion'));
  const kind = str(own(object, 'kind'));
  if (!apiVersion || !kind) return undefined;
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? { group: '', version: apiVersion, kind } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1), kind };
}

function uuid(): string {
  return globalThis.crypto.randomUUID();
}

/**
 * An AdmissionReview v1 for `object` (`null` for a DELETE given `oldObject`).
 * Throws `AdmissionError` (`INVALID_OPTIONS`) when the kind cannot be known.
 */
export function admissionReviewFor(object: KubernetesObject | null, options: AdmissionReviewOptions = {}): AdmissionReview {
  const operation: Operation = options.operation ?? (object === null ? 'DELETE' : options.oldObject ? 'UPDATE' : 'CREATE');
  const prepare = options.defaults === true ? applyApiServerDefaults : <T>(value: T) => value;
  let current = isObject(object) ? prepare(object) : null;
  let old = isObject(options.oldObject) ? prepare(options.oldObject) : null;
  if (operation === 'DELETE' && old === null) {
    old = current;
    current = null;
  } else if (operation === 'DELETE') current = null;
  const source = current ?? old;
  const kind = options.kind ?? kindOfObject(source);
  if (!kind) throw new AdmissionError('INVALID_OPTIONS', 'admissionReviewFor needs an object with apiVersion and kind, or options.kind and options.resource');
  const resource: GroupVersionResource = typeof options.resource === 'object' && options.resource !== null
    ? options.resource
    : { group: kind.group, version: kind.version, resource: typeof options.resource === 'string' ? options.resource : guessResource(kind.kind) };
  const metadata = own(source, 'metadata');
  const name = options.name ?? str(own(metadata, 'name'));
  const isNamespace = kind.kind === 'Namespace' && kind.group === '';
  const namespace = options.namespace ?? (isNamespace ? name : str(own(metadata, 'namespace')) || (CLUSTER_SCOPED.has(kind.kind) ? '' : 'default'));
  const optionsKind = OPTION_KINDS[operation];
  const subResource = options.subResource ?? '';
  return {
    apiVersion: API_VERSION,
    kind: 'AdmissionReview',
    request: {
      uid: options.uid ?? uuid(),
      kind,
      resource,
      ...(subResource ? { subResource } : {}),
      requestKind: kind,
      requestResource: resource,
      ...(subResource ? { requestSubResource: subResource } : {}),
      name,
      namespace,
      operation,
      userInfo: options.userInfo ?? { username: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] },
      object: current,
      oldObject: old,
      dryRun: options.dryRun ?? false,
      options: options.options !== undefined ? options.options : optionsKind ? { apiVersion: 'meta.k8s.io/v1', kind: optionsKind } : null,
    },
  };
}
