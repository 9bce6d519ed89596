/**
 * One shape for everything an assertion can look at: a core Decision, an
 * AdmissionReview (or its `response`), a CI job response, or a permission
 * answer. The matchers and the suite runner both assert on an {@link Outcome}.
 */
import type { Decision, PatchOperation } from '@verdict/core';
import { inline } from './text.js';

/** Which kind of answer an {@link Outcome} was made from. */
export type AnswerKind = 'decision' | 'admission' | 'ci' | 'permission';

/** CI admission fields, as `@verdict/ci` answers them (the shape of GitLab's runner admission controller design). */
export interface CiAnswer {
  admission: string;
  reason?: string;
  tags?: { add?: string[]; remove?: string[] };
  runners?: { accepted_ids?: string[]; rejected_ids?: string[] };
}

/** The normalised view of an answer that every assertion reads. */
export interface Outcome {
  kind: AnswerKind;
  allowed: boolean;
  /**
   * Why it was denied: `[policy] message` for each deny-enforced violation and
   * each error (decisions), the lines of `status.message` (admission), the
   * `reason` of a rejected job or a refused permission.
   */
  denials: string[];
  /** `[policy] message` warnings (decisions, `response.warnings`); a CI job's dry-run reports (`dry run (acme): would reject: …`). */
  warnings: string[];
  /**
   * RFC 6902 operations (decoded from base64 for admission responses; a CI job's tag changes as `add /tags/-` and
   * `add /untag/-` on the job input); `undefined` when the answer cannot carry one.
   */
  patch?: PatchOperation[];
  /** The decision behind the answer, when known: it holds the trace (`toSelectParameters` needs it). */
  decision?: Decision;
  /** HTTP-style status code of an admission response, when it has one. */
  status?: number;
  /** `reason` of a CI job response or a permission answer. */
  reason?: string;
  ci?: CiAnswer;
  /** The answer as given. */
  answer: unknown;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** True for a core {@link Decision}. */
export function isDecision(value: unknown): value is Decision {
  return isObject(value) && typeof value['allowed'] === 'boolean' && Array.isArray(value['violations']) && Array.isArray(value['trace']);
}

/** Denial messages of a decision: `[policy] message` for deny-enforced violations, then errors. */
export function decisionDenials(decision: Decision): string[] {
  const out = decision.violations.filter((v) => v.enforcementAction === 'deny').map((v) => `[${v.policy}] ${v.message}`);
  for (const e of decision.errors) {
    if (e.enforcementAction === 'deny' || e.enforcementAction === undefined) out.push(e.policy ? `[${e.policy}] ${e.message}` : e.message);
  }
  return out;
}

/** Outcome of a core decision. */
export function decisionOutcome(decision: Decision): Outcome {
  return { kind: 'decision', allowed: decision.allowed, denials: decisionDenials(decision), warnings: [...decision.warnings], patch: decision.patch, decision, answer: decision };
}

function decodePatch(encoded: unknown): PatchOperation[] | undefined {
  if (typeof encoded !== 'string' || encoded === '') return undefined;
  const bytes = Uint8Array.from(atob(encoded), (c) => c.charCodeAt(0));
  const parsed: unknown = JSON.parse(new TextDecoder().decode(bytes));
  return Array.isArray(parsed) ? (parsed as PatchOperation[]) : undefined;
}

function admissionOutcome(answer: unknown, response: Record<string, unknown>, decision?: Decision): Outcome {
  const status = isObject(response['status']) ? response['status'] : undefined;
  const message = typeof status?.['message'] === 'string' ? status['message'] : '';
  const allowed = response['allowed'] === true;
  const out: Outcome = {
    kind: 'admission',
    allowed,
    denials: allowed ? [] : message.split('\n').filter((line) => line !== ''),
    warnings: Array.isArray(response['warnings']) ? response['warnings'].map(String) : [],
    patch: decodePatch(response['patch']) ?? [],
    answer,
  };
  if (typeof status?.['code'] === 'number') out.status = status['code'];
  if (decision) out.decision = decision;
  return out;
}

/**
 * A CI answer's tag changes as the operations a policy writes for them on the
 * job input: `add /tags/- = <tag>` for each added tag, `add /untag/- = <tag>`
 * for each removed one (a policy's `remove /tags/N` included). The answer's
 * net change is what the chain did, dry-run levels left out.
 */
function tagPatch(tags: CiAnswer['tags']): PatchOperation[] {
  const names = (list: unknown): string[] => (Array.isArray(list) ? list.filter((t): t is string => typeof t === 'string') : []);
  return [
    ...names(tags?.add).map((value): PatchOperation => ({ op: 'add', path: '/tags/-', value })),
    ...names(tags?.remove).map((value): PatchOperation => ({ op: 'add', path: '/untag/-', value })),
  ];
}

const DRY_RUN = /^dry run \(.*?\): would /;

/**
 * The warnings of a CI answer. With the chain's levels known (a
 * `JobExplanation`): each dry-run level's report and the warn-enforced
 * messages of the others. From the bare answer: each `dry run (<level>): would
 * …` report in its reason, up to the next one.
 */
function ciWarnings(reason: string | undefined, levels: readonly Record<string, unknown>[] | undefined): string[] {
  if (levels) {
    return levels.flatMap((level) => {
      if (level['dryRun'] === true) return typeof level['report'] === 'string' && level['report'] !== '' ? [level['report']] : [];
      const decision = level['decision'];
      return isDecision(decision) ? decision.warnings : [];
    });
  }
  return reason === undefined ? [] : reason.split(/; (?=dry run \()/).filter((part) => DRY_RUN.test(part));
}

function ciOutcome(answer: unknown, job: Record<string, unknown>, decision?: Decision, levels?: readonly Record<string, unknown>[]): Outcome {
  const accepted = job['admission'] === 'accepted';
  const reason = typeof job['reason'] === 'string' ? job['reason'] : undefined;
  const ci: CiAnswer = { admission: String(job['admission']) };
  if (reason !== undefined) ci.reason = reason;
  if (isObject(job['tags'])) ci.tags = job['tags'] as CiAnswer['tags'] & object;
  if (isObject(job['runners'])) ci.runners = job['runners'] as CiAnswer['runners'] & object;
  const out: Outcome = {
    kind: 'ci', allowed: accepted, denials: !accepted && reason ? [reason] : [], warnings: ciWarnings(reason, levels), patch: tagPatch(ci.tags), ci, answer,
  };
  if (reason !== undefined) out.reason = reason;
  if (decision) out.decision = decision;
  return out;
}

function permissionOutcome(answer: Record<string, unknown>, decision?: Decision): Outcome {
  const allowed = answer['allowed'] === true;
  const reason = typeof answer['reason'] === 'string' ? answer['reason'] : undefined;
  const out: Outcome = { kind: 'permission', allowed, denials: !allowed && reason ? [reason] : [], warnings: [], answer };
  if (reason !== undefined) out.reason = reason;
  if (decision) out.decision = decision;
  return out;
}

/**
 * Normalises any answer verdict produces. Recognises, in order: an Outcome,
 * a core Decision, an AdmissionReview (or a bare AdmissionResponse with
 * `uid`), a CI job response (`admission`; a one-element list is unwrapped),
 * a CI `JobExplanation` (`createJobAdmission(…).explain(job)`: its response,
 * with the levels' warnings), and a permission answer (`{allowed, reason}`). `decision` attaches the
 * decision behind an adapter's answer. Throws a TypeError for anything else.
 */
export function toOutcome(answer: unknown, decision?: Decision): Outcome {
  if (isOutcome(answer)) return answer;
  if (isDecision(answer)) return decisionOutcome(answer);
  let value = answer;
  if (Array.isArray(value) && value.length === 1 && isObject(value[0]) && 'admission' in value[0]) value = value[0];
  if (isObject(value)) {
    if (value['kind'] === 'AdmissionReview' && isObject(value['response'])) return admissionOutcome(answer, value['response'], decision);
    if (typeof value['uid'] === 'string' && typeof value['allowed'] === 'boolean') return admissionOutcome(answer, value, decision);
    if (value['admission'] === 'accepted' || value['admission'] === 'rejected') return ciOutcome(answer, value, decision);
    const response = value['response'];
    if (isObject(response) && (response['admission'] === 'accepted' || response['admission'] === 'rejected') && Array.isArray(value['levels'])) {
      return ciOutcome(response, response, decision, value['levels'].filter(isObject));
    }
    if (typeof value['allowed'] === 'boolean') return permissionOutcome(value, decision);
  }
  throw new TypeError(
    `expected a verdict Decision, an AdmissionReview, a CI job response or a permission answer, but got ${describe(answer)}`,
  );
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return `a list of ${value.length} (${inline(value, 80)})`;
  if (typeof value === 'object') return inline(value, 120);
  return `${typeof value} ${inline(value, 80)}`;
}

function isOutcome(value: unknown): value is Outcome {
  return isObject(value) && typeof value['kind'] === 'string' && Array.isArray(value['denials']) && 'answer' in value;
}

/** A short name for the answer in messages: "decision", "admission response", "job", "permission answer". */
export function answerName(outcome: Outcome): string {
  return { decision: 'decision', admission: 'admission response', ci: 'job', permission: 'permission answer' }[outcome.kind];
}
