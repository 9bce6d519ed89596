/**
 * gator `Suite` files (`test.gatekeeper.sh/v1alpha1`, gatekeeper
 * `pkg/gator/verify`): tests pair a template with a constraint, cases review
 * one object each and assert how many violations (whose message matches a
 * regular expression) it gets. Read with YAML 1.2, as gator does, so
 * `violations: yes` is the string "yes". Paths are relative to the suite file.
 */
import { isAbsolute, resolve } from 'node:path';
import { compileRegex } from '@verdict/core';
import { SuiteError } from '../errors.js';
import { parseSuiteDocuments, readSuiteText } from '../suite/parse.js';
import { DocumentReader } from '../suite/reader.js';
import type { Assertion } from '../suite/types.js';

/** The API group of gator suites. */
export const GATOR_GROUP = 'test.gatekeeper.sh';

export interface GatorCase {
  name: string;
  /** Absolute path of the object (or AdmissionReview) to review. */
  object: string;
  /** Absolute paths of inventory files (objects for `data.inventory`). */
  inventory: string[];
  skip: boolean;
  assertions: Assertion[];
  line?: number;
}

export interface GatorTest {
  name: string;
  /** Absolute paths of the template and the constraint. */
  template: string;
  constraint: string;
  /** True when the constraint is expected to be refused by its template's schema. */
  invalid: boolean;
  skip: boolean;
  cases: GatorCase[];
  /** An ExpansionTemplate path (not supported: the test reports an error). */
  expansion?: string;
}

/** A gator suite file, loaded and checked. */
export interface GatorSuite {
  /** The file as given (relative paths stay relative, for reports). */
  file: string;
  name: string;
  skip: boolean;
  tests: GatorTest[];
}

const GATOR_API_VERSION = /^\s*["']?apiVersion["']?\s*:\s*["']?test\.gatekeeper\.sh\//m;

/** Whether suite text is (most likely) a gator suite: a cheap test on the text, before parsing it. */
export function looksLikeGatorSuite(text: string): boolean {
  return GATOR_API_VERSION.test(text) && /^\s*["']?kind["']?\s*:\s*["']?Suite/m.test(text);
}

/** Whether a parsed document is a gator Suite. */
export function isGatorSuite(doc: unknown): boolean {
  if (typeof doc !== 'object' || doc === null) return false;
  const { apiVersion, kind } = doc as Record<string, unknown>;
  return kind === 'Suite' && typeof apiVersion === 'string' && apiVersion.split('/')[0] === GATOR_GROUP;
}

type Raw = Record<string, unknown>;

const SUITE_KEYS = ['apiVersion', 'kind', 'metadata', 'skip', 'tests'];
const TEST_KEYS = ['name', 'template', 'constraint', 'expansion', 'invalid', 'skip', 'cases'];
const CASE_KEYS = ['name', 'object', 'inventory', 'skip', 'assertions'];
const ASSERTION_KEYS = ['violations', 'message'];

class Reader extends DocumentReader {

  keys(value: Raw, known: readonly string[], at: string, what: string): void {
    for (const key of Object.keys(value)) if (!known.includes(key)) this.report(`${at}/${key}`, `unknown key "${key}" in ${what} (known: ${known.join(', ')})`);
  }

  list(value: Raw, key: string, at: string): Raw[] {
    const v = value[key];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'object' || x === null || Array.isArray(x))) {
      this.report(`${at}/${key}`, `${key} must be a list of objects`);
      return [];
    }
    return v as Raw[];
  }

  path(value: Raw, key: string, at: string, required: boolean): string | undefined {
    const v = value[key];
    if (v === undefined || v === null || v === '') {
      if (required) this.report(`${at}/${key}`, `missing required key "${key}" (a path relative to the suite file)`);
      return undefined;
    }
    if (typeof v !== 'string') {
      this.report(`${at}/${key}`, `${key} must be a path (got ${typeof v})`);
      return undefined;
    }
    if (isAbsolute(v)) this.report(`${at}/${key}`, `${key} must be relative to the suite file, as gator requires (got the absolute path ${v})`);
    return resolve(this.dir, v);
  }

  flag(value: Raw, key: string, at: string): boolean {
    const v = value[key];
    if (v !== undefined && v !== null && typeof v !== 'boolean') this.report(`${at}/${key}`, `${key} must be true or false (got ${JSON.stringify(v)}; YAML 1.2 reads yes/no as strings)`);
    return v === true;
  }

  assertion(raw: Raw, at: string): Assertion {
    this.keys(raw, ASSERTION_KEYS, at, 'an assertion');
    const violations = raw['violations'] ?? 'yes';
    if (!(violations === 'yes' || violations === 'no' || (typeof violations === 'number' && Number.isInteger(violations) && violations >= 0))) {
      this.report(`${at}/violations`, `assertion.violations, if set, must be a nonnegative integer, "yes", or "no" (got ${JSON.stringify(violations)})`);
    }
    const out: Assertion = { violations: violations as Assertion['violations'] };
    const message = raw['message'];
    if (message !== undefined && message !== null) {
      try {
        out.message = compileRegex(String(message)); // gator compiles Go (RE2) regexes: core's linear engine
      } catch (error) {
        this.report(`${at}/message`, (error as Error).message);
      }
    }
    return out;
  }

  gatorCase(raw: Raw, at: string): GatorCase {
    this.keys(raw, CASE_KEYS, at, 'a case');
    const inventory = raw['inventory'];
    const paths: string[] = [];
    if (inventory !== undefined && inventory !== null) {
      if (!Array.isArray(inventory) || inventory.some((p) => typeof p !== 'string')) this.report(`${at}/inventory`, 'inventory must be a list of paths');
      else inventory.forEach((p, i) => paths.push(this.path({ p }, 'p', `${at}/inventory/${i}`, true) ?? ''));
    }
    const assertions = this.list(raw, 'assertions', at);
    if (assertions.length === 0) this.report(`${at}/assertions`, 'assertions must be non-empty');
    const out: GatorCase = {
      name: typeof raw['name'] === 'string' ? raw['name'] : `case ${at.split('/').pop()}`,
      object: this.path(raw, 'object', at, true) ?? '',
      inventory: paths,
      skip: this.flag(raw, 'skip', at),
      assertions: assertions.map((a, i) => this.assertion(a, `${at}/assertions/${i}`)),
    };
    const line = this.lineOf(at);
    if (line !== undefined) out.line = line;
    return out;
  }

  test(raw: Raw, at: string): GatorTest {
    this.keys(raw, TEST_KEYS, at, 'a test');
    const invalid = this.flag(raw, 'invalid', at);
    const cases = this.list(raw, 'cases', at);
    if (invalid && cases.length > 0) this.report(`${at}/cases`, 'a test with invalid: true checks only that the constraint is refused; it has no cases');
    const test: GatorTest = {
      name: typeof raw['name'] === 'string' ? raw['name'] : `test ${at.split('/').pop()}`,
      template: this.path(raw, 'template', at, true) ?? '',
      constraint: this.path(raw, 'constraint', at, true) ?? '',
      invalid,
      skip: this.flag(raw, 'skip', at),
      cases: cases.map((c, i) => this.gatorCase(c, `${at}/cases/${i}`)),
    };
    const expansion = this.path(raw, 'expansion', at, false);
    if (expansion) test.expansion = expansion;
    return test;
  }
}

/** Parses gator suite text; `file` labels problems and `dir` resolves relative paths. Throws `SuiteError('SUITE_INVALID')`. */
export function parseGatorSuite(text: string, where: { file: string; dir: string }): GatorSuite {
  const doc: Raw | undefined = parseSuiteDocuments(text, where.file)[0];
  if (!doc || !isGatorSuite(doc)) throw SuiteError.invalid([{ file: where.file, path: '', message: `not a gator suite (expected apiVersion: ${GATOR_GROUP}/v1alpha1, kind: Suite)` }]);
  const reader = new Reader(doc, where.file, where.dir);
  reader.keys(doc, SUITE_KEYS, '', 'a gator suite');
  const metadata = doc['metadata'] as { name?: unknown } | undefined;
  const suite: GatorSuite = {
    file: where.file,
    name: typeof metadata?.name === 'string' ? metadata.name : where.file,
    skip: reader.flag(doc, 'skip', ''),
    tests: reader.list(doc, 'tests', '').map((t, i) => reader.test(t, `/tests/${i}`)),
  };
  if (reader.problems.length > 0) throw SuiteError.invalid(reader.problems);
  return suite;
}

/** Reads a gator suite file (`file` resolved against `cwd`, kept as given for reports). */
export function loadGatorSuite(file: string, options: { cwd?: string } = {}): GatorSuite {
  const { text, dir } = readSuiteText(file, options);
  return parseGatorSuite(text, { file, dir });
}
