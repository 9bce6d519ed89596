/**
 * Prometheus metrics with prom-client, fed by the webhooks' `onDecision` and
 * by the reloaders. Names and labels follow Gatekeeper's where it has the same
 * thing (`gatekeeper_validation_request_count` → `verdict_validation_request_count_total`,
 * `admission_status`, `admission_dryrun`, `enforcement_action`), so dashboards
 * and alerts carry over; the table is in docs/kubernetes.md.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { FAILED_OPEN_ANNOTATION, type DecisionEvent } from '@verdict/kubernetes';
import type { EnforcementAction, PolicySet } from '@verdict/core';

/** Gatekeeper's hook types: which webhook answered. */
export type HookType = 'validation' | 'mutation';

/** Request latency buckets, in seconds: 0.5 ms to 5 s (the apiserver's webhook timeout is at most 30 s, often 5–10 s). */
const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

const ENFORCEMENT_ACTIONS: readonly EnforcementAction[] = ['deny', 'warn', 'audit'];

export interface WebhookMetrics {
  registry: Registry;
  /** `onDecision` for one webhook. */
  onDecision(hook: HookType): (event: DecisionEvent) => void;
  /** After a policy set loaded (at start and at every reload). */
  policiesLoaded(hook: HookType, version: number, set: PolicySet): void;
  policyLoadFailed(hook: HookType): void;
  namespaces: Gauge;
  namespaceWatchErrors: Counter;
  certificateExpiry: Gauge;
}

/** A registry with Node's process metrics and the webhook metrics (documented in docs/kubernetes.md#metrics). */
export function createMetrics(): WebhookMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const requests = {
    validation: new Counter({ name: 'verdict_validation_request_count_total', help: 'Requests answered by the validating webhook', labelNames: ['admission_status', 'admission_dryrun'], registers }),
    mutation: new Counter({ name: 'verdict_mutation_request_count_total', help: 'Requests answered by the mutating webhook', labelNames: ['admission_status', 'admission_dryrun'], registers }),
  };
  const durations = {
    validation: new Histogram({ name: 'verdict_validation_request_duration_seconds', help: 'Validating review time (namespace lookup and evaluation), seconds', labelNames: ['admission_status'], buckets: BUCKETS, registers }),
    mutation: new Histogram({ name: 'verdict_mutation_request_duration_seconds', help: 'Mutating review time (namespace lookup and evaluation), seconds', labelNames: ['admission_status'], buckets: BUCKETS, registers }),
  };
  const violations = new Counter({ name: 'verdict_violations_total', help: 'Requests in which a policy reported a violation', labelNames: ['hook_type', 'policy', 'enforcement_action'], registers });
  const errors = new Counter({ name: 'verdict_evaluation_errors_total', help: 'Policy evaluation errors (policy "" when the request could not be evaluated at all, e.g. the namespace lookup failed)', labelNames: ['hook_type', 'policy'], registers });
  const failedOpen = new Counter({ name: 'verdict_failed_open_total', help: 'Requests admitted only because failurePolicy is Ignore', labelNames: ['hook_type'], registers });
  const version = new Gauge({ name: 'verdict_policy_set_version', help: 'Version of the policy set in use: 1 at start, +1 per reload', labelNames: ['hook_type'], registers });
  const policies = new Gauge({ name: 'verdict_policies', help: 'Policies in the set in use', labelNames: ['hook_type', 'enforcement_action'], registers });
  const loadErrors = new Counter({ name: 'verdict_policy_load_errors_total', help: 'Policy sets that failed to load (the previous set stayed in use)', labelNames: ['hook_type'], registers });
  const lastLoad = new Gauge({ name: 'verdict_policy_set_load_timestamp_seconds', help: 'When the set in use was loaded, Unix seconds', labelNames: ['hook_type'], registers });

  const onDecision = (hook: HookType) => (event: DecisionEvent) => {
    const response = event.response.response;
    const status = event.error ? 'error' : response.allowed ? 'allow' : 'deny';
    requests[hook].inc({ admission_status: status, admission_dryrun: String(event.input?.dryRun === true) });
    durations[hook].observe({ admission_status: status }, event.durationMs / 1000);
    if (response.auditAnnotations?.[FAILED_OPEN_ANNOTATION] !== undefined) failedOpen.inc({ hook_type: hook });
    if (event.error) errors.inc({ hook_type: hook, policy: '' });
    const decision = event.decision;
    if (!decision) return;
    const seen = new Set<string>();
    for (const v of decision.violations) {
      const key = `${v.policy}\0${v.enforcementAction}`;
      if (seen.has(key)) continue;
      seen.add(key);
      violations.inc({ hook_type: hook, policy: v.policy, enforcement_action: v.enforcementAction });
    }
    for (const e of decision.errors) errors.inc({ hook_type: hook, policy: e.policy ?? '' });
  };

  return {
    registry,
    onDecision,
    policiesLoaded(hook, v, set) {
      version.set({ hook_type: hook }, v);
      lastLoad.set({ hook_type: hook }, Date.now() / 1000);
      for (const action of ENFORCEMENT_ACTIONS) {
        policies.set({ hook_type: hook, enforcement_action: action }, set.policies.filter((p) => p.enforcementAction === action).length);
      }
    },
    policyLoadFailed: (hook) => loadErrors.inc({ hook_type: hook }),
    namespaces: new Gauge({ name: 'verdict_namespace_cache_namespaces', help: 'Namespaces whose labels the webhook holds', registers }),
    namespaceWatchErrors: new Counter({ name: 'verdict_namespace_watch_errors_total', help: 'Namespace list or watch failures (the informer restarts after each)', registers }),
    certificateExpiry: new Gauge({ name: 'verdict_certificate_expiry_timestamp_seconds', help: 'notAfter of the serving certificate, Unix seconds', registers }),
  };
}
