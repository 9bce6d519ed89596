import type { Inventory } from './inventory.js';

/**
 * The `admission.k8s.io/v1` wire format (k8s.io/api admission/v1/types.go),
 * and the input document that verdict policies see.
 */

/** `CREATE`, `UPDATE`, `DELETE` or `CONNECT`. */
export type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

/** A Kubernetes kind with its API group and version. */
export interface GroupVersionKind {
  /** `""` for the core group. */
  group: string;
  version: string;
  kind: string;
}

/** A Kubernetes resource (plural) with its API group and version. */
export interface GroupVersionResource {
  /** `""` for the core group. */
  group: string;
  version: string;
  /** Plural, lowercase: `pods`, `deployments`. */
  resource: string;
}

/** The user of an admission request (`request.userInfo`). */
export interface UserInfo {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

/** A Kubernetes object as JSON: `apiVersion`, `kind`, `metadata`, and the rest. */
export type KubernetesObject = Record<string, unknown>;

/** `request` of an AdmissionReview, as the kube-apiserver sends it. */
export interface AdmissionRequest {
  /** Unique per webhook call; the response must echo it. */
  uid: string;
  kind: GroupVersionKind;
  resource: GroupVersionResource;
  subResource?: string;
  requestKind?: GroupVersionKind;
  requestResource?: GroupVersionResource;
  requestSubResource?: string;
  /** `""` on CREATE with `generateName`. */
  name?: string;
  /** `""` for cluster-scoped resources; a Namespace's own name for Namespace objects. */
  namespace?: string;
  operation: Operation;
  userInfo?: UserInfo;
  /** The new object; `null` on DELETE. */
  object?: KubernetesObject | null;
  /** The existing object on UPDATE and DELETE; `null` otherwise. */
  oldObject?: KubernetesObject | null;
  dryRun?: boolean;
  /** CreateOptions, UpdateOptions or DeleteOptions (`meta.k8s.io/v1`). */
  options?: KubernetesObject | null;
}

/** `metav1.Status`, as used in a denial. */
export interface AdmissionStatus {
  status?: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  code?: number;
}

/** `response` of an AdmissionReview. */
export interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  /** Present on denials: `code` 403 (a policy denied) or 500 (evaluation failed and failurePolicy is Fail). */
  status?: AdmissionStatus;
  /** Base64 of the RFC 6902 JSON Patch (mutating webhooks only). */
  patch?: string;
  patchType?: 'JSONPatch';
  /** Annotations the apiserver adds to the audit event, as `<webhook name>/<key>`. */
  auditAnnotations?: Record<string, string>;
  /** Shown to the client (kubectl prints them); also sent with denials. */
  warnings?: string[];
}

/** An AdmissionReview request, as a webhook receives it. */
export interface AdmissionReview {
  apiVersion: 'admission.k8s.io/v1';
  kind: 'AdmissionReview';
  request: AdmissionRequest;
}

/** The AdmissionReview a webhook answers with. */
export interface AdmissionReviewResponse {
  apiVersion: 'admission.k8s.io/v1';
  kind: 'AdmissionReview';
  response: AdmissionResponse;
}

/** A string map of labels (or annotations). */
export type LabelMap = Readonly<Record<string, string>>;

/**
 * The input document policies see, built once per request by `toAdmissionInput`.
 * Objects are the request's own (never copied); mutations are copy-on-write.
 */
export interface AdmissionInput {
  uid: string;
  /** The request's kind, e.g. `{group: "apps", version: "v1", kind: "Deployment"}`. */
  kind: GroupVersionKind;
  /** `group/version` of `kind` (`apps/v1`), or the version alone for the core group (`v1`). */
  apiVersion: string;
  resource: GroupVersionResource;
  /** `""` when the request is not for a subresource. */
  subResource: string;
  requestKind: GroupVersionKind;
  requestResource: GroupVersionResource;
  requestSubResource: string;
  operation: Operation;
  /** `request.name`, else the object's `metadata.name`; `""` on CREATE with generateName. */
  name: string;
  /** `""` for cluster-scoped objects; a Namespace object is its own namespace. */
  namespace: string;
  /** `Cluster` for cluster-scoped resources and Namespaces (the webhook `scope` rule), else `Namespaced`. */
  scope: 'Cluster' | 'Namespaced';
  /** Labels of `object` (of `oldObject` when there is no object, as on DELETE); `{}` when none. */
  labels: LabelMap;
  /** Annotations, read like `labels`. */
  annotations: LabelMap;
  /**
   * Labels of the request's namespace (from the host's lookup; a Namespace's own labels),
   * always with `kubernetes.io/metadata.name`. Absent for cluster-scoped objects and for
   * namespaces the lookup does not know.
   */
  namespaceLabels?: LabelMap;
  userInfo: UserInfo & { username: string; groups: string[] };
  object: KubernetesObject | null;
  oldObject: KubernetesObject | null;
  options: KubernetesObject | null;
  dryRun: boolean;
  /**
   * Other objects, in Gatekeeper's `data.inventory` layout, when the host gives an
   * inventory (the webhook's `inventory` option; `verdict audit`: the audited set).
   */
  inventory?: Inventory;
}
