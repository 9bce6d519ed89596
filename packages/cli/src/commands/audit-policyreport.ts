/**
 * `verdict audit -o policyreport`: `wgpolicyk8s.io/v1alpha2` reports as
 * Kyverno writes them, ready for `kubectl apply -f -` and Policy Reporter:
 * one `PolicyReport` per namespace and one `ClusterPolicyReport` for
 * cluster-scoped objects (and inputs that are not Kubernetes objects), each
 * result naming its resource, with a summary of pass/fail/warn/error/skip.
 * A result per passing rule; a result per violation message for fail and
 * warn. Printed as a YAML stream, one report per document.
 */
import { stringify } from 'yaml';
import type { AuditReport, AuditedObject, PolicyResult, ResultStatus } from './audit-results.js';

/** Name of every report this command writes (namespaced reports are told apart by their namespace). */
export const REPORT_NAME = 'verdict-audit';

interface ReportResult {
  policy: string;
  rule: string;
  result: ResultStatus;
  scored: boolean;
  source: string;
  category?: string;
  message: string;
  timestamp: { seconds: number; nanos: number };
  resources?: Array<Record<string, string>>;
  properties: Record<string, string>;
}

interface Report {
  apiVersion: 'wgpolicyk8s.io/v1alpha2';
  kind: 'PolicyReport' | 'ClusterPolicyReport';
  metadata: { name: string; namespace?: string; labels: Record<string, string> };
  summary: Record<ResultStatus, number>;
  results: ReportResult[];
}

function resourceOf(o: AuditedObject): Record<string, string> {
  const ref: Record<string, string> = {};
  if (o.apiVersion) ref['apiVersion'] = o.apiVersion;
  if (o.kind) ref['kind'] = o.kind;
  if (o.name) ref['name'] = o.name;
  if (o.namespace) ref['namespace'] = o.namespace;
  if (o.uid) ref['uid'] = o.uid;
  return ref;
}

function messagesOf(r: PolicyResult): string[] {
  if (r.status === 'pass') return [`rule ${r.rule} passed`];
  if (r.messages.length) return r.messages;
  return [`rule ${r.rule} ${r.status === 'skip' ? 'was skipped' : r.status === 'error' ? 'failed to evaluate' : 'failed'}`];
}

function resultsOf(o: AuditedObject, seconds: number): ReportResult[] {
  const out: ReportResult[] = [];
  for (const r of o.results) {
    for (const message of messagesOf(r)) {
      const result: ReportResult = {
        policy: r.policy,
        rule: r.rule,
        result: r.status,
        scored: true,
        source: 'verdict',
        ...(r.kind ? { category: r.kind } : {}),
        message,
        timestamp: { seconds, nanos: 0 },
        resources: [resourceOf(o)],
        properties: { enforcementAction: r.enforcementAction, file: o.file, line: String(o.line) },
      };
      out.push(result);
    }
  }
  return out;
}

function empty(kind: Report['kind'], namespace?: string): Report {
  return {
    apiVersion: 'wgpolicyk8s.io/v1alpha2',
    kind,
    metadata: { name: REPORT_NAME, ...(namespace ? { namespace } : {}), labels: { 'app.kubernetes.io/managed-by': 'verdict' } },
    summary: { pass: 0, fail: 0, warn: 0, error: 0, skip: 0 },
    results: [],
  };
}

/**
 * The reports (cluster report first, then namespaces in name order); an
 * unreadable manifest is an `error` result of the cluster report.
 */
export function policyReports(report: AuditReport, now: Date = new Date()): Report[] {
  const seconds = Math.floor(now.getTime() / 1000);
  const cluster = empty('ClusterPolicyReport');
  const namespaces = new Map<string, Report>();
  for (const o of report.objects) {
    if (o.skipped !== undefined || o.results.length === 0) continue;
    let target = cluster;
    if (o.namespace) {
      target = namespaces.get(o.namespace) ?? empty('PolicyReport', o.namespace);
      namespaces.set(o.namespace, target);
    }
    for (const r of resultsOf(o, seconds)) target.results.push(r);
  }
  for (const p of report.problems) {
    cluster.results.push({
      policy: REPORT_NAME, rule: 'readable-manifest', result: 'error', scored: true, source: 'verdict', message: `cannot parse the manifest: ${p.message}`,
      timestamp: { seconds, nanos: 0 }, properties: { file: p.file, line: String(p.line) },
    });
  }
  const reports = [cluster, ...[...namespaces.keys()].sort().map((n) => namespaces.get(n)!)].filter((r) => r.results.length > 0);
  for (const r of reports) for (const result of r.results) r.summary[result.result]++;
  return reports;
}

/** The reports as a YAML stream (`---` between reports); an empty stream when nothing applied. */
export function formatPolicyReports(report: AuditReport, now?: Date): string {
  return policyReports(report, now).map((r) => stringify(r, { lineWidth: 0 })).join('---\n');
}
