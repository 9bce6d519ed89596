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

/** The fields of the CEL `request`, in the apiserver's order. */
const REQUEST_FIELDS = ['uid', 'kind', 'resource', 'requestKind', 'requestResource', 'operation', 'userInfo', 'dryRun', 'options', 'subResource', 'requestSubResource', 'name', 'namespace'] as const;

/** `value`, or `undefined` when it is empty (the apiserver's `omitempty`). */
function nonEmpty(value: unknown): unknown {
  return value === null || value === '' || (Array.isArray(value) && value.length === 0) ? undefined : value;
}

function celUserInfo(user: unknown): Json {
  const userInfo: Json = {};
  for (const key of ['username', 'uid', 'groups'] as const) {
    const value = nonEmpty(own(user, key));
    if (value !== undefined) userInfo[key] = value;
  }
  const extra = own(user, 'extra');
  if (isObject(extra) && Object.keys(extra).length > 0) userInfo['extra'] = extra;
  return userInfo;
}

/** One field of the CEL `request` (see {@link celRequest}), or `undefined` when the request leaves it out. */
function requestField(input: Json, key: string): unknown {
  switch (key) {
    case 'uid': case 'operation': return str(own(input, key));
    case 'kind': return groupVersionKind(own(input, 'kind'));
    case 'resource': return groupVersionResource(own(input, 'resource'));
    case 'requestKind': return groupVersionKind(own(input, 'requestKind') ?? own(input, 'kind'));
    case 'requestResource': return groupVersionResource(own(input, 'requestResource') ?? own(input, 'resource'));
    case 'userInfo': return celUserInfo(own(input, 'userInfo'));
    case 'dryRun': return own(input, 'dryRun') === true;
    case 'options': {
      const options = own(input, 'options');
      return isObject(options) ? options : null;
    }
    case 'subResource': case 'requestSubResource': case 'name': case 'namespace': return nonEmpty(own(input, key));
    default: return undefined;
  }
}

/** The fields `keys` of the CEL `request`, each as {@link celRequest} has it (absent where it has none). */
function requestFields(input: Json, keys: readonly string[]): Json {
  const out: Json = {};
  for (const key of keys) {
    const value = requestField(input, key);
    if (value !== undefined) out[key] = value;
  }
  return out;
}

/**
 * `request` as the apiserver builds it for CEL (`CreateAdmissionRequest`):
 * the AdmissionRequest without `object`/`oldObject`, empty optional fields left out.
 */
export function celRequest(input: Json): Json {
  const cached = requests.get(input);
  if (cached) return cached;
  const request = requestFields(input, REQUEST_FIELDS);
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

  /** The fields `keys` of {@link request}, built without the rest (an expression reading `request.operation` only). */
  requestFields(keys: readonly string[]): Json {
    return requestFields(this.#input, keys);
  }

  get namespaceObject(): Json | null {
    return celNamespaceObject(this.#input);
  }
}

/**
 * `CelProfile.partialRoots` of the admission profiles: `request` built with only the fields an expression
 * reads (Gatekeeper's `variables.anyObject` reads `request.operation` on every review).
 */
export const ADMISSION_PARTIAL_ROOTS = Object.freeze({
  request: (activation: Readonly<Record<string, unknown>>, fields: readonly string[]): unknown =>
    activation instanceof AdmissionActivation ? activation.requestFields(fields) : activation['request'],
});

/** The activation of a ValidatingAdmissionPolicy expression for one input and one parameter object. */
export function admissionActivation(input: Json, params: unknown): Readonly<Record<string, unknown>> {
  return new AdmissionActivation(input, params) as unknown as Readonly<Record<string, unknown>>;
}

/**
 * The API server's cost limits for ValidatingAdmissionPolicy and MutatingAdmissionPolicy
 * (k8s.io/apiserver/pkg/apis/cel/config.go): `PerCallLimit`, the units one expression may spend, and
 * `RuntimeCELCostBudget`, the units the validations of one binding's evaluation may spend together. Past either,
 * the expression or the policy fails and its failurePolicy decides (docs/security.md).
 */
export const API_SERVER_COST_LIMITS = Object.freeze({ expression: 1_000_000, policy: 10_000_000 });
