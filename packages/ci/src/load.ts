/**
 * Loading CI policies: core's loader with the CI match dialect and mutations
 * addressed from the job input's root, plus load-time checks of the reserved
 * parameters `runners` and `reason` in every document that carries them.
 */
import {
  compilePolicies, compileTemplate, parsePolicyDocuments, PolicyLoadError, PolicySet, sourceLocation, type MatchDialect, type PolicyDocument, type PolicySource, type Problem,
} from '@verdict/core';
import type { JobAdmissionError } from './errors.js';
import { isObject } from './check.js';
import { ciMatchDialect } from './match.js';
import { readRunnerRule } from './runners.js';

export interface LoadJobPoliciesOptions {
  /** A file name or label shown in load problems (e.g. `group acme`). */
  source?: string;
  /** Further match dialects, besides the CI one. */
  dialects?: readonly MatchDialect[];
}

function problem(doc: PolicyDocument, index: number, path: string, message: string): Problem {
  const meta = doc['metadata'];
  const name = isObject(meta) && typeof meta['name'] === 'string' ? `${String(doc['kind'])}/${meta['name']}` : undefined;
  return { code: 'INVALID_PARAMETERS', document: index, path, message, ...(name ? { name } : {}), ...sourceLocation(doc, path) };
}

/** Problems with the reserved parameters in a document's `spec.parameters` and each `parameterSelection` entry. */
function reservedParameterProblems(documents: readonly PolicyDocument[]): Problem[] {
  const problems: Problem[] = [];
  documents.forEach((doc, index) => {
    const spec = isObject(doc) && doc['kind'] !== 'PolicyTemplate' ? doc['spec'] : undefined;
    if (!isObject(spec)) return;
    const places: Array<[string, unknown]> = [['/spec/parameters', spec['parameters']]];
    const selection = spec['parameterSelection'];
    if (Array.isArray(selection)) selection.forEach((entry: unknown, i) => places.push([`/spec/parameterSelection/${i}/parameters`, isObject(entry) ? entry['parameters'] : undefined]));
    for (const [at, parameters] of places) {
      if (!isObject(parameters)) continue;
      try {
        readRunnerRule(parameters, 'policy');
      } catch (error) {
        const e = error as JobAdmissionError;
        problems.push(problem(doc, index, `${at}${e.path.replace(/^\/parameters/, '')}`, e.message.replace(/^policy: /, '')));
      }
      const reason = parameters['reason'];
      if (reason !== undefined && reason !== null && typeof reason !== 'string') {
        problems.push(problem(doc, index, `${at}/reason`, `parameter "reason" must be a string (a message template such as "user {{user.login}} is in zone A")`));
      } else if (typeof reason === 'string') {
        try {
          compileTemplate(reason);
        } catch (error) {
          problems.push(problem(doc, index, `${at}/reason`, `parameter "reason" is not a valid message template: ${(error as Error).message}`));
        }
      }
    }
  });
  return problems;
}

/** Sorts problems by document, then line and column (problems without a position keep their place after those with one). */
function inSourceOrder(problems: readonly Problem[]): Problem[] {
  return problems
    .map((p, n) => ({ p, n }))
    .sort((a, b) => a.p.document - b.p.document || (a.p.line ?? Infinity) - (b.p.line ?? Infinity) || (a.p.column ?? 0) - (b.p.column ?? 0) || a.n - b.n)
    .map(({ p }) => p);
}

/**
 * Compiles CI policies (YAML/JSON text, documents, or a compiled set, which is
 * returned as is): the `ci` match dialect is registered and mutations address
 * the job input root (`/tags/-`). Throws core's `PolicyLoadError` listing
 * every problem, including malformed `runners` or `reason` parameters.
 */
export function loadJobPolicies(source: PolicySource, options: LoadJobPoliciesOptions = {}): PolicySet {
  if (source instanceof PolicySet) return source;
  const documents = typeof source === 'string' ? parsePolicyDocuments(source, options.source ? { source: options.source } : {}) : source;
  const problems = reservedParameterProblems(documents);
  let set: PolicySet | undefined;
  try {
    set = compilePolicies(documents, { dialects: [ciMatchDialect, ...(options.dialects ?? [])], mutationTarget: '' });
  } catch (error) {
    if (error instanceof PolicyLoadError) throw new PolicyLoadError(inSourceOrder([...error.problems, ...problems]));
    throw error;
  }
  if (problems.length > 0) throw new PolicyLoadError(problems);
  return set;
}
