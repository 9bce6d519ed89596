/**
 * Traces of translated policies in the words of the documents they came
 * from: a ValidatingAdmissionPolicyBinding's trace speaks of its
 * validationActions and of the parameter object its policy sees as
 * `params`, a kinitiras policy of its resourceSelectors, and every place is
 * the user's file, line and JSON pointer (core fills `source` on traces with
 * `explain: true`). Core's own policies keep core's words.
 */
import type { PolicyTrace, SelectionTrace, TraceSource } from '@verdict/core';
import { inline } from './text.js';

type Action = PolicyTrace['enforcementAction'];

/** The Kubernetes admission bindings: their policy sees a parameter object as `params`. */
const BINDINGS = new Set(['ValidatingAdmissionPolicyBinding', 'MutatingAdmissionPolicyBinding']);
/** Kinds whose documents say nothing of an enforcement action (they mutate, or kinitiras' validation always rejects). */
const NO_ACTION = new Set(['MutatingAdmissionPolicyBinding', 'MutatingPolicy', 'NamespacedMutatingPolicy', 'OverridePolicy', 'ClusterOverridePolicy', 'ClusterValidatePolicy']);
/** Kinds whose enforcement is their `validationActions`. */
const VALIDATION_ACTION_KINDS = new Set(['ValidatingAdmissionPolicyBinding', 'ValidatingPolicy', 'NamespacedValidatingPolicy']);
/** The validationActions of each enforcement action. */
const VALIDATION_ACTIONS: Record<Action, string> = { deny: 'Deny', warn: 'Warn', audit: 'Audit' };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `Kind/name` of a source document, when it has them. */
function sourceName(source: TraceSource): string | undefined {
  return source.kind === undefined ? undefined : `${source.kind}${source.name === undefined ? '' : `/${source.name}`}`;
}

/** `file:line` of a place (the document's name when it was not read from a file). */
function fileLine(source: TraceSource): string | undefined {
  if (source.file !== undefined) return `${source.file}:${source.line}`;
  return source.line === undefined ? undefined : `line ${source.line}`;
}

/**
 * A place, as a user finds it: `vap.yaml:47 /spec/matchResources/namespaceSelector`, with the document's
 * `Kind/name` when it is not `owner` (the policy's own document).
 */
export function describePlace(source: TraceSource, owner?: TraceSource): string {
  const other = owner === undefined || owner.document !== source.document;
  const parts = [fileLine(source), other ? sourceName(source) : undefined, source.path === '' ? undefined : source.path];
  return parts.filter((p) => p !== undefined).join(' ');
}

/** A document, as a user finds it: `ValidatingAdmissionPolicy/replicalimit (vap.yaml)`. */
export function describeDocument(source: TraceSource): string {
  const name = sourceName(source) ?? `document ${source.document}`;
  return source.file === undefined ? name : `${name} (${source.file})`;
}

/** The CI chain level whose policy set a trace is of (`ciLevel` on the traces of `@verdict/ci` chains' joined decisions). */
export interface CiLevelOfTrace {
  level: string;
  name: string;
  /** The level runs in dry-run mode: its denials and changes were reported, not enforced. */
  dryRun: boolean;
}

/** The chain level a trace carries, when it is of a CI chain's dry-run level (undefined for an enforcing level). */
function ciLevelOf(trace: PolicyTrace): CiLevelOfTrace | undefined {
  const level = (trace as PolicyTrace & { ciLevel?: unknown }).ciLevel;
  return isObject(level) && typeof level['name'] === 'string' && level['dryRun'] === true ? (level as unknown as CiLevelOfTrace) : undefined;
}

/**
 * The mark of a policy run by a dry-run level of a CI chain, in the words of the job response's reason
 * (`dry run (acme): would reject: …`): `dry run (acme): not enforced`.
 */
export function dryRunWord(trace: PolicyTrace): string | undefined {
  const level = ciLevelOf(trace);
  return level === undefined ? undefined : `dry run (${level.name}): not enforced`;
}

/** A policy's validationActions, all of them as its document lists them (`[Deny, Audit]`; the API server applies each). */
function validationActions(trace: PolicyTrace): string[] {
  return (trace.actions ?? [trace.enforcementAction]).map((a) => VALIDATION_ACTIONS[a]);
}

/** The enforcement action of a policy in its document's words (`validationActions: Deny, Audit`), or undefined when it has none worth showing. */
export function actionWord(trace: PolicyTrace): string | undefined {
  const kind = trace.source?.kind;
  if (kind === undefined) return trace.enforcementAction;
  if (NO_ACTION.has(kind)) return undefined;
  if (VALIDATION_ACTION_KINDS.has(kind)) return `validationActions: ${validationActions(trace).join(', ')}`;
  return trace.enforcementAction;
}

/** Whether the trace's parameters are a Kubernetes parameter object (what a binding's policy sees as `params`). */
export function seesParams(trace: PolicyTrace): boolean {
  return trace.source?.kind !== undefined && BINDINGS.has(trace.source.kind);
}

/**
 * What a binding's policy sees as `params`: the parameter object named (`ConfigMap default/limits`), then its
 * content (a ConfigMap's `data`, another kind's fields besides apiVersion, kind, metadata and status).
 */
export function describeParams(params: Readonly<Record<string, unknown>>): string | undefined {
  const metadata = isObject(params['metadata']) ? params['metadata'] : {};
  if (typeof params['kind'] !== 'string' || typeof metadata['name'] !== 'string') return Object.keys(params).length ? inline(params, 300) : undefined;
  const name = `${typeof metadata['namespace'] === 'string' ? `${metadata['namespace']}/` : ''}${metadata['name']}`;
  const fields = Object.fromEntries(Object.entries(params).filter(([key]) => !['apiVersion', 'kind', 'metadata', 'status'].includes(key)));
  const content = params['kind'] === 'ConfigMap' && isObject(params['data']) && Object.keys(fields).every((k) => k === 'data' || k === 'binaryData')
    ? `data: ${inline(params['data'], 300)}`
    : inline(fields, 300);
  return `${params['kind']} ${name} ${content}`;
}

/** A translated selection entry: its own name (`resourceSelectors[0]`), or `entry 0`. */
export function translatedEntryName(entry: { index: number; name?: string }): string {
  return entry.name ?? `entry ${entry.index}`;
}

/** How a translated policy's selectors chose (its parameterSelection entries are the user's own selectors, by name). */
export function describeTranslatedSelection(selection: SelectionTrace): string | undefined {
  switch (selection.outcome) {
    case 'no-entries':
      return undefined;
    case 'selected':
      return `selected by ${selection.matched.map(translatedEntryName).join(', ')}`;
    case 'no-match-proceed':
      return 'no selector matched: applies as written';
    case 'no-match-allow':
      return 'no selector matched: not applied';
    case 'no-match-warn':
      return 'no selector matched: not applied, with a warning';
    case 'no-match-deny':
      return 'no selector matched: denied';
  }
}

/**
 * A trace as JSON in its document's words (`verdict explain -o json`): for a translated policy, a binding's
 * parameters become `params` (the parameter object, `null` for a policy without paramKind), the enforcement action
 * becomes `validationActions` (every one the document lists, as the API server applies each; or goes, for kinds
 * that have none), a selection by the user's own selectors is
 * `selectedBy` with their names, and a selection the document has no word for (none, or parameter sets) is left
 * out. Core's own traces are returned as they are.
 */
export function traceInWords(trace: PolicyTrace): object {
  const kind = trace.source?.kind;
  if (kind === undefined) return trace;
  const { enforcementAction, actions: _actions, selection, parameters, parameterSet: _set, ...rest } = trace;
  const out: Record<string, unknown> = { ...rest };
  if (VALIDATION_ACTION_KINDS.has(kind)) out['validationActions'] = validationActions(trace);
  else if (!NO_ACTION.has(kind)) out['enforcementAction'] = enforcementAction;
  if (selection && selection.outcome !== 'no-entries') {
    if (selection.matched.length > 0) out['selectedBy'] = selection.matched.map(translatedEntryName);
    else out['selection'] = describeTranslatedSelection(selection);
    // No selector matched, so the policy does not apply (as the text trace says).
    if (selection.outcome === 'no-match-allow' && trace.rules.length === 0) out['matched'] = false;
    if (selection.mismatches?.length) out['notSelectedBy'] = selection.mismatches.map((m) => ({ ...m, name: translatedEntryName(m) }));
  }
  if (BINDINGS.has(kind)) {
    if (trace.matched) out['params'] = _set === undefined ? null : (parameters ?? null);
  } else if (parameters !== undefined && Object.keys(parameters).length > 0) out['parameters'] = parameters;
  return out;
}
