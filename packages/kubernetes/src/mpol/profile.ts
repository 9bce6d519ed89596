/**
 * What the CEL expressions of a Kyverno MutatingPolicy see (kyverno
 * `pkg/cel/policies/mpol/compiler`): `object`, `oldObject`, `request`,
 * `namespaceObject`, `variables` and `exceptions` (no PolicyExceptions: empty
 * lists), Kyverno's libraries and the Kubernetes `jsonpatch` library.
 */
import type { CelFunction, CelProfile } from '@verdict/core';
import { ADMISSION_PARTIAL_ROOTS } from '../vap/activation.js';
import { KYVERNO_CEL_NAMES, KYVERNO_EXTENSIONS, kyvernoActivation } from '../kyverno/profile.js';
import { JSONPATCH_CONSTANTS, JSONPATCH_FUNCTIONS, JSONPATCH_TYPES } from '../map/library.js';

/**
 * The function an autogen variant's mutation calls when its rewritten constructions do not match their field
 * paths: Kyverno compiles such a variant and fails when it runs (`CheckTypeNamesMatchFieldPathNames`), so the
 * mismatch is an evaluation error of the variant, never a load error of the policy.
 */
export const AUTOGEN_ERROR = '__verdict_autogen_error';

const FAIL: CelFunction = { signature: `${AUTOGEN_ERROR}(string): dyn`, handler: (message: string) => { throw new Error(message); } };

const EXTENSIONS = {
  ...KYVERNO_EXTENSIONS,
  functions: [...KYVERNO_EXTENSIONS.functions, ...JSONPATCH_FUNCTIONS, FAIL],
  types: [...KYVERNO_EXTENSIONS.types, ...JSONPATCH_TYPES],
  constants: [...KYVERNO_EXTENSIONS.constants, ...JSONPATCH_CONSTANTS],
};

/** The CEL profile of every Kyverno MutatingPolicy (one object: the environment is built once). */
export const MUTATING_POLICY_PROFILE: CelProfile = {
  names: KYVERNO_CEL_NAMES,
  extensions: EXTENSIONS,
  partialRoots: ADMISSION_PARTIAL_ROOTS,
  objectConstructions: true,
  activation: kyvernoActivation,
};
