/**
 * Structured logs with pino: one JSON line per admission decision, with
 * Gatekeeper's field names where it logs the same thing (`resource_kind`,
 * `resource_namespace`, `request_username`, …), and one per policy or
 * certificate (re)load.
 */
import { pino, type DestinationStream, type Level, type Logger } from 'pino';
import type { DecisionEvent } from '@verdict/kubernetes';
import type { HookType } from './metrics.js';

export type { Logger };

/** A logger writing JSON lines to `destination` (default: stdout, asynchronously). */
export function createLogger(options: { level?: Level | 'silent'; destination?: DestinationStream } = {}): Logger {
  const destination = options.destination ?? pino.destination({ sync: false });
  return pino({ level: options.level ?? 'info', base: undefined, timestamp: pino.stdTimeFunctions.isoTime }, destination);
}

/** The fields of one decision's log line. */
export function decisionFields(hook: HookType, event: DecisionEvent): Record<string, unknown> {
  const { input, decision, error } = event;
  const response = event.response.response;
  const fields: Record<string, unknown> = {
    hook_type: hook,
    uid: response.uid,
    allowed: response.allowed,
    duration_ms: Math.round(event.durationMs * 1000) / 1000,
  };
  if (input) {
    Object.assign(fields, {
      operation: input.operation,
      resource_group: input.kind.group,
      resource_api_version: input.kind.version,
      resource_kind: input.kind.kind,
      resource_namespace: input.namespace,
      resource_name: input.name,
      request_username: input.userInfo.username,
      dry_run: input.dryRun,
    });
  }
  if (response.status) fields['code'] = response.status.code;
  if (decision?.violations.length) fields['violations'] = decision.violations.map((v) => ({ policy: v.policy, enforcement_action: v.enforcementAction, message: v.message }));
  if (response.warnings?.length) fields['warnings'] = response.warnings.length;
  if (response.patch) fields['patched'] = true;
  if (decision?.errors.length) fields['errors'] = decision.errors.map((e) => ({ policy: e.policy, message: e.message }));
  if (error) fields['error'] = error.message;
  return fields;
}

/** `onDecision` that logs: errors at `error`, denials at `info`, the rest at `info` too (one line each). */
export function logDecision(logger: Logger, hook: HookType): (event: DecisionEvent) => void {
  return (event) => {
    if (event.error || event.decision?.errors.length) logger.error(decisionFields(hook, event), 'admission review failed');
    else logger.info(decisionFields(hook, event), event.response.response.allowed ? 'admitted' : 'denied');
  };
}
