/**
 * Evaluating the playground's three texts (policies, input, adapter settings)
 * with core or one adapter, entirely in the page. Every adapter answer comes
 * with the core decision in explain mode, so the trace covers every policy.
 */
import {
  compilePolicies, parsePolicyDocuments, PolicyLoadError, toVerdictError, VerdictError,
  type Decision, type PolicyDocument, type Problem,
} from '@verdict/core';
import { admissionReviewFor, createAdmissionWebhook, InventoryCache, type AdmissionInput, type KubernetesObject, type UserInfo } from '@verdict/kubernetes';
import { createJobAdmission, loadJobPolicies, type Level, type Runner } from '@verdict/ci';
import { createPermissionEvaluator, fiatQuery, policyPermissionSource, type PermissionEvaluatorConfig } from '@verdict/spinnaker';
import { resourceInput } from '@verdict/spinnaker/internal';
import { LineCounter, parseDocument } from 'yaml';

/** Which evaluator answers the input. */
export type AdapterId = 'core' | 'kubernetes' | 'ci' | 'fiat';

export const ADAPTERS: Record<AdapterId, { label: string; input: string; settings: string }> = {
  core: { label: 'Core input', input: 'a core input document', settings: 'none: core evaluates the input as it is' },
  kubernetes: { label: 'Kubernetes (AdmissionReview or object)', input: 'an AdmissionReview v1 or a bare object', settings: 'namespaces (name → labels), inventory (objects), operation, userInfo, oldObject, mutating, failurePolicy' },
  ci: { label: 'CI job (GitLab)', input: 'a GitLab job payload', settings: 'runners, and chain: [{level, name, policies: [names]}]' },
  fiat: { label: 'Fiat query (Spinnaker)', input: '{user, resourceType, resourceName, authorization}', settings: 'definitions (users, applications, accounts, …) and fiat options' },
};

/** A problem in one of the texts, at a 1-based line and column when known. */
export interface TextProblem {
  editor: 'policies' | 'input' | 'settings';
  message: string;
  code?: string;
  line?: number;
  column?: number;
}

/** What one evaluation produced. */
export interface RunResult {
  /** Problems that stopped evaluation (load problems, unparsable input, an adapter's error). */
  problems: TextProblem[];
  /** The policy documents as parsed (for jumping from the trace to their lines). */
  documents: PolicyDocument[];
  allowed?: boolean;
  /** The adapter's own answer line: `AdmissionReview 403`, `rejected`, a Fiat reason. */
  summary?: string;
  /** The core decisions behind the answer, in explain mode: one, or one per CI chain level (labelled). */
  decisions: Array<{ label?: string; decision: Decision }>;
  /** The adapter's answer as it would go over the wire. */
  answer?: unknown;
}

/** Parses YAML or JSON text into one value; syntax errors become problems with their line. */
export function parseValue(text: string, editor: TextProblem['editor']): { value?: unknown; problems: TextProblem[] } {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  if (doc.errors.length > 0) {
    return {
      problems: doc.errors.map((error) => {
        const pos = lines.linePos(error.pos[0]);
        return { editor, message: error.message.split('\n')[0] ?? error.message, line: pos.line, column: pos.col };
      }),
    };
  }
  return { value: doc.toJS({ maxAliasCount: 100 }), problems: [] };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function problemOf(problem: Problem): TextProblem {
  return {
    editor: 'policies', code: problem.code, message: problem.name ? `${problem.name}${problem.path ? ` at ${problem.path}` : ''}: ${problem.message}` : problem.message,
    ...(problem.line !== undefined ? { line: problem.line } : {}), ...(problem.column !== undefined ? { column: problem.column } : {}),
  };
}

function failure(error: unknown, editor: TextProblem['editor']): TextProblem[] {
  if (error instanceof PolicyLoadError) return error.problems.map(problemOf);
  const verdict = toVerdictError(error);
  return [{ editor, code: verdict.code, message: verdict.message }];
}

/** One level of a CI chain: `policies` names the constraints and Policies of the level (templates go to every level). */
interface LevelSettings {
  level?: Level;
  name?: string;
  policies?: string[];
}

function levelDocuments(documents: readonly PolicyDocument[], names: readonly string[] | undefined): PolicyDocument[] {
  if (!names) return [...documents];
  return documents.filter((doc) => doc['kind'] === 'PolicyTemplate' || names.includes(String((doc['metadata'] as Record<string, unknown> | undefined)?.['name'])));
}

function runCore(documents: PolicyDocument[], input: unknown): Omit<RunResult, 'problems' | 'documents'> {
  const decision = compilePolicies(documents).evaluate(input, { explain: true });
  return { allowed: decision.allowed, decisions: [{ decision }], answer: decision };
}

async function runKubernetes(documents: PolicyDocument[], input: unknown, settings: Record<string, unknown>): Promise<Omit<RunResult, 'problems' | 'documents'>> {
  const namespaces = isObject(settings['namespaces']) ? (settings['namespaces'] as Record<string, Record<string, string>>) : {};
  // Validating unless told otherwise, as createAdmissionWebhook and `verdict test` are.
  const mutating = settings['mutating'] === true;
  let seen: { input?: AdmissionInput; decision?: Decision } = {};
  const webhook = createAdmissionWebhook({
    policies: documents,
    namespaceLabels: (name) => namespaces[name],
    mutating,
    // Objects already in the cluster, for policies that compare with them (Gatekeeper's data.inventory).
    ...(Array.isArray(settings['inventory']) ? { inventory: new InventoryCache({ objects: settings['inventory'] as KubernetesObject[] }) } : {}),
    ...(settings['failurePolicy'] === 'Ignore' || settings['failurePolicy'] === 'Fail' ? { failurePolicy: settings['failurePolicy'] } : {}),
    onDecision: (event) => {
      seen = event;
    },
  });
  const review = isObject(input) && input['kind'] === 'AdmissionReview' ? input : admissionReviewFor(input as KubernetesObject, {
    ...(typeof settings['operation'] === 'string' ? { operation: settings['operation'] as 'CREATE' } : {}),
    ...(isObject(settings['userInfo']) ? { userInfo: settings['userInfo'] as UserInfo } : {}),
    ...(isObject(settings['oldObject']) ? { oldObject: settings['oldObject'] as KubernetesObject } : {}),
  });
  const answer = await webhook.review(review);
  const decision = seen.input ? webhook.policies.evaluate(seen.input, { explain: true, mutate: mutating && seen.input.object !== null }) : seen.decision;
  const status = answer.response.status;
  return { allowed: answer.response.allowed, summary: `AdmissionReview: allowed ${answer.response.allowed}${status?.code ? `, code ${status.code}` : ''}`, answer, decisions: decision ? [{ decision }] : [] };
}

function runCi(documents: PolicyDocument[], input: unknown, settings: Record<string, unknown>): Omit<RunResult, 'problems' | 'documents'> {
  const chain = (Array.isArray(settings['chain']) ? (settings['chain'] as LevelSettings[]) : [{}]).map((level, i) => {
    const name = level.name ?? level.level ?? `level ${i + 1}`;
    return { level: level.level ?? ('instance' as Level), name, policies: loadJobPolicies(levelDocuments(documents, level.policies), { source: name }) };
  });
  const runners = Array.isArray(settings['runners']) ? (settings['runners'] as Runner[]) : undefined;
  const admission = createJobAdmission({ chain, ...(runners ? { runners } : {}) });
  // GitLab sends a list; the playground explains one job (a one-element list is unwrapped, as `verdict test` does).
  const job = Array.isArray(input) && input.length === 1 ? (input[0] as unknown) : input;
  if (Array.isArray(job)) throw VerdictError.invalidInput(`the playground explains one CI job at a time (got a list of ${job.length}): keep one job in the input`);
  const explanation = admission.explain(job as Parameters<typeof admission.explain>[0]);
  if (Array.isArray(explanation)) throw VerdictError.invalidInput('the playground explains one CI job at a time');
  // Each level saw the job as the levels before it left it: its own decision, re-evaluated in explain mode.
  const decisions = explanation.levels.map((level) => {
    const set = chain.find((entry) => entry.name === level.name)?.policies;
    return { label: `${level.level} level "${level.name}"${level.dryRun ? ' (dry run)' : ''}`, decision: set ? set.evaluate(level.input, { explain: true }) : level.decision };
  });
  const response = explanation.response;
  return { allowed: response.admission === 'accepted', summary: `admission: ${response.admission}${response.reason ? ` (${response.reason})` : ''}`, decisions, answer: response };
}

function runFiat(documents: PolicyDocument[], input: unknown, settings: Record<string, unknown>): Omit<RunResult, 'problems' | 'documents'> {
  const source = documents.length > 0 ? policyPermissionSource(documents, { name: 'playground policies' }) : undefined;
  const config = { ...settings, cache: false, permissionSources: source ? [source] : [] } as PermissionEvaluatorConfig;
  if (!config.definitions && !config.views) config.definitions = {};
  const query = fiatQuery(input as Parameters<typeof fiatQuery>[0]);
  const answer = createPermissionEvaluator(config).check(query);
  const decision = source?.policies.evaluate(resourceInput({ type: query.resourceType, name: query.resourceName }), { explain: true, mutate: false });
  return { allowed: answer.allowed, summary: answer.reason, answer: { ...answer }, decisions: decision ? [{ decision }] : [] };
}

/** Evaluates the texts with `adapter`. Never throws: every failure is a problem in the result. */
export async function run(adapter: AdapterId, texts: { policies: string; input: string; settings: string }): Promise<RunResult> {
  let documents: PolicyDocument[] = [];
  try {
    documents = parsePolicyDocuments(texts.policies, { source: 'policies' });
  } catch (error) {
    return { problems: failure(error, 'policies'), documents, decisions: [] };
  }
  const input = parseValue(texts.input, 'input');
  const settings = parseValue(texts.settings, 'settings');
  const problems = [...input.problems, ...settings.problems];
  if (adapter !== 'core' && settings.value !== undefined && settings.value !== null && !isObject(settings.value)) {
    problems.push({ editor: 'settings', message: 'the settings must be a mapping (key: value)' });
  }
  if (problems.length > 0) return { problems, documents, decisions: [] };
  const options = isObject(settings.value) ? settings.value : {};
  try {
    switch (adapter) {
      case 'core':
        return { problems, documents, ...runCore(documents, input.value) };
      case 'kubernetes':
        return { problems, documents, ...(await runKubernetes(documents, input.value, options)) };
      case 'ci':
        return { problems, documents, ...runCi(documents, input.value, options) };
      case 'fiat':
        return { problems, documents, ...runFiat(documents, input.value, options) };
    }
  } catch (error) {
    return { problems: failure(error, error instanceof PolicyLoadError ? 'policies' : 'input'), documents, decisions: [] };
  }
}
