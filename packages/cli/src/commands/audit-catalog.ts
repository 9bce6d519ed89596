/**
 * The loaded policies as the reports describe them (SARIF rules, JUnit
 * cases): each constraint or Policy with its template's description and its
 * validate rules, read from the documents (which loaded, so are well-formed).
 */
import type { EnforcementAction, PolicyDocument } from '@verdict/core';

/** One rule of a policy, for report metadata. */
export interface CatalogRule {
  name: string;
  description?: string;
  /** The message template, as written. */
  message?: string;
}

/** One policy (a constraint or a `Policy`). */
export interface CatalogEntry {
  kind: string;
  name: string;
  enforcementAction: EnforcementAction;
  /** The template's (or the Policy's) `spec.description`. */
  description?: string;
  rules: CatalogRule[];
}

type Doc = Record<string, unknown>;

function obj(value: unknown): Doc {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Doc) : {};
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

function rulesOf(spec: Doc): CatalogRule[] {
  const validate = Array.isArray(spec['validate']) ? (spec['validate'] as unknown[]) : [];
  return validate.map((raw) => {
    const r = obj(raw);
    const rule: CatalogRule = { name: String(r['name'] ?? '') };
    const description = text(r['description']);
    const message = text(r['message']);
    if (description) rule.description = description;
    if (message) rule.message = message;
    return rule;
  });
}

function actionOf(spec: Doc): EnforcementAction {
  const action = spec['enforcementAction'];
  return action === 'warn' ? 'warn' : action === 'audit' || action === 'dryrun' ? 'audit' : 'deny';
}

/** Every constraint and Policy of `documents`, in document order. */
export function policyCatalog(documents: readonly PolicyDocument[]): CatalogEntry[] {
  const templates = new Map<string, Doc>();
  for (const doc of documents) {
    if (doc['kind'] === 'PolicyTemplate') templates.set(String(obj(doc['spec'])['kind']), obj(doc['spec']));
  }
  const out: CatalogEntry[] = [];
  for (const doc of documents) {
    const kind = String(doc['kind'] ?? '');
    const spec = obj(doc['spec']);
    const logic = kind === 'Policy' ? spec : templates.get(kind);
    if (!logic) continue;
    const entry: CatalogEntry = { kind, name: String(obj(doc['metadata'])['name'] ?? ''), enforcementAction: actionOf(spec), rules: rulesOf(logic) };
    const description = text(logic['description']) ?? text(obj(obj(doc['metadata'])['annotations'])['description']);
    if (description) entry.description = description;
    out.push(entry);
  }
  return out;
}
