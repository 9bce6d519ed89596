/**
 * What an audit found, in one shape every output format reads: per object,
 * one result per policy rule that applied (pass, fail, warn, error, skip), as
 * PolicyReports count them.
 */
import type { Decision, DecisionError, EnforcementAction, PolicyTrace, Violation } from '@verdict/core';
import type { AdapterName, Outcome } from '@verdict/testing';
import type { CatalogEntry } from './audit-catalog.js';
import type { ManifestProblem } from './audit-parse.js';

/** `pass`, `fail` (deny and audit violations), `warn` (warn violations), `error`, `skip`. */
export type ResultStatus = 'pass' | 'fail' | 'warn' | 'error' | 'skip';

/** One rule of one policy on one object. */
export interface PolicyResult {
  /** The constraint kind (`K8sRequiredLabels`), `Policy`, or `""` for an error of the input itself. */
  kind: string;
  policy: string;
  rule: string;
  enforcementAction: EnforcementAction;
  status: ResultStatus;
  /** Violation messages (fail, warn), the error, or why the rule was skipped; empty for pass. */
  messages: string[];
  /** JSON pointers of the offending elements in the input, when known. */
  paths?: string[];
}

/** One audited object. */
export interface AuditedObject {
  file: string;
  /** 1-based line where the object's document (or List item) starts. */
  line: number;
  adapter: AdapterName;
  apiVersion: string;
  kind: string;
  /** `""` for cluster-scoped objects and inputs that are not Kubernetes objects. */
  namespace: string;
  name: string;
  uid?: string;
  /** False when a deny-enforced violation or error exists (the admission answer would be a denial). */
  allowed: boolean;
  results: PolicyResult[];
  /** Why the object was not decided (then `results` is empty and `allowed` true). */
  skipped?: string;
}

/** The whole audit. */
export interface AuditReport {
  objects: AuditedObject[];
  problems: ManifestProblem[];
  files: number;
  /** The adapter the policies were loaded for. */
  adapter: AdapterName;
  /** Policies loaded, for the reports' rule metadata. */
  policies: readonly CatalogEntry[];
  /**
   * Namespaces objects live in that no Namespace document and no `--config` label set defines: assumed to
   * exist with only the `kubernetes.io/metadata.name` label, as the API server guarantees (none with `--strict-namespaces`).
   */
  assumedNamespaces?: readonly string[];
  /** Manifests read, but not exactly as written (a key given twice: the last value wins, as in kubectl). */
  warnings?: readonly ManifestProblem[];
}

/** Counts for summaries and exit codes. */
export interface AuditSummary {
  files: number;
  objects: number;
  /** Objects with at least one deny violation or deny-enforced error. */
  denied: number;
  /** Objects with at least one warn result (and not denied). */
  warned: number;
  skipped: number;
  problems: number;
  results: Record<ResultStatus, number>;
}

export function summarize(report: AuditReport): AuditSummary {
  const results: Record<ResultStatus, number> = { pass: 0, fail: 0, warn: 0, error: 0, skip: 0 };
  let denied = 0;
  let warned = 0;
  let skipped = 0;
  for (const o of report.objects) {
    if (o.skipped !== undefined) skipped++;
    else if (!o.allowed) denied++;
    else if (o.results.some((r) => r.status === 'warn')) warned++;
    for (const r of o.results) results[r.status]++;
  }
  return { files: report.files, objects: report.objects.length - skipped, denied, warned, skipped, problems: report.problems.length, results };
}

const statusOf = (action: EnforcementAction): ResultStatus => (action === 'warn' ? 'warn' : 'fail');

function errorResult(t: Pick<PolicyTrace, 'kind' | 'policy' | 'enforcementAction'>, errors: readonly DecisionError[], rule = ''): PolicyResult {
  return { kind: t.kind, policy: t.policy, rule, enforcementAction: t.enforcementAction, status: 'error', messages: errors.map((e) => e.message) };
}

function selectionResult(t: PolicyTrace, decision: Decision): PolicyResult | undefined {
  const base = { kind: t.kind, policy: t.policy, rule: 'parameterSelection', enforcementAction: t.enforcementAction };
  switch (t.selection?.outcome) {
    case 'no-match-allow':
      return { ...base, status: 'skip', messages: ['no parameterSelection entry matched (onParameterSelectionNoMatch: allow)'] };
    case 'no-match-warn':
      return { ...base, status: 'warn', messages: decision.warnings.filter((w) => w.startsWith(`[${t.policy}] no parameterSelection`)).map((w) => w.slice(t.policy.length + 3)) };
    case 'no-match-deny': {
      const messages = decision.violations.filter((v) => v.kind === t.kind && v.policy === t.policy && v.rule === 'parameterSelection').map((v) => v.message);
      return { ...base, status: statusOf(t.enforcementAction), messages };
    }
    default:
      return undefined;
  }
}

/** Violations by kind, policy and rule (one pass, so each failed rule's lookup is a map hit). */
function violationIndex(decision: Decision): Map<string, Violation[]> {
  const index = new Map<string, Violation[]>();
  for (const v of decision.violations) {
    const key = `${v.kind}\u0000${v.policy}\u0000${v.rule}`;
    const list = index.get(key);
    if (list) list.push(v);
    else index.set(key, [v]);
  }
  return index;
}

function ruleResult(t: PolicyTrace, rule: string, status: ResultStatus, messages: string[]): PolicyResult {
  return { kind: t.kind, policy: t.policy, rule, enforcementAction: t.enforcementAction, status, messages };
}

/**
 * A mutate rule (with `kubernetes: {mutating: true}`): `warn` when the policy changed the object (the object as
 * stored is not what the mutations would make it), `pass` when it had nothing to change, `error` or `skip` as traced.
 */
function mutateResult(t: PolicyTrace, rule: PolicyTrace['rules'][number], errors: readonly DecisionError[]): PolicyResult | undefined {
  if (rule.result === 'error') return errorResult(t, errors.filter((e) => e.rule === rule.rule), rule.rule);
  if (rule.result === 'skipped') return ruleResult(t, rule.rule, 'skip', rule.message ? [rule.message] : []);
  const ops = (t.patch ?? []).filter((op) => op.op !== 'test');
  if (ops.length === 0) return ruleResult(t, rule.rule, 'pass', []);
  return ruleResult(t, rule.rule, 'warn', [`mutation would apply: ${ops.map((op) => `${op.op} ${op.path || '/'}`).join(', ')}`]);
}

/** The results of one decision: every validate and mutate rule of every policy that matched (policies the index ruled out are absent). */
export function resultsOf(decision: Decision): PolicyResult[] {
  const out: PolicyResult[] = [];
  // Built on the first failed rule only: most objects of an audit pass (audits decide many objects).
  let violations: Map<string, Violation[]> | undefined;
  const hasErrors = decision.errors.length > 0;
  if (hasErrors) {
    const unowned = decision.errors.filter((e) => e.policy === undefined);
    if (unowned.length) out.push({ kind: '', policy: '(input)', rule: '', enforcementAction: 'deny', status: 'error', messages: unowned.map((e) => e.message) });
  }
  for (const t of decision.trace) {
    const errors = hasErrors ? decision.errors.filter((e) => e.kind === t.kind && e.policy === t.policy) : decision.errors;
    if (!t.matched) {
      if (errors.length) out.push(errorResult(t, errors));
      continue;
    }
    const outcome = t.selection?.outcome;
    const selection = outcome === undefined || outcome === 'selected' || outcome === 'no-entries' ? undefined : selectionResult(t, decision);
    if (selection) {
      out.push(selection);
      continue;
    }
    if (hasErrors) {
      const policyErrors = errors.filter((e) => e.rule === undefined);
      if (policyErrors.length) out.push(errorResult(t, policyErrors));
    }
    for (const rule of t.rules) {
      if (rule.type === 'mutate') {
        const result = mutateResult(t, rule, errors);
        if (result) out.push(result);
        continue;
      }
      if (rule.result === 'pass') out.push(ruleResult(t, rule.rule, 'pass', []));
      else if (rule.result === 'skipped') out.push(ruleResult(t, rule.rule, 'skip', rule.message ? [rule.message] : []));
      else if (rule.result === 'error') out.push(errorResult(t, errors.filter((e) => e.rule === rule.rule), rule.rule));
      else {
        violations ??= violationIndex(decision);
        const found = violations.get(`${t.kind}\u0000${t.policy}\u0000${rule.rule}`) ?? [];
        const result = ruleResult(t, rule.rule, statusOf(t.enforcementAction), found.map((v) => v.message));
        const paths = found.flatMap((v) => (v.path !== undefined ? [v.path] : []));
        if (paths.length) result.paths = paths;
        out.push(result);
      }
    }
  }
  return out;
}

/** Results of an outcome: its decision's, or one error result with the adapter's denials when it refused the input before deciding. */
export function outcomeResults(outcome: Outcome): PolicyResult[] {
  if (outcome.decision) return resultsOf(outcome.decision);
  if (outcome.allowed) return [];
  return [{ kind: '', policy: '(input)', rule: '', enforcementAction: 'deny', status: 'error', messages: outcome.denials }];
}
