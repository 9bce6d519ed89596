/** The shapes of a loaded suite and of its results. */
import type { LinearRegex } from '@verdict/core';
import type { CheckResult } from '../checks.js';
import type { PatchExpectation } from '../checks-data.js';
import type { TextExpectation } from '../text.js';

/** Which evaluator answers an input. */
export type AdapterName = 'core' | 'kubernetes' | 'ci' | 'spinnaker';

/** One of `gator verify`'s assertions: how many denial messages match `message` (all when absent). */
export interface Assertion {
  /** `yes`: at least one; `no`: none; a number: exactly that many. */
  violations: 'yes' | 'no' | number;
  /** RE2 syntax (as Gatekeeper's Go regexp), compiled with core's `compileRegex`. */
  message?: LinearRegex;
}

/** The `expect` block of a case, with regular expressions compiled. */
export interface SuiteExpect {
  allowed?: boolean;
  messages?: TextExpectation[];
  violations?: number;
  assertions?: Assertion[];
  warnings?: boolean | TextExpectation[];
  patch?: false | PatchExpectation[];
  parameters?: Record<string, Record<string, unknown> | null>;
  status?: number;
  admission?: 'accepted' | 'rejected';
  reason?: TextExpectation;
  tags?: { add?: string[]; remove?: string[] };
  runners?: { accepted_ids?: string[]; rejected_ids?: string[] };
}

/** Options for bare Kubernetes objects and the webhook (`kubernetes:` in a suite). */
export interface KubernetesSuiteOptions {
  /** Namespace name -> labels. */
  namespaces?: Record<string, Record<string, string>>;
  failurePolicy?: 'Fail' | 'Ignore';
  /** `true`: a mutating webhook, whose answers carry patches. Default `false`, as `createAdmissionWebhook`: a validating webhook, no patch. */
  mutating?: boolean;
}

/** One case of a suite. */
export interface SuiteCase {
  name: string;
  /** 0-based position in `cases`. */
  index: number;
  /** A path relative to the suite file, or the input itself. */
  input: unknown;
  as?: AdapterName;
  skip: boolean;
  operation?: 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
  namespaceLabels?: Record<string, string>;
  userInfo?: Record<string, unknown>;
  oldObject?: unknown;
  /** Objects for the inventory (kubernetes): each a path relative to the suite file or an object; a `kind: List` or a list gives its items. */
  inventory?: unknown[];
  expect: SuiteExpect;
  /** 1-based line of the case in the suite file. */
  line?: number;
}

/** A suite file, loaded and checked. */
export interface Suite {
  /** The file as the runner was given it (relative paths stay relative, for reports). */
  file: string;
  /** Absolute directory of the suite file: paths inside the suite are relative to it. */
  dir: string;
  name: string;
  /** Absolute policy file or directory paths. */
  policies: string[];
  adapter: 'auto' | AdapterName;
  kubernetes?: KubernetesSuiteOptions;
  ci?: Record<string, unknown>;
  spinnaker?: Record<string, unknown>;
  skip: boolean;
  cases: SuiteCase[];
}

/** The result of one case. */
export interface CaseResult {
  name: string;
  status: 'passed' | 'failed' | 'error' | 'skipped';
  /** Which evaluator answered. */
  adapter?: AdapterName;
  /** Every check that ran, in the order of the `expect` block. */
  checks: CheckResult[];
  /** Why the case could not run (unreadable input, missing adapter, ...). */
  error?: string;
  /** A likely cause of a failure, when one is recognised (e.g. a namespace without labels). */
  hint?: string;
  /** The answer (AdmissionReview, job response, permission answer or decision). */
  answer?: unknown;
  durationMs: number;
  line?: number;
}

/** The result of one suite file. */
export interface SuiteResult {
  file: string;
  name: string;
  status: 'passed' | 'failed' | 'error' | 'skipped';
  cases: CaseResult[];
  /** Why the suite could not run at all (malformed file, policies failed to load); one line per problem. */
  error?: string[];
  /** What loads but is likely a mistake: a ValidatingAdmissionPolicy or MutatingAdmissionPolicy no binding names (it admits everything); one line each. */
  warnings?: string[];
  durationMs: number;
}

/** Everything `runSuites` found. `failed` counts failing cases and each suite that could not run. */
export interface SuiteReport {
  suites: SuiteResult[];
  passed: number;
  failed: number;
  skipped: number;
  durationMs: number;
}
