/**
 * Static analysis of compiled policies: what no peer catches. A
 * `parameterSelection` entry that can never be chosen (after a catch-all
 * under MatchFirst, a repeat of an earlier entry's selector, or label
 * requirements that contradict the constraint's own `match`), a `match`
 * that can never hold, and a patch path that nests below a label or
 * annotation key (lint-patches.ts).
 */
import type { CompiledPolicy, TemplateUnit } from './compile.js';
import { lintPatchPaths } from './lint-patches.js';
import { sourceLocation } from './parse.js';
import { MATCH_ALL, type Fact } from './selectors/node.js';

/** A problem found by `PolicySet.lint()`: a parameterSelection entry that can never be chosen, or a match that no input can satisfy. */
export interface LintFinding {
  /**
   * `UNREACHABLE_ENTRY`: a parameterSelection entry that can never be chosen; `UNSATISFIABLE_MATCH`: a match that can never hold;
   * `NESTED_METADATA_KEY`: a patch path that nests below a label or annotation key (write "/" in a key as "~1").
   */
  code: 'UNREACHABLE_ENTRY' | 'UNSATISFIABLE_MATCH' | 'NESTED_METADATA_KEY';
  kind: string;
  policy: string;
  /** Index of the parameterSelection entry, for UNREACHABLE_ENTRY. */
  entry?: number;
  /** JSON pointer in the policy document. */
  path: string;
  message: string;
  /** Index of the document in the loaded list, and its source position when it was parsed from text. */
  document: number;
  source?: string;
  line?: number;
  column?: number;
}

interface Group {
  allowed?: Set<string>;
  excluded: Set<string>;
  exists?: boolean;
  absent?: boolean;
}

/** True when no label map can satisfy all the facts together. */
function contradicts(facts: readonly Fact[]): boolean {
  const groups = new Map<string, Group>();
  for (const f of facts) {
    const key = f.path.join('\u0000');
    const g = groups.get(key) ?? { excluded: new Set<string>() };
    groups.set(key, g);
    if (f.in) g.allowed = g.allowed ? new Set([...g.allowed].filter((v) => f.in!.includes(v))) : new Set(f.in);
    if (f.notIn) for (const v of f.notIn) g.excluded.add(v);
    if (f.exists === true) g.exists = true;
    if (f.exists === false) g.absent = true;
  }
  for (const g of groups.values()) {
    if (g.allowed && [...g.allowed].every((v) => g.excluded.has(v))) return true;
    if (g.absent && (g.exists || g.allowed)) return true;
  }
  return false;
}

/** The facts of `against` that, with `fact`, cannot hold together. */
function culprits(fact: Fact, against: readonly Fact[]): Fact[] {
  const same = against.filter((f) => f.path.join('\u0000') === fact.path.join('\u0000'));
  return contradicts([fact, ...same]) ? same : [];
}

export function lintPolicies(policies: readonly CompiledPolicy[]): LintFinding[] {
  const findings: LintFinding[] = [];
  const templates = new Set<TemplateUnit>();
  for (const p of policies) {
    if (!templates.has(p.template)) {
      templates.add(p.template);
      findings.push(...patchFindings(p.template));
    }
    const report = (finding: Omit<LintFinding, 'kind' | 'policy' | 'document'>) => {
      const path = p.document.path ? p.document.path(finding.path) : finding.path;
      const f: LintFinding = { kind: p.kind, policy: p.name, ...finding, path, document: p.document.index };
      const loc = sourceLocation(p.document.object, path);
      if (loc) Object.assign(f, loc);
      findings.push(f);
    };
    const top = p.match.facts ?? [];
    if (contradicts(top)) {
      report({ code: 'UNSATISFIABLE_MATCH', path: '/spec/match', message: `spec.match can never hold: ${top.map((f) => f.text).join(' and ')}` });
      continue;
    }
    p.entries.forEach((entry, i) => {
      const path = `/spec/parameterSelection/${i}`;
      const label = `parameterSelection entry ${i}${entry.ref.name ? ` ("${entry.ref.name}")` : ''}`;
      if (p.behavior === 'MatchFirst') {
        const catchAll = p.entries.findIndex((e, j) => j < i && e.match === MATCH_ALL);
        if (catchAll >= 0) {
          report({ code: 'UNREACHABLE_ENTRY', entry: i, path, message: `${label} can never be chosen: entry ${catchAll} has no match (it matches everything) and MatchFirst stops there; move the catch-all last` });
          return;
        }
        const twin = p.entries.findIndex((e, j) => j < i && e.match !== MATCH_ALL && e.match.text === entry.match.text);
        if (twin >= 0) {
          report({ code: 'UNREACHABLE_ENTRY', entry: i, path: `${path}/match`, message: `${label} can never be chosen: entry ${twin} has the same selector (${entry.match.text}) and MatchFirst stops there` });
          return;
        }
      }
      const own = entry.match.facts ?? [];
      if (contradicts(own)) {
        report({ code: 'UNREACHABLE_ENTRY', entry: i, path: `${path}/match`, message: `${label} can never be chosen: its own selector can never match (${own.map((f) => f.text).join(' and ')})` });
        return;
      }
      for (const fact of own) {
        const against = culprits(fact, top);
        if (against.length > 0) {
          report({
            code: 'UNREACHABLE_ENTRY', entry: i, path: `${path}/match`,
            message: `${label} can never be chosen: it requires ${fact.text}, but spec.match excludes that (${against.map((f) => f.text).join(' and ')})`,
          });
          return;
        }
      }
    });
  }
  return findings;
}

/** Patch path findings of a template, once per template (not per constraint), located in the template's document. */
function patchFindings(unit: TemplateUnit): LintFinding[] {
  return lintPatchPaths(unit).map(({ path, message }) => {
    const kind = (unit.origin?.object as { kind?: unknown } | undefined)?.kind;
    const finding: LintFinding = { code: 'NESTED_METADATA_KEY', kind: typeof kind === 'string' ? kind : unit.kind, policy: unit.name, path, message, document: unit.origin?.index ?? 0 };
    const loc = unit.origin ? sourceLocation(unit.origin.object, path) : undefined;
    if (loc) Object.assign(finding, loc);
    return finding;
  });
}
