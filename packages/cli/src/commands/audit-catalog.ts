/**
 * The loaded policies as the reports describe them (SARIF rules, JUnit
 * cases). The list comes from the compiled set, so every kind the adapter
 * loads is there (verdict Policies and constraints, Gatekeeper templates,
 * ValidatingAdmissionPolicy bindings, Kyverno policies...); descriptions and
 * rule messages are read from the documents when they carry them.
 */
import type { EnforcementAction, PolicyDocument, PolicyInfo } from '@verdict/core';

/** One rule of a policy, for report metadata. */
export interface CatalogRule {
  name: string;
  description?: string;
  /** The message template, as written. */
  message?: string;
}

/** One policy (a constraint, a `Policy`, a binding...). */
export interface CatalogEntry {
  kind: string;
  name: string;
  enforcementAction: EnforcementAction;
  /** The policy's or its template's description (`spec.description`, or a `description` annotation). */
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

const DESCRIPTION_ANNOTATIONS = ['description', 'policies.kyverno.io/description', 'metadata.gatekeeper.sh/description'];

function descriptionOf(doc: Doc): string | undefined {
  const annotations = obj(obj(doc['metadata'])['annotations']);
  return text(obj(doc['spec'])['description']) ?? DESCRIPTION_ANNOTATIONS.map((a) => text(annotations[a])).find(Boolean);
}

/** A rule's description and message: a verdict `validate` entry by name, or a CEL `validations[i]` entry by index. */
function ruleOf(name: string, docs: readonly Doc[]): CatalogRule {
  const rule: CatalogRule = { name };
  const index = /^validations\[(\d+)\]$/.exec(name)?.[1];
  for (const doc of docs) {
    const spec = obj(doc['spec']);
    const found = index !== undefined
      ? (Array.isArray(spec['validations']) ? obj(spec['validations'][Number(index)]) : {})
      : obj((Array.isArray(spec['validate']) ? (spec['validate'] as unknown[]) : []).find((r) => obj(r)['name'] === name));
    const description = text(found['description']);
    const message = text(found['message']);
    if (description) rule.description = description;
    if (message) rule.message = message;
    if (description || message) break;
  }
  return rule;
}

function nameOf(doc: Doc): string {
  return String(obj(doc['metadata'])['name'] ?? '');
}

/** The kind a template document defines: a PolicyTemplate's `spec.kind`, a ConstraintTemplate's CRD kind. */
function definedKind(doc: Doc): string | undefined {
  const spec = obj(doc['spec']);
  return text(spec['kind']) ?? text(obj(obj(obj(spec['crd'])['spec'])['names'])['kind']);
}

/**
 * Every loaded policy, in evaluation order. `policies` is the compiled set's
 * list (`PolicySet.policies`); the documents only add descriptions.
 */
export function policyCatalog(policies: readonly PolicyInfo[], documents: readonly PolicyDocument[]): CatalogEntry[] {
  return policies.map((info) => {
    const name = info.name ?? info.template;
    // The policy's own document, then its template (by name, or by the kind it defines); for a policy an adapter
    // derived from another (Kyverno's autogen rules are named `<policy>/autogen-...`), the one it came from.
    const own = documents.filter((d) => d['kind'] === info.kind && nameOf(d) === name);
    const templates = documents.filter((d) => !own.includes(d) && (nameOf(d) === info.template || definedKind(d) === info.kind));
    const base = name.includes('/') ? documents.filter((d) => d['kind'] === info.kind && nameOf(d) === name.slice(0, name.indexOf('/'))) : [];
    const docs = [...own, ...templates, ...base];
    const entry: CatalogEntry = { kind: info.kind, name, enforcementAction: info.enforcementAction, rules: info.validate.map((r) => ruleOf(r, docs)) };
    const description = docs.map(descriptionOf).find(Boolean);
    if (description) entry.description = description;
    return entry;
  });
}

/** `catalog` plus an entry for every policy the results name that it lacks (so every result has its rule). */
export function completeCatalog(catalog: readonly CatalogEntry[], results: Iterable<{ kind: string; policy: string; rule: string; enforcementAction: EnforcementAction }>): CatalogEntry[] {
  const out = catalog.map((e) => ({ ...e, rules: [...e.rules] }));
  const known = new Map(out.map((e) => [`${e.kind}\u0000${e.name}`, e]));
  for (const r of results) {
    if (r.policy === '(input)') continue;
    const key = `${r.kind}\u0000${r.policy}`;
    let entry = known.get(key);
    if (!entry) {
      entry = { kind: r.kind, name: r.policy, enforcementAction: r.enforcementAction, rules: [] };
      known.set(key, entry);
      out.push(entry);
    }
    if (r.rule && !entry.rules.some((x) => x.name === r.rule)) entry.rules.push({ name: r.rule });
  }
  return out;
}
