/**
 * What CEL expressions of admission policies see (apiserver
 * `admission/plugin/cel` activation): `object`, `oldObject`, `request`,
 * `params`, `namespaceObject`. Built from the adapter's input document, once
 * per input.
 */
import { groupVersionKind, groupVersionResource, isObject, own, str } from '../read.js';

/** Root names of a ValidatingAdmissionPolicy expression (besides `variables`). */
export const ADMISSION_CEL_NAMES = ['object', 'oldObject', 'request', 'params', 'namespaceObject'] as const;

type Json = Record<string, unknown>;

const requests = new WeakMap<object, Json>();
const namespaces = new WeakMap<object, Json | null>();

/** Sets `key` when `value` is not empty (the apiserver's `omitempty`). */
function setNonEmpty(out: Json, key: string, value: unknown): void {
  if (value !== undefined && value !== null && value !== '' && !(Array.isArray(value) && value.length === 0)) out[key] = value;
}

/**
 * `request` as the apiserver builds it for CEL (`CreateAdmissionRequest`):
 * the AdmissionRequest without `object`/`oldObject`, empty optional fields left out.
 */
export function celRequest(input: Json): Json {
  const cached = requests.get(input);
  if (cached) return cached;
  const user = own(input, 'userInfo');
  const userInfo: Json = {};
  setNonEmpty(userInfo, 'username', own(user, 'username'));
  setNonEmpty(userInfo, 'uid', own(user, 'uid'));
  setNonEmpty(userInfo, 'groups', own(user, 'groups'));
  const extra = own(user, 'extra');
  if (isObject(extra) && Object.keys(extra).length > 0) userInfo['extra'] = extra;
  const request: Json = {
    uid: str(own(input, 'uid')),
    kind: groupVersionKind(own(input, 'kind')),
    resource: groupVersionResource(own(input, 'resource')),
    requestKind: groupVersionKind(own(input, 'requestKind') ?? own(input, 'kind')),
    requestResource: groupVersionResource(own(input, 'requestResource') ?? own(input, 'resource')),
    operation: str(own(input, 'operation')),
    userInfo,
    dryRun: own(input, 'dryRun') === true,
    options: isObject(own(input, 'options')) ? own(input, 'options') : null,
  };
  setNonEmpty(request, 'subResource', own(input, 'subResource'));
  setNonEmpty(request, 'requestSubResource', own(input, 'requestSubResource'));
  setNonEmpty(request, 'name', own(input, 'name'));
  setNonEmpty(request, 'namespace', own(input, 'namespace'));
  requests.set(input, request);
  return request;
}

/**
 * `namespaceObject`: the request's Namespace with its name and labels (all
 * verdict knows of it, from the namespace lookup). `null` for cluster-scoped
 * requests, for Namespace objects themselves (as the apiserver does), and
 * when the lookup does not know the namespace.
 */
export function celNamespaceObject(input: Json): Json | null {
  if (namespaces.has(input)) return namespaces.get(input)!;
  const kind = own(input, 'kind');
  const isNamespace = own(kind, 'kind') === 'Namespace' && str(own(kind, 'group')) === '';
  const name = str(own(input, 'namespace'));
  const labels = own(input, 'namespaceLabels');
  const out = isNamespace || name === '' || !isObject(labels) ? null : { metadata: { name, labels }, spec: {}, status: {} };
  namespaces.set(input, out);
  return out;
}

/**
 * The activation of admission expressions for one input: `object`,
 * `oldObject` and `params` are own fields; `request` and `namespaceObject`
 * are getters of the class, built when an expression first reads them (most
 * read only `object`). One class: every activation has the same shape.
 */
export class AdmissionActivation {
  readonly object: unknown;
  readonly oldObject: unknown;
  readonly params: unknown;
  readonly #input: Json;
  constructor(input: Json, params: unknown) {
    this.#input = input;
    this.object = own(input, 'object') ?? null;
    this.oldObject = own(input, 'oldObject') ?? null;
    this.params = params === undefined ? null : params;
  }

  get request(): Json {
    return celRequest(this.#input);
  }

  get namespaceObject(): Json | null {
    return celNamespaceObject(this.#input);
  }
}

/** The activation of a ValidatingAdmissionPolicy expression for one input and one parameter object. */
export function admissionActivation(input: Json, params: unknown): Readonly<Record<string, unknown>> {
  return new AdmissionActivation(input, params) as unknown as Readonly<Record<string, unknown>>;
}
