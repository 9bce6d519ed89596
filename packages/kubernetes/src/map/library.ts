/**
 * The CEL names MutatingAdmissionPolicy expressions add to ValidatingAdmissionPolicy's:
 * `jsonpatch.escapeKey(string)` (apiserver `cel/library/jsonpatch.go`), which escapes a key for use
 * in a JSON Patch path ("~" as "~0", "/" as "~1"), as RFC 6901 says.
 */
import type { CelConstant, CelFunction, CelProfile, CelType } from '@verdict/core';
import { encode } from './json-patch-doc.js';
import { codePoints } from '../read.js';
import { admissionActivation, ADMISSION_CEL_NAMES, ADMISSION_PARTIAL_ROOTS, API_SERVER_COST_LIMITS } from '../vap/activation.js';

/** The value of the `jsonpatch` identifier (a namespace: only its functions are used). */
class JsonPatchNamespace {}

const NAMESPACE = 'kubernetes.JsonPatchNamespace';
/** The `jsonpatch` namespace (also in Kyverno's MutatingPolicy environment). */
export const JSONPATCH_TYPES: readonly CelType[] = [{ name: NAMESPACE, type: JsonPatchNamespace }];
export const JSONPATCH_CONSTANTS: readonly CelConstant[] = [{ name: 'jsonpatch', type: NAMESPACE, value: new JsonPatchNamespace() }];
export const JSONPATCH_FUNCTIONS: readonly CelFunction[] = [
  // The API server's units: Kubernetes' library/cost.go charges it a traversal of the key, ⌈code points ⁄ 10⌉.
  { signature: `${NAMESPACE}.escapeKey(string): string`, handler: (_ns: JsonPatchNamespace, key: string) => encode(key), cost: (args) => Math.ceil(codePoints(args[1] as string) / 10) },
];

/** The CEL profile of a MutatingAdmissionPolicy: ValidatingAdmissionPolicy's names and `jsonpatch`; `params` only with a paramRef. */
export function mutatingProfile(usesParams: boolean): CelProfile {
  return {
    names: ADMISSION_CEL_NAMES,
    extensions: { types: JSONPATCH_TYPES, constants: JSONPATCH_CONSTANTS, functions: JSONPATCH_FUNCTIONS },
    partialRoots: ADMISSION_PARTIAL_ROOTS,
    costLimits: API_SERVER_COST_LIMITS,
    objectConstructions: true,
    activation: (input, parameters) => admissionActivation(input, usesParams ? parameters : null),
  };
}
