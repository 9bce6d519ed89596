/**
 * Decision → AdmissionReview response, in Gatekeeper's form: denials as
 * `[<policy>] <message>` lines with code 403, warn-enforced violations as
 * `warnings`, audit-enforced ones as `auditAnnotations`, mutations as a base64
 * JSON Patch. Everything the apiserver would drop (control characters in
 * warnings, bad annotation keys) is made valid here.
 */
import type { Decision, DecisionError, PolicySet, Violation } from '@verdict/core';
import { jsonText } from './json-text.js';
import { codePoints, replaceControls } from './read.js';
import { API_VERSION } from './review.js';
import { expressionError, policyAnswer } from './vap/answer.js';
import { kyvernoAnswer, mergeAnswers } from './kyverno/answer.js';
import { mutatingAnswer } from './map/answer.js';
import { kyvernoMutatingAnswer } from './mpol/answer.js';
import { kinitirasAnswer } from './kinitiras/answer.js';
import { registryOf } from './vap/registry.js';
import type { AdmissionResponse, AdmissionReviewResponse } from './types.js';

/** What the webhook does when evaluation itself fails: `Fail` denies (code 500), `Ignore` admits. */
export type FailurePolicy = 'Fail' | 'Ignore';

/** Options of {@link toAdmissionResponse}. */
export interface ResponseOptions {
  /** A mutating webhook returns the patch; a validating one never does (default false). */
  mutating?: boolean;
  /** Default `Fail`. */
  failurePolicy?: FailurePolicy;
  /**
   * The set that made the decision, when it holds ValidatingAdmissionPolicies or Gatekeeper CEL templates
   * (loaded by `loadKubernetesPolicies`): their entries are answered as the apiserver and Gatekeeper do.
   */
  policies?: PolicySet;
  /** The request's object (namespace, name, kind), which a Kyverno MutatingPolicy's denial names. */
  resource?: { namespace?: string | undefined; name?: string | undefined; kind?: string | undefined };
}

/** Audit annotation key recording errors admitted under failurePolicy Ignore. */
export const FAILED_OPEN_ANNOTATION = 'failed-open';
/** Audit annotation key counting warn and audit violations past the decision's `maxViolations`. */
const OMITTED_ANNOTATION = 'omitted-violations';

const NAME_RE = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
/** The apiserver truncates warnings past 256 runes once 4096 runes are used; stay within both. */
const WARNING_RUNES = 256;
const WARNINGS_TOTAL_RUNES = 4096;

function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}

/** A policy name as an audit-annotation key: a qualified name of ≤63 characters (the apiserver prefixes `<webhook>/`). */
export function annotationKey(policy: string): string {
  if (policy.length <= 63 && NAME_RE.test(policy)) return policy;
  const base = policy.replace(/[^-A-Za-z0-9_.]/g, '-').replace(/^[^A-Za-z0-9]+/, '').slice(0, 54).replace(/[^A-Za-z0-9]+$/, '');
  return base ? `${base}-${fnv1a(policy)}` : fnv1a(policy);
}

function truncateRunes(text: string, max: number): string {
  const runes = [...text];
  return runes.length <= max ? text : `${runes.slice(0, max - 1).join('')}…`;
}

/**
 * Warnings the apiserver keeps as they are: no control characters, no duplicates, within its rune budgets.
 * `omitted` warnings (left out of the decision already) are counted in the closing "… and N more" line.
 */
export function sanitizeWarnings(warnings: readonly string[], omitted = 0): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  let total = 0;
  let dropped = omitted;
  for (const raw of warnings) {
    const text = truncateRunes(replaceControls(String(raw).replace(LONE_SURROGATE, '\uFFFD')).replace(/ {2,}/g, ' ').trim(), WARNING_RUNES);
    if (text === '' || seen.has(text)) continue;
    const runes = codePoints(text);
    if (total + runes > WARNINGS_TOTAL_RUNES - 64) {
      dropped++;
      continue;
    }
    seen.add(text);
    out.push(text);
    total += runes;
  }
  if (dropped > 0) out.push(`… and ${dropped} more warning${dropped === 1 ? '' : 's'}`);
  return out;
}

interface BufferLike {
  from(text: string, encoding: 'utf8'): { toString(encoding: 'base64'): string };
}
const NodeBuffer = (globalThis as { Buffer?: BufferLike }).Buffer;

/** Standard base64 of the UTF-8 bytes of `text`: `Buffer` where the runtime has it (Node, Bun, Deno), else TextEncoder and btoa. */
export function base64(text: string): string {
  if (NodeBuffer) return NodeBuffer.from(text, 'utf8').toString('base64');
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

function review(response: AdmissionResponse): AdmissionReviewResponse {
  return { apiVersion: API_VERSION, kind: 'AdmissionReview', response };
}

/** The answer when evaluation could not run at all (e.g. the namespace lookup timed out). */
export function failureResponse(uid: string, message: string, failurePolicy: FailurePolicy = 'Fail'): AdmissionReviewResponse {
  if (failurePolicy === 'Ignore') return review({ uid, allowed: true, auditAnnotations: { [FAILED_OPEN_ANNOTATION]: message } });
  return review({ uid, allowed: false, status: { status: 'Failure', code: 500, reason: 'InternalError', message: `policy evaluation failed: ${message}` } });
}

/**
 * Turns a decision into the AdmissionReview to send back for request `uid`.
 * Deny-enforced violations (and Gatekeeper-style match errors) deny with 403;
 * other evaluation errors of deny-enforced policies follow `failurePolicy`
 * (`Fail`: deny with 500; `Ignore`: admit, recorded under the `failed-open`
 * audit annotation).
 */
export function toAdmissionResponse(uid: string, decision: Decision, options: ResponseOptions = {}): AdmissionReviewResponse {
  // Nothing to say (the usual answer): the bookkeeping below would build this same response.
  if (
    decision.violations.length === 0 && decision.errors.length === 0 && decision.warnings.length === 0 && decision.annotations === undefined
    && !decision.omitted && (options.mutating !== true || decision.patch.length === 0)
  ) return review({ uid, allowed: true });
  const failurePolicy = options.failurePolicy ?? 'Fail';
  const registry = registryOf(options.policies);
  const translatedAnswer = registry
    ? mergeAnswers(mergeAnswers(mutatingAnswer(decision, registry), kyvernoMutatingAnswer(decision, registry, options.resource)), mergeAnswers(policyAnswer(decision, registry), kyvernoAnswer(decision, registry)))
    : undefined;
  const native = mergeAnswers(translatedAnswer, kinitirasAnswer(decision, options.policies)); // undefined when nothing failed
  const denials: string[] = [];
  const failures: string[] = [];
  const audit = new Map<string, string[]>();
  const record = (policy: string, line: string) => {
    const key = annotationKey(policy);
    const lines = audit.get(key);
    if (lines) lines.push(line);
    else audit.set(key, [line]);
  };
  for (const v of decision.violations) {
    if (native?.handled.has(v)) continue;
    if (v.enforcementAction === 'deny') denials.push(`[${v.policy}] ${v.message}`);
    else if (v.enforcementAction === 'audit') record(v.policy, v.message);
  }
  const omitted = decision.omitted;
  if (omitted && omitted.denials > 0) denials.push(`… and ${omitted.denials} more violation${omitted.denials === 1 ? '' : 's'} (not listed)`);
  if (omitted && omitted.violations > omitted.denials) record(OMITTED_ANNOTATION, `${omitted.violations - omitted.denials} more warn or audit violations were not listed`);
  for (const e of decision.errors) {
    if (e.ignored || native?.handled.has(e)) continue; // failurePolicy Ignore, or answered as a ValidatingAdmissionPolicy
    const cel = e.kind === undefined ? undefined : registry?.celKinds.get(e.kind);
    const line = e.policy ? `[${e.policy}] ${cel && e.code !== 'BUDGET_EXCEEDED' ? expressionError(e, cel.validations) : e.message}` : e.message;
    if (e.enforcementAction === 'warn') continue; // core already made it a warning
    if (e.enforcementAction === 'audit' && e.policy) record(e.policy, `evaluation error: ${e.message}`);
    // The evaluation's budget ran out: no policy after it ran, so the webhook failed (its failurePolicy decides).
    else if (e.code === 'BUDGET_EXCEEDED') failures.push(line);
    else if (e.code === 'MATCH_ERROR' || cel) denials.push(line); // Gatekeeper's "autoreject"; a CEL template's error is a violation
    else failures.push(line);
  }
  const failClosed = failures.length > 0 && failurePolicy === 'Fail';
  const first = native?.denials[0]; // the apiserver answers with the first denying decision
  const response: AdmissionResponse = { uid, allowed: denials.length === 0 && !first && !failClosed };
  if (!response.allowed) {
    const lines = [...denials, ...(first ? [first.message] : []), ...(failClosed ? failures : [])];
    if (denials.length > 0) response.status = { status: 'Failure', code: 403, reason: 'Forbidden', message: lines.join('\n') };
    else if (first) response.status = { status: 'Failure', ...(first.code !== undefined ? { code: first.code } : {}), ...(first.reason !== undefined ? { reason: first.reason } : {}), message: lines.join('\n') };
    else response.status = { status: 'Failure', code: 500, reason: 'InternalError', message: `policy evaluation failed: ${lines.join('\n')}` };
  }
  if (failures.length > 0 && failurePolicy === 'Ignore') record(FAILED_OPEN_ANNOTATION, failures.join('\n'));
  for (const [key, value] of Object.entries(native?.auditAnnotations ?? {})) audit.set(annotationKey(key), [value]);
  if (audit.size > 0) response.auditAnnotations = Object.fromEntries([...audit].map(([k, lines]) => [k, lines.join('\n')]));
  const warnings = sanitizeWarnings(native ? [...withoutAnswered(decision.warnings, native.handled), ...native.warnings] : decision.warnings, decision.omitted?.warnings ?? 0);
  if (warnings.length > 0) response.warnings = warnings;
  if (options.mutating === true && response.allowed && decision.patch.length > 0) {
    response.patchType = 'JSONPatch';
    response.patch = base64(jsonText(decision.patch));
  }
  return review(response);
}

/** Core's `[policy] message` warnings of the warn-enforced entries a native answer words itself (a VAP's Warn action). */
function withoutAnswered(warnings: readonly string[], handled: ReadonlySet<Violation | DecisionError>): readonly string[] {
  const answered = new Set<string>();
  for (const x of handled) if (x.enforcementAction === 'warn') answered.add(`[${x.policy}] ${x.message}`);
  return answered.size === 0 ? warnings : warnings.filter((w) => !answered.has(w));
}
