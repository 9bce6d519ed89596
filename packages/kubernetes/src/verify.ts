/**
 * `verifyAdmissionResponse`: every check the kube-apiserver applies to a
 * webhook's AdmissionReview response (apiserver `VerifyAdmissionResponse`, the
 * dispatchers, the warning recorder and audit-annotation key checks), so a
 * webhook can be tested without a cluster. Failures the apiserver treats as a
 * failed call, and things it would silently drop or rewrite, are all reported.
 */
import { codePoints, hasControl, isObject } from './read.js';
import { typeOf } from './suggest.js';

/** Options of {@link verifyAdmissionResponse}: what the response is checked against. */
export interface VerifyOptions {
  /** `request.uid` of the review being answered. */
  uid: string;
  /** Whether the webhook is registered as mutating (default false). */
  mutating?: boolean;
  /** The request's `object`: `null` (e.g. DELETE) forbids a non-empty patch. Omit to skip that check. */
  object?: unknown;
  /** The webhook's `name` in its configuration; audit-annotation keys become `<name>/<key>` (default `verdict.example.com`). */
  webhookName?: string;
}

const NAME_RE = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS_SUBDOMAIN_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const BASE64_RE = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const OPS = ['add', 'remove', 'replace', 'move', 'copy', 'test'];

function decodePatch(patch: string): { ops?: unknown[]; problem?: string } {
  if (!BASE64_RE.test(patch)) return { problem: 'response.patch is not standard base64 (with padding)' };
  let text: string;
  try {
    const binary = atob(patch);
    text = new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
  } catch {
    return { problem: 'response.patch does not decode to UTF-8 text' };
  }
  let ops: unknown;
  try {
    ops = JSON.parse(text);
  } catch {
    return { problem: 'response.patch is not a JSON document' };
  }
  if (!Array.isArray(ops)) return { problem: `response.patch must be a JSON Patch array (got ${typeOf(ops)})` };
  for (const [i, op] of ops.entries()) {
    if (!isObject(op) || typeof op['op'] !== 'string' || !OPS.includes(op['op'])) return { problem: `response.patch[${i}] is not an RFC 6902 operation` };
    const pointers = op['op'] === 'move' || op['op'] === 'copy' ? ['path', 'from'] : ['path'];
    for (const key of pointers) {
      const p = op[key];
      if (typeof p !== 'string' || (p !== '' && !p.startsWith('/'))) return { problem: `response.patch[${i}].${key} must be a JSON pointer` };
    }
    if ((op['op'] === 'add' || op['op'] === 'replace' || op['op'] === 'test') && !Object.prototype.hasOwnProperty.call(op, 'value')) {
      return { problem: `response.patch[${i}] (${op['op']}) has no value` };
    }
  }
  return { ops };
}

function checkWarnings(warnings: unknown, problems: string[]): void {
  if (warnings === undefined || warnings === null) return;
  if (!Array.isArray(warnings)) {
    problems.push(`response.warnings must be a list of strings (got ${typeOf(warnings)})`);
    return;
  }
  const seen = new Set<string>();
  let total = 0;
  warnings.forEach((w, i) => {
    if (typeof w !== 'string') return void problems.push(`response.warnings[${i}] must be a string (got ${typeOf(w)})`);
    if (w.length === 0) problems.push(`response.warnings[${i}] is empty (the apiserver drops it)`);
    if (hasControl(w) || LONE_SURROGATE.test(w)) problems.push(`response.warnings[${i}] contains control characters or invalid UTF-8 (the apiserver drops it)`);
    if (seen.has(w)) problems.push(`response.warnings[${i}] repeats an earlier warning (the apiserver drops it)`);
    seen.add(w);
    const runes = codePoints(w);
    if (runes > 256) problems.push(`response.warnings[${i}] is ${runes} characters long; warnings over 256 characters may be truncated`);
    total += runes;
  });
  if (total > 4096) problems.push(`response.warnings total ${total} characters; past 4096 the apiserver truncates and drops warnings`);
}

function checkAnnotations(annotations: unknown, webhookName: string, problems: string[]): void {
  if (annotations === undefined || annotations === null) return;
  if (!isObject(annotations)) {
    problems.push(`response.auditAnnotations must be a map of strings (got ${typeOf(annotations)})`);
    return;
  }
  for (const [key, value] of Object.entries(annotations)) {
    if (typeof value !== 'string') problems.push(`response.auditAnnotations["${key}"] must be a string (got ${typeOf(value)}); the response cannot be decoded`);
    if (key.includes('/') || key.length > 63 || !NAME_RE.test(key)) {
      problems.push(`response.auditAnnotations key "${key}" is not a qualified name without "/" (≤63 characters of letters, digits, "-", "_", "."); the apiserver drops it`);
    }
  }
  if (webhookName.length > 253 || !DNS_SUBDOMAIN_RE.test(webhookName)) {
    problems.push(`webhook name "${webhookName}" is not a DNS subdomain, so every audit annotation would be dropped`);
  }
}

/**
 * Lists why the kube-apiserver would reject, drop or rewrite parts of this
 * AdmissionReview response; an empty list means it is accepted as is.
 */
export function verifyAdmissionResponse(review: unknown, options: VerifyOptions): string[] {
  const problems: string[] = [];
  if (!isObject(review)) return [`expected an AdmissionReview object (got ${typeOf(review)})`];
  if (review['apiVersion'] !== 'admission.k8s.io/v1' || review['kind'] !== 'AdmissionReview') {
    problems.push(`expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got ${String(review['apiVersion'] ?? '')}, Kind=${String(review['kind'] ?? '')}`);
  }
  const response = review['response'];
  if (!isObject(response)) return [...problems, 'webhook response was absent'];
  if (response['uid'] !== options.uid) problems.push(`expected response.uid="${options.uid}", got "${String(response['uid'] ?? '')}"`);
  if (typeof response['allowed'] !== 'boolean') {
    problems.push(response['allowed'] === undefined ? 'response.allowed is missing (the apiserver reads it as false)' : `response.allowed must be a boolean (got ${typeOf(response['allowed'])})`);
  }
  const status = response['status'];
  if (status !== undefined && status !== null) {
    if (!isObject(status)) problems.push(`response.status must be a metav1.Status object (got ${typeOf(status)})`);
    else {
      const code = status['code'];
      if (code !== undefined && (typeof code !== 'number' || !Number.isInteger(code))) problems.push(`response.status.code must be an integer (got ${typeOf(code)})`);
      else if (response['allowed'] === false && typeof code === 'number' && code < 400) problems.push(`response.status.code ${code} on a denial is replaced by 400 by the apiserver`);
      for (const key of ['message', 'reason', 'status']) {
        if (status[key] !== undefined && typeof status[key] !== 'string') problems.push(`response.status.${key} must be a string (got ${typeOf(status[key])})`);
      }
    }
  }
  const patch = response['patch'];
  const patchType = response['patchType'];
  const hasPatch = typeof patch === 'string' && patch.length > 0;
  if (patch !== undefined && patch !== null && typeof patch !== 'string') problems.push(`response.patch must be a base64 string (got ${typeOf(patch)})`);
  if (options.mutating === true) {
    if (hasPatch && (patchType === undefined || patchType === null)) problems.push('webhook returned response.patch but not response.patchType');
    if (!hasPatch && patchType !== undefined && patchType !== null) problems.push('webhook returned response.patchType but not response.patch');
    if (patchType === '') problems.push('webhook returned invalid response.patchType ""');
    else if (patchType !== undefined && patchType !== null && patchType !== 'JSONPatch') problems.push(`response.patchType "${String(patchType)}" is not supported (only JSONPatch)`);
    if (hasPatch) {
      const decoded = decodePatch(patch);
      if (decoded.problem) problems.push(decoded.problem);
      else if (options.object === null && decoded.ops!.length > 0) problems.push('response.patch is not empty but the request has no object to patch (e.g. DELETE)');
    }
  } else {
    if (hasPatch) problems.push('validating webhook may not return response.patch');
    if (patchType !== undefined && patchType !== null) problems.push('validating webhook may not return response.patchType');
  }
  checkWarnings(response['warnings'], problems);
  checkAnnotations(response['auditAnnotations'], options.webhookName ?? 'verdict.example.com', problems);
  return problems;
}
