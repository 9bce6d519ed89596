/**
 * Reading `*.verdict.yaml` files: YAML 1.2 (so `yes` is a string, as in
 * `gator verify`), checked against the shipped JSON Schema, every problem
 * reported with its line and JSON path.
 */
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import Ajv, { type ErrorObject } from 'ajv';
import { closest, compileRegex, parsePolicyDocuments, PolicyLoadError, sourceLocation, type LinearRegex } from '@verdict/core';
import suiteSchema from '../../schema/suite.schema.json';
import { SuiteError, type SuiteProblem } from '../errors.js';
import type { TextExpectation } from '../text.js';
import type { Assertion, Suite, SuiteCase, SuiteExpect } from './types.js';

export { suiteSchema };

let validator: ReturnType<Ajv['compile']> | undefined;

function validate(document: unknown): ErrorObject[] {
  validator ??= new Ajv({ allErrors: true, strict: false, logger: false, verbose: true }).compile(suiteSchema);
  return validator(document) ? [] : [...(validator.errors ?? [])];
}

function got(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${JSON.stringify(value)}`;
}

function escape(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** One readable sentence per schema error; `undefined` for errors another one already explains. */
function describeError(error: ErrorObject): { path: string; message: string } | undefined {
  const p = error.params as Record<string, unknown>;
  const path = error.instancePath;
  switch (error.keyword) {
    case 'required':
      return { path, message: `missing required key "${String(p['missingProperty'])}"` };
    case 'additionalProperties': {
      const key = String(p['additionalProperty']);
      const schema = error.parentSchema as { properties?: Record<string, unknown> } | undefined;
      const known = Object.keys(schema?.properties ?? {});
      const near = closest(key, known);
      return { path: `${path}/${escape(key)}`, message: `unknown key "${key}"${near ? `; did you mean "${near}"?` : known.length ? ` (expected one of: ${known.join(', ')})` : ''}` };
    }
    case 'type': {
      const types = String(p['type']).split(',').join(' or ');
      const value = error.data;
      const yaml11 = typeof value === 'string' && /^(yes|no|on|off|y|n)$/i.test(value) && types.includes('boolean')
        ? ' (YAML 1.2 reads yes/no/on/off as strings: write true or false)' : '';
      return { path, message: `must be ${types === 'object' ? 'an object' : types === 'array' ? 'a list' : types} (got ${got(value)})${yaml11}` };
    }
    case 'const':
      return { path, message: `must be ${JSON.stringify(p['allowedValue'])} (got ${got(error.data)})` };
    case 'enum':
      return { path, message: `must be one of ${(p['allowedValues'] as unknown[]).map((v) => JSON.stringify(v)).join(', ')} (got ${got(error.data)})` };
    case 'minItems':
      return { path, message: 'must not be an empty list' };
    case 'minProperties':
      return { path, message: 'must not be empty' };
    case 'pattern':
      return { path, message: path.endsWith('/path') ? `must be a JSON pointer such as /metadata/labels (got ${got(error.data)})` : `must match ${String(p['pattern'])}` };
    default:
      return { path, message: error.message ?? `fails ${error.keyword}` };
  }
}

function text(value: unknown, at: string, report: (path: string, message: string) => void): TextExpectation {
  if (typeof value === 'string') return value;
  const { regex, flags } = value as { regex: string; flags?: string };
  try {
    return compileRegex(regex, flags ?? '');
  } catch (error) {
    report(`${at}/regex`, (error as Error).message);
    return regex;
  }
}

function toExpect(raw: Record<string, unknown>, at: string, report: (path: string, message: string) => void): SuiteExpect {
  const out = { ...raw } as SuiteExpect & Record<string, unknown>;
  const texts = (key: 'messages' | 'warnings') => ((raw[key] as unknown[]).map((v, i) => text(v, `${at}/${key}/${i}`, report)));
  if (Array.isArray(raw['messages'])) out.messages = texts('messages');
  if (Array.isArray(raw['warnings'])) out.warnings = texts('warnings');
  if (raw['reason'] !== undefined) out.reason = text(raw['reason'], `${at}/reason`, report);
  if (Array.isArray(raw['assertions'])) {
    out.assertions = (raw['assertions'] as Array<Record<string, unknown>>).map((a, i) => {
      const violations = a['violations'] ?? 'yes';
      if (!(violations === 'yes' || violations === 'no' || (typeof violations === 'number' && Number.isInteger(violations) && violations >= 0))) {
        report(`${at}/assertions/${i}/violations`, `must be yes, no or a non-negative integer (got ${got(violations)})`);
      }
      let message: LinearRegex | undefined;
      if (typeof a['message'] === 'string') {
        try {
          message = compileRegex(a['message']);
        } catch (error) {
          report(`${at}/assertions/${i}/message`, (error as Error).message);
        }
      }
      return message ? { violations: violations as Assertion['violations'], message } : { violations: violations as Assertion['violations'] };
    });
  }
  if (raw['patch'] === true) report(`${at}/patch`, 'must be false (no patch) or a list of operations such as [{path: /metadata/labels/team, value: a}]');
  for (const key of ['runners'] as const) {
    const r = raw[key] as Record<string, unknown[]> | undefined;
    if (r) out.runners = Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v.map(String)]));
  }
  return out;
}

/**
 * Loads every suite in a file (several may be separated by `---`). `file` is
 * resolved against `cwd` (default `process.cwd()`) and kept as given for
 * reports. Throws `SuiteError` (`SUITE_INVALID`, `FILE_UNREADABLE`).
 */
export function loadSuiteFile(file: string, options: { cwd?: string } = {}): Suite[] {
  const { text, dir } = readSuiteText(file, options);
  return parseSuites(text, { file, dir });
}

/** The text of a suite file (`file` resolved against `cwd`) and its directory. Throws `SuiteError('FILE_UNREADABLE')`. */
export function readSuiteText(file: string, options: { cwd?: string } = {}): { text: string; dir: string } {
  const absolute = resolve(options.cwd ?? process.cwd(), file);
  try {
    return { text: readFileSync(absolute, 'utf8'), dir: dirname(absolute) };
  } catch (error) {
    throw new SuiteError('FILE_UNREADABLE', `cannot read suite ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, { cause: error });
  }
}

/** The documents of a suite file's text (verdict, gator or Kyverno); YAML problems throw `SuiteError('SUITE_INVALID')` labelled with `file`. */
export function parseSuiteDocuments(source: string, file: string): Array<Record<string, unknown>> {
  try {
    return parsePolicyDocuments(source, { source: file });
  } catch (error) {
    if (error instanceof PolicyLoadError) {
      throw SuiteError.invalid(error.problems.map((p) => ({ file, path: p.path, message: p.message, ...(p.line ? { line: p.line, column: p.column ?? 1 } : {}) })));
    }
    throw error;
  }
}

/** Parses suite text; `file` labels problems and `dir` resolves relative paths. */
export function parseSuites(source: string, where: { file: string; dir: string }): Suite[] {
  const { file, dir } = where;
  const documents = parseSuiteDocuments(source, file);
  if (documents.length === 0) throw SuiteError.invalid([{ file, path: '', message: 'the file holds no suite (expected apiVersion: verdict.dev/v1, kind: Suite, cases: [...])' }]);
  const problems: SuiteProblem[] = [];
  const suites = documents.map((doc, n) => {
    const report = (path: string, message: string) => {
      const loc = sourceLocation(doc, path);
      problems.push({ file, path, message, ...(loc ? { line: loc.line, column: loc.column } : {}) });
    };
    const errors = validate(doc);
    const seen = new Set<string>();
    for (const error of errors) {
      const described = describeError(error);
      if (!described || seen.has(`${described.path} ${described.message}`)) continue;
      seen.add(`${described.path} ${described.message}`);
      report(described.path, described.message);
    }
    if (errors.length > 0) return undefined;
    return toSuite(doc, { file, dir, index: n, report });
  });
  if (problems.length > 0) {
    problems.sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
    throw SuiteError.invalid(problems);
  }
  return suites as Suite[];
}

function toSuite(doc: Record<string, unknown>, ctx: { file: string; dir: string; index: number; report: (path: string, message: string) => void }): Suite {
  const metadata = (doc['metadata'] as { name?: string } | undefined) ?? {};
  const names = new Set<string>();
  const cases = (doc['cases'] as Record<string, unknown>[]).map((raw, index): SuiteCase => {
    const at = `/cases/${index}`;
    const name = raw['name'] as string;
    if (names.has(name)) ctx.report(`${at}/name`, `case name "${name}" is used twice in this suite; names must be unique`);
    names.add(name);
    const c: SuiteCase = { name, index, input: raw['input'], skip: raw['skip'] === true, expect: toExpect(raw['expect'] as Record<string, unknown>, `${at}/expect`, ctx.report) };
    for (const key of ['as', 'operation', 'namespaceLabels', 'userInfo', 'oldObject', 'inventory'] as const) {
      if (raw[key] !== undefined) (c as unknown as Record<string, unknown>)[key] = raw[key];
    }
    const loc = sourceLocation(doc, at);
    if (loc) c.line = loc.line;
    return c;
  });
  const suite: Suite = {
    file: ctx.file,
    dir: ctx.dir,
    name: metadata.name ?? (ctx.index === 0 ? ctx.file : `${ctx.file}#${ctx.index + 1}`),
    policies: ((doc['policies'] as string[] | undefined) ?? []).map((p) => (isAbsolute(p) ? p : resolve(ctx.dir, p))),
    adapter: (doc['adapter'] as Suite['adapter'] | undefined) ?? 'auto',
    skip: doc['skip'] === true,
    cases,
  };
  if (doc['kubernetes']) suite.kubernetes = doc['kubernetes'] as Suite['kubernetes'] & object;
  if (doc['ci']) suite.ci = doc['ci'] as Record<string, unknown>;
  if (doc['spinnaker']) suite.spinnaker = doc['spinnaker'] as Record<string, unknown>;
  return suite;
}
