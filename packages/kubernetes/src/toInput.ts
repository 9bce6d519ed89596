/**
 * Builds the input document policies see, once per request. Nothing is
 * copied: `object`, `oldObject`, `labels` and `userInfo` are the request's own
 * values (core's mutations are copy-on-write and never touch them).
 */
import { EMPTY, groupVersionKind, groupVersionResource, isNamespaceKind, isObject, metadataMap, metadataOf, NAMESPACE_NAME_LABEL, str, withNameLabel } from './read.js';
import { requestOf } from './review.js';
import type { Inventory } from './inventory.js';
import type { AdmissionInput, AdmissionRequest, GroupVersionKind, GroupVersionResource, KubernetesObject, LabelMap, UserInfo } from './types.js';

/** A validated {group, version, kind} is used as it is; one without `group` (the core group) gets `group: ""`. */
function gvk(value: unknown): GroupVersionKind {
  return isObject(value) && typeof value['group'] === 'string' ? value as unknown as GroupVersionKind : groupVersionKind(value);
}

function gvr(value: unknown): GroupVersionResource {
  return isObject(value) && typeof value['group'] === 'string' ? value as unknown as GroupVersionResource : groupVersionResource(value);
}

function objectOrNull(value: unknown): KubernetesObject | null {
  return isObject(value) ? value : null;
}

function normalUser(value: unknown): AdmissionInput['userInfo'] {
  if (isObject(value) && typeof value['username'] === 'string' && Array.isArray(value['groups'])) return value as unknown as AdmissionInput['userInfo'];
  const user = (isObject(value) ? value : {}) as UserInfo;
  return { ...user, username: str(user.username), groups: Array.isArray(user.groups) ? user.groups : [] };
}

/** Whether the request is about a Namespace object (kind `Namespace` in the core group). */
export function isNamespaceRequest(request: AdmissionRequest): boolean {
  return isNamespaceKind(request);
}

/** Name and namespace as the input holds them (a Namespace object is its own namespace). */
export function requestNames(request: AdmissionRequest, isNamespace = isNamespaceRequest(request)): { name: string; namespace: string } {
  const metadata = metadataOf(objectOrNull(request.object) ?? objectOrNull(request.oldObject));
  const name = str(request.name) || str(metadata?.['name']);
  const namespace = isNamespace ? name || str(request.namespace) : str(request.namespace) || str(metadata?.['namespace']);
  return { name, namespace };
}

/**
 * The namespace whose labels the host must look up for this request, or `''`
 * when none is needed (cluster-scoped objects; a Namespace carries its own).
 */
export function namespaceToLookUp(request: AdmissionRequest): string {
  return isNamespaceRequest(request) ? '' : requestNames(request, false).namespace;
}

/** The input for a validated request; `namespaceLabels` already carry `kubernetes.io/metadata.name`. */
export function buildInput(request: AdmissionRequest, namespaceLabels: LabelMap | undefined, inventory?: Inventory): AdmissionInput {
  const object = objectOrNull(request.object);
  const oldObject = objectOrNull(request.oldObject);
  const current = object ?? oldObject;
  const kind = gvk(request.kind);
  const resource = gvr(request.resource);
  const subResource = str(request.subResource);
  const isNamespace = isNamespaceRequest(request);
  const { name, namespace } = requestNames(request, isNamespace);
  const input: AdmissionInput = {
    uid: request.uid,
    kind,
    apiVersion: kind.group === '' ? kind.version : `${kind.group}/${kind.version}`,
    resource,
    subResource,
    requestKind: isObject(request.requestKind) ? gvk(request.requestKind) : kind,
    requestResource: isObject(request.requestResource) ? gvr(request.requestResource) : resource,
    requestSubResource: typeof request.requestSubResource === 'string' ? request.requestSubResource : subResource,
    operation: request.operation,
    name,
    namespace,
    scope: isNamespace || namespace === '' || (resource.group === '' && resource.resource === 'namespaces') ? 'Cluster' : 'Namespaced',
    labels: (metadataMap(current, 'labels') as LabelMap | undefined) ?? EMPTY,
    annotations: (metadataMap(current, 'annotations') as LabelMap | undefined) ?? EMPTY,
    userInfo: normalUser(request.userInfo),
    object,
    oldObject,
    options: objectOrNull(request.options),
    dryRun: request.dryRun === true,
  };
  if (isNamespace) input.namespaceLabels = withNameLabel(metadataMap(current, 'labels'), namespace);
  else if (namespace !== '' && namespaceLabels) input.namespaceLabels = namespaceLabels;
  if (inventory) input.inventory = inventory;
  return input;
}

/**
 * The input document for an AdmissionReview v1 (see docs/kubernetes.md for its
 * shape), for evaluating a policy set yourself. `namespaceLabels` are the labels
 * of the request's namespace (ignored for Namespace objects, which carry their
 * own); `kubernetes.io/metadata.name` is added as the apiserver does;
 * `inventory` becomes the input's `inventory`. Throws `AdmissionError` when
 * `review` is not an AdmissionReview v1.
 */
export function toAdmissionInput(review: unknown, options: { namespaceLabels?: Readonly<Record<string, string>>; inventory?: Inventory } = {}): AdmissionInput {
  const request = requestOf(review);
  const lookup = namespaceToLookUp(request);
  const labels = lookup && options.namespaceLabels ? withNameLabel(options.namespaceLabels, lookup) : undefined;
  return buildInput(request, labels, options.inventory);
}

export { NAMESPACE_NAME_LABEL };
