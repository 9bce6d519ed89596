/**
 * Linting policies written in an adapter's match vocabulary. Core's
 * `PolicySet.lint()` reasons over label requirements it can see; an
 * adapter's selectors (Gatekeeper's `namespaceSelector`, CI's `users`, …)
 * are opaque predicates to it. So the documents are also linted in a core
 * translation: `namespaceSelector` becomes a label selector over
 * `namespaceLabels` (what it reads for namespaced objects), `labelSelector` one
 * over the object's labels, and every other adapter key a condition unique to
 * its content (so equal blocks stay equal and no block becomes a catch-all).
 * Findings are mapped back to the original paths and lines.
 */
import { compilePolicies, sourceLocation, type LintFinding, type PolicyDocument } from '@verdict/core';
import { unboundAdmissionPolicies } from '@verdict/testing/internal';
import { adapterPackage, loadPoliciesFor, PERMISSIONS_KIND } from './detect.js';
import type { AdapterName } from '@verdict/testing';

const CORE_KEYS = new Set(['labels', 'fields', 'when', 'all', 'any', 'not']);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Translated path segment → original one, per document. */
type Renames = Map<string, string>;

function translateBlock(block: unknown, at: string, renames: Renames): unknown {
  if (Array.isArray(block)) return block.map((b, i) => translateBlock(b, `${at}/${i}`, renames));
  if (!isObject(block)) return block;
  const out: Record<string, unknown> = {};
  const opaque: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(block)) {
    if (key === 'all' || key === 'any') out[key] = translateBlock(value, `${at}/${key}`, renames);
    else if (key === 'not') out[key] = translateBlock(value, `${at}/not`, renames);
    else if (CORE_KEYS.has(key)) out[key] = value;
    else if (key === 'namespaceSelector' && isObject(value) && !('labels' in out)) {
      out['labels'] = { ...value, path: 'namespaceLabels' };
      renames.set(`${at}/labels`, `${at}/namespaceSelector`);
    } else opaque[key] = value;
  }
  if (isObject(opaque['labelSelector']) && !('labels' in out)) {
    out['labels'] = { ...(opaque['labelSelector'] as object), path: 'object.metadata.labels' };
    renames.set(`${at}/labels`, `${at}/labelSelector`);
    delete opaque['labelSelector'];
  }
  if (Object.keys(opaque).length > 0) {
    const condition = { '==': [{ var: '__verdict_lint_opaque' }, JSON.stringify(opaque)] };
    out['when'] = 'when' in out ? { and: [out['when'], condition] } : condition;
  }
  return out;
}

function translate(doc: PolicyDocument, renames: Renames): PolicyDocument {
  const kind = doc['kind'];
  const spec = doc['spec'];
  if (kind === 'PolicyTemplate' || !isObject(spec)) return doc;
  const out: Record<string, unknown> = { ...spec };
  if (spec['match'] !== undefined) out['match'] = translateBlock(spec['match'], '/spec/match', renames);
  if (Array.isArray(spec['parameterSelection'])) {
    out['parameterSelection'] = spec['parameterSelection'].map((entry, i) =>
      isObject(entry) && entry['match'] !== undefined ? { ...entry, match: translateBlock(entry['match'], `/spec/parameterSelection/${i}/match`, renames) } : entry);
  }
  return { ...doc, spec: out };
}

function restore(path: string, renames: Renames): string {
  for (const [from, to] of renames) {
    if (path === from || path.startsWith(`${from}/`)) return to + path.slice(from.length);
  }
  return path;
}

/** A lint finding: core's, or `UNBOUND_POLICY` (an admission policy no binding names: it admits everything). */
export type Finding = Omit<LintFinding, 'code'> & { code: LintFinding['code'] | 'UNBOUND_POLICY' };

/**
 * Lints documents as `adapter` compiles them (they must load: call
 * `loadPoliciesFor` first for the load problems). For an adapter, the core
 * translation's findings are added to the adapter set's own, without
 * duplicates, with the original paths and source lines.
 */
export function lintPolicies(adapter: AdapterName, documents: readonly PolicyDocument[]): Finding[] {
  const own: Finding[] = loadPoliciesFor(adapter, documents).lint();
  if (adapter === 'core') return own;
  // A ValidatingAdmissionPolicy or MutatingAdmissionPolicy no binding names loads, and does nothing.
  if (adapter === 'kubernetes') own.push(...unboundAdmissionPolicies(documents).map((u) => ({ ...u, code: 'UNBOUND_POLICY' as const })));
  const renames = documents.map(() => new Map<string, string>() as Renames);
  const docs = documents.map((d, i) => translate(d, renames[i]!));
  const definesPermissions = documents.some((d) => d['kind'] === 'PolicyTemplate' && isObject(d['spec']) && d['spec']['kind'] === PERMISSIONS_KIND);
  if (adapter === 'spinnaker' && !definesPermissions) docs.push(adapterPackage('spinnaker').PERMISSIONS_TEMPLATE);
  let translated: LintFinding[];
  try {
    translated = compilePolicies(docs).lint();
  } catch {
    return own; // The translation does not load (e.g. an adapter-only template feature): nothing more to say.
  }
  const seen = new Set(own.map((f) => `${f.document} ${f.code} ${f.path}`));
  const out = [...own];
  for (const finding of translated) {
    const path = restore(finding.path, renames[finding.document]!);
    const key = `${finding.document} ${finding.code} ${path}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const doc = documents[finding.document];
    const loc = doc ? sourceLocation(doc, path) : undefined;
    const { line: _line, column: _column, source: _source, ...rest } = finding;
    // Say it in the document's words: the translation's label paths are Gatekeeper's selectors.
    const words = [...renames[finding.document]!.values()];
    let message = rest.message;
    if (words.some((w) => w.endsWith('/namespaceSelector'))) message = message.replaceAll('namespaceLabels: ', 'namespaceSelector: ');
    if (words.some((w) => w.endsWith('/labelSelector'))) message = message.replaceAll('object.metadata.labels: ', 'labelSelector: ');
    out.push({ ...rest, message, path, ...(loc ? { ...(loc.source ? { source: loc.source } : {}), line: loc.line, column: loc.column } : {}) });
  }
  return out.sort((a, b) => a.document - b.document || (a.line ?? 0) - (b.line ?? 0));
}
