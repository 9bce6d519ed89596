/**
 * Kyverno CLI `Test` files (`cli.kyverno.io/v1alpha1`, kyverno
 * `cmd/cli/kubectl-kyverno/apis/v1alpha1/test.go`): policies, resources, and
 * the expected result (`pass`, `fail`, `skip`, `error`, `warn`) of a policy on
 * named resources, with the values file (namespaces, `request.operation`) and
 * the user info file. Paths are relative to the test file. Fields for what
 * verdict cannot run (JSON/HTTP payloads, PolicyExceptions, MutatingAdmissionPolicy
 * and generation checks) are refused with the reason. Keys match case-insensitively,
 * as Go's JSON decoding matches them (`isMUtatingPolicy` is `isMutatingPolicy`).
 */
import { isAbsolute, resolve } from 'node:path';
import { SuiteError } from '../errors.js';
import { parseSuiteDocuments, readSuiteText } from '../suite/parse.js';
import { DocumentReader } from '../suite/reader.js';

/** The API group of Kyverno CLI test files. */
export const KYVERNO_CLI_GROUP = 'cli.kyverno.io';

/** A result Kyverno reports for a policy on a resource. */
export type KyvernoResultStatus = 'pass' | 'fail' | 'skip' | 'error' | 'warn';

/** One entry of `results`. */
export interface KyvernoExpectation {
  /** The policy's name, `<namespace>/<name>` for a namespaced one. */
  policy: string;
  /** Resource names (`name` or `namespace/name`); empty: every resource of the test. */
  resources: string[];
  /** Resources named by group, version, kind, namespace and name. */
  resourceSpecs: Array<{ group: string; version: string; kind: string; namespace: string; name: string }>;
  kind: string;
  result: KyvernoResultStatus;
  /** The admission operation to simulate (default: the values' `request.operation`, else CREATE). */
  operation?: 'CREATE' | 'UPDATE' | 'DELETE';
  /** Absolute path of the file holding the resource as the mutating policies must leave it (`patchedResources`). */
  patchedResources?: string;
  /** `failOnMissingResources`: a patched resource missing from that file fails instead of dropping the row. */
  failOnMissingResources?: boolean;
  line?: number;
}

/** A Kyverno CLI test file, loaded and checked. */
export interface KyvernoTest {
  /** The file as given (relative paths stay relative, for reports). */
  file: string;
  name: string;
  /** Absolute paths of the policy files and of the parameter resources (for ValidatingAdmissionPolicies). */
  policies: string[];
  resources: string[];
  /** Absolute path of the values file (`variables:`), if any. */
  variables?: string;
  /** Inline `values:`. */
  values?: Record<string, unknown>;
  /** Absolute path of the user info file, if any. */
  userInfo?: string;
  results: KyvernoExpectation[];
}

const TEST_KEYS = ['apiVersion', 'kind', 'metadata', 'name', 'policies', 'resources', 'results', 'variables', 'values', 'userinfo', 'paramResources', 'context', 'clusterResources', 'targetResources', 'exceptions', 'jsonPayload', 'jsonPayloads', 'httpPayloads', 'envoyPayloads', 'apiCallResponses', 'globalContextEntries'];
/** Fields verdict cannot honour: the test reports why instead of giving results that would differ. */
const UNSUPPORTED: Readonly<Record<string, string>> = {
  exceptions: 'PolicyExceptions are not supported yet',
  jsonPayload: 'JSON payloads are for ValidatingPolicies in evaluation mode JSON, which verdict does not load',
  jsonPayloads: 'JSON payloads are for ValidatingPolicies in evaluation mode JSON, which verdict does not load',
  httpPayloads: 'HTTP payloads are for Kyverno\'s authorization policies, which verdict does not load',
  envoyPayloads: 'Envoy payloads are for Kyverno\'s authorization policies, which verdict does not load',
};
const RESULT_KEYS = ['policy', 'rule', 'resources', 'resourceSpecs', 'kind', 'result', 'operation', 'isValidatingPolicy', 'isValidatingAdmissionPolicy', 'isMutatingAdmissionPolicy', 'isDeletingPolicy', 'isImageValidatingPolicy', 'isGeneratingPolicy', 'isMutatingPolicy', 'patchedResources', 'generatedResource', 'generatedResources', 'cloneSourceResource', 'failOnMissingResources'];
const RESULT_UNSUPPORTED = ['isMutatingAdmissionPolicy', 'isDeletingPolicy', 'isImageValidatingPolicy', 'isGeneratingPolicy', 'generatedResource', 'generatedResources', 'cloneSourceResource'];
const STATUSES: readonly KyvernoResultStatus[] = ['pass', 'fail', 'skip', 'error', 'warn'];

const KYVERNO_TEST = /^\s*["']?apiVersion["']?\s*:\s*["']?cli\.kyverno\.io\//m;

/** Whether text is (most likely) a Kyverno CLI test: a cheap test on the text, before parsing it. */
export function looksLikeKyvernoTest(text: string): boolean {
  return KYVERNO_TEST.test(text) && /^\s*["']?kind["']?\s*:\s*["']?Test\b/m.test(text);
}

type Raw = Record<string, unknown>;
const isRaw = (v: unknown): v is Raw => typeof v === 'object' && v !== null && !Array.isArray(v);

class Reader extends DocumentReader {

  path(value: unknown, at: string): string {
    if (typeof value !== 'string' || value === '') {
      this.report(at, `expected a path relative to the test file (got ${JSON.stringify(value)})`);
      return '';
    }
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) this.report(at, `${value}: verdict reads local files only (no URLs)`);
    return isAbsolute(value) ? value : resolve(this.dir, value);
  }

  paths(raw: Raw, key: string): string[] {
    const v = raw[key];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) {
      this.report(`/${key}`, `${key} must be a list of paths`);
      return [];
    }
    return v.map((p, i) => this.path(p, `/${key}/${i}`)).filter((p) => p !== '');
  }

  names(raw: Raw, at: string): string[] {
    const v = raw['resources'];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) {
      this.report(`${at}/resources`, 'resources must be a list of resource names (name or namespace/name)');
      return [];
    }
    return v as string[];
  }

  specs(raw: Raw, at: string): KyvernoExpectation['resourceSpecs'] {
    const v = raw['resourceSpecs'];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v) || !v.every(isRaw)) {
      this.report(`${at}/resourceSpecs`, 'resourceSpecs must be a list of {group, version, kind, namespace, name}');
      return [];
    }
    const text = (x: unknown) => (typeof x === 'string' ? x : '');
    return v.map((s) => ({ group: text(s['group']), version: text(s['version']), kind: text(s['kind']), namespace: text(s['namespace']), name: text(s['name']) }));
  }

  result(written: Raw, at: string): KyvernoExpectation | undefined {
    const raw: Raw = {};
    for (const [name, value] of Object.entries(written)) {
      const key = RESULT_KEYS.find((k) => k.toLowerCase() === name.toLowerCase());
      if (key === undefined) this.report(`${at}/${name}`, `unknown key "${name}" in a result (known: ${RESULT_KEYS.join(', ')})`);
      else if (RESULT_UNSUPPORTED.includes(key) && value !== false && value !== '' && value !== null) {
        this.report(`${at}/${name}`, `${key}: verdict runs Kyverno tests of ValidatingPolicy, MutatingPolicy and their namespaced kinds only`);
      } else raw[key] = value;
    }
    const policy = raw['policy'];
    const result = raw['result'];
    const operation = raw['operation'];
    if (typeof policy !== 'string' || policy === '') this.report(`${at}/policy`, 'policy must name a policy of the test');
    if (!(STATUSES as readonly unknown[]).includes(result)) this.report(`${at}/result`, `result must be one of ${STATUSES.join(', ')} (got ${JSON.stringify(result)})`);
    if (operation !== undefined && operation !== null && operation !== '' && operation !== 'CREATE' && operation !== 'UPDATE' && operation !== 'DELETE') {
      this.report(`${at}/operation`, `operation must be CREATE, UPDATE or DELETE (got ${JSON.stringify(operation)})`);
    }
    const out: KyvernoExpectation = {
      policy: String(policy ?? ''), resources: this.names(raw, at), resourceSpecs: this.specs(raw, at),
      kind: typeof raw['kind'] === 'string' ? raw['kind'] : '', result: result as KyvernoResultStatus,
    };
    if (operation === 'CREATE' || operation === 'UPDATE' || operation === 'DELETE') out.operation = operation;
    if (raw['patchedResources'] !== undefined && raw['patchedResources'] !== null && raw['patchedResources'] !== '') {
      const path = this.path(raw['patchedResources'], `${at}/patchedResources`);
      if (path !== '') out.patchedResources = path;
    }
    if (raw['failOnMissingResources'] === true) out.failOnMissingResources = true;
    const line = this.lineOf(at);
    if (line !== undefined) out.line = line;
    return out;
  }
}

/** Parses Kyverno CLI test text; `file` labels problems and `dir` resolves relative paths. Throws `SuiteError('SUITE_INVALID')`. */
export function parseKyvernoTest(text: string, where: { file: string; dir: string }): KyvernoTest {
  const doc: Raw | undefined = parseSuiteDocuments(text, where.file)[0];
  const apiVersion = doc?.['apiVersion'];
  if (!doc || doc['kind'] !== 'Test' || typeof apiVersion !== 'string' || apiVersion.split('/')[0] !== KYVERNO_CLI_GROUP) {
    throw SuiteError.invalid([{ file: where.file, path: '', message: `not a Kyverno CLI test (expected apiVersion: ${KYVERNO_CLI_GROUP}/v1alpha1, kind: Test)` }]);
  }
  const r = new Reader(doc, where.file, where.dir);
  for (const key of Object.keys(doc)) {
    if (!TEST_KEYS.includes(key)) r.report(`/${key}`, `unknown key "${key}" in a Kyverno test (known: ${TEST_KEYS.join(', ')})`);
    else if (UNSUPPORTED[key] !== undefined && doc[key] !== null && !(Array.isArray(doc[key]) && (doc[key] as unknown[]).length === 0)) r.report(`/${key}`, `${key}: ${UNSUPPORTED[key]!}`);
  }
  const metadata = isRaw(doc['metadata']) ? doc['metadata'] : {};
  const results = Array.isArray(doc['results']) ? doc['results'] : [];
  if (!Array.isArray(doc['results'])) r.report('/results', 'results must be a list');
  const test: KyvernoTest = {
    file: where.file,
    name: typeof metadata['name'] === 'string' ? metadata['name'] : typeof doc['name'] === 'string' ? doc['name'] : where.file,
    policies: [...r.paths(doc, 'policies'), ...r.paths(doc, 'paramResources')],
    resources: r.paths(doc, 'resources'),
    results: results.flatMap((raw, i) => {
      if (!isRaw(raw)) {
        r.report(`/results/${i}`, 'each result must be an object');
        return [];
      }
      return [r.result(raw, `/results/${i}`)!];
    }),
  };
  if (test.policies.length === 0) r.report('/policies', 'policies must list at least one policy file');
  if (doc['variables'] !== undefined && doc['variables'] !== null && doc['variables'] !== '') test.variables = r.path(doc['variables'], '/variables');
  if (isRaw(doc['values'])) test.values = doc['values'];
  if (doc['userinfo'] !== undefined && doc['userinfo'] !== null && doc['userinfo'] !== '') test.userInfo = r.path(doc['userinfo'], '/userinfo');
  if (r.problems.length > 0) throw SuiteError.invalid(r.problems);
  return test;
}

/** Reads a Kyverno CLI test file (`file` resolved against `cwd`, kept as given for reports). */
export function loadKyvernoTest(file: string, options: { cwd?: string } = {}): KyvernoTest {
  const { text, dir } = readSuiteText(file, options);
  return parseKyvernoTest(text, { file, dir });
}
