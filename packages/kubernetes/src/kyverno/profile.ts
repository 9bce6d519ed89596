/**
 * What the CEL expressions of a Kyverno ValidatingPolicy see and how they are
 * evaluated (kyverno `pkg/cel/policies/vpol/compiler`): `object`, `oldObject`,
 * `request`, `namespaceObject` and `exceptions` (no PolicyExceptions: empty
 * lists), Kyverno's libraries, validations in order up to the first that fails
 * or errors, and Kyverno's message rule.
 */
import type { CelProfile, FailedValidation } from '@verdict/core';
import { ADMISSION_PARTIAL_ROOTS, admissionActivation } from '../vap/activation.js';
import { KYVERNO_CONSTANTS, KYVERNO_FUNCTIONS, KYVERNO_REFUSED, KYVERNO_TYPES } from './library.js';
import type { KyvernoPolicy } from './types.js';

/** Root names of a ValidatingPolicy expression (besides `variables`). */
export const KYVERNO_CEL_NAMES = ['object', 'oldObject', 'request', 'namespaceObject', 'exceptions'] as const;

const EXCEPTIONS = Object.freeze({ allowedImages: Object.freeze([]), allowedValues: Object.freeze([]) });
/** An optional value of cel-js (duck-typed: the adapter does not depend on the CEL library). */
const isOptional = (v: unknown) => typeof v === 'object' && v !== null && typeof (v as { hasValue?: unknown }).hasValue === 'function' && typeof (v as { value?: unknown }).value === 'function';

/**
 * Kyverno's compatibility rule for `x.orValue(y)` (its `OrValueCompatEnvOptions`, cel-go 0.27 behaviour):
 * on a value that is not optional, `orValue` gives that value.
 */
const OVERRIDES = { '.orValue/1': (values: readonly unknown[]) => (isOptional(values[0]) ? undefined : values[0]) };

/** Kyverno's libraries as a profile's extensions (shared by every Kyverno kind). */
export const KYVERNO_EXTENSIONS = { functions: KYVERNO_FUNCTIONS, types: KYVERNO_TYPES, constants: KYVERNO_CONSTANTS, overrides: OVERRIDES, refuse: KYVERNO_REFUSED };

/**
 * The message of a failed validation, as Kyverno's `evaluateWithData` makes it: the messageExpression's
 * result as it is (its error or a non-string result is reported in the message), else `message`, and
 * "CEL expression validation failed at index <i>" when that leaves nothing.
 */
export function kyvernoMessage(failed: FailedValidation): string {
  let message = failed.message ?? '';
  const m = failed.messageExpression;
  if (m && 'error' in m) message = `failed to evaluate message expression: ${m.error}`;
  else if (m && typeof m.value !== 'string') message = `failed to convert message expression to string: type conversion error from '${typeof m.value}' to 'string'`;
  else if (m) message = m.value as string;
  return message === '' ? `CEL expression validation failed at index ${failed.index}` : message;
}

/** The CEL profile of one Kyverno policy. */
export function kyvernoProfile(policy: KyvernoPolicy): CelProfile {
  return {
    names: KYVERNO_CEL_NAMES,
    literalMessages: true,
    firstFailureOnly: true,
    failureMessage: kyvernoMessage,
    ...(policy.failurePolicy === 'Ignore' ? { matchConditionErrors: 'skip' as const } : {}),
    extensions: KYVERNO_EXTENSIONS,
    partialRoots: ADMISSION_PARTIAL_ROOTS,
    activation: kyvernoActivation,
  };
}

/** The root values of a Kyverno policy's expressions: the admission names without `params`, and `exceptions`. */
export function kyvernoActivation(input: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> {
  const out = admissionActivation(input, null) as Record<string, unknown>;
  delete out['params'];
  out['exceptions'] = EXCEPTIONS;
  return out;
}
