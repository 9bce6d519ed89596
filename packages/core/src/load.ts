import { compilePolicies, hasLimits, type CompileOptions } from './compile.js';
import { VerdictError } from './errors.js';
import { PolicySet } from './evaluate.js';
import { parsePolicyDocuments, type PolicyDocument } from './parse.js';

/** Policies as adapters accept them: YAML/JSON text, parsed documents, or a compiled set. */
export type PolicySource = string | readonly PolicyDocument[] | PolicySet;

/**
 * Turns any {@link PolicySource} into a {@link PolicySet}: text is parsed,
 * documents are compiled with `options`, a compiled set is returned as is.
 * Throws `PolicyLoadError` like the functions it calls, and `VerdictError`
 * (`INVALID_INPUT`) when evaluation limits are given with a compiled set.
 */
export function loadPolicySet(source: PolicySource, options: CompileOptions & { source?: string } = {}): PolicySet {
  if (source instanceof PolicySet) {
    if (hasLimits(options)) throw new VerdictError('INVALID_INPUT', 'costBudget, maxViolations and maxMessageLength apply when policies are compiled; pass them to compilePolicies, or give the policies as text or documents');
    return source;
  }
  const documents = typeof source === 'string' ? parsePolicyDocuments(source, options.source ? { source: options.source } : {}) : source;
  return compilePolicies(documents, options);
}
