import { compilePolicies, type CompileOptions } from './compile.js';
import { PolicySet } from './evaluate.js';
import { parsePolicyDocuments, type PolicyDocument } from './parse.js';

/** Policies as adapters accept them: YAML/JSON text, parsed documents, or a compiled set. */
export type PolicySource = string | readonly PolicyDocument[] | PolicySet;

/**
 * Turns any {@link PolicySource} into a {@link PolicySet}: text is parsed,
 * documents are compiled with `options`, a compiled set is returned as is.
 * Throws `PolicyLoadError` like the functions it calls.
 */
export function loadPolicySet(source: PolicySource, options: CompileOptions & { source?: string } = {}): PolicySet {
  if (source instanceof PolicySet) return source;
  const documents = typeof source === 'string' ? parsePolicyDocuments(source, options.source ? { source: options.source } : {}) : source;
  return compilePolicies(documents, options);
}
