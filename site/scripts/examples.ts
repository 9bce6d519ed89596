/**
 * The playground's examples, read at build time from the repository's own
 * suites (`examples/**\/*.verdict.yaml`): each suite is an example (its
 * policy files, its adapter settings), each case a starting input. A suite
 * added under examples/ shows up in the playground without a change here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { detectAdapter } from '@verdict/testing';
// The suite reader `verdict test` uses (an internal entry: this private package moves in lockstep with it).
import { findPolicyFiles, loadSuiteFile, type Suite, type SuiteCase } from '@verdict/testing/internal';
import { parseAllDocuments, stringify } from 'yaml';
import type { Example, ExampleCase } from '../playground/src/examples.js';
import type { AdapterId } from '../playground/src/run.js';

/** The page opens on this suite and case (the default + overrides of Gatekeeper's feature request #3082, Gatekeeper YAML on the webhook). */
export const DEFAULT_EXAMPLE = { file: 'examples/kubernetes-webhook/webhook.verdict.yaml', suite: 0, caseName: /64g team/ };

/** Example directories first in the picker; the rest follow alphabetically. */
const ORDER = ['kubernetes-webhook', 'parameter-selection', 'gatekeeper-library', 'cel-policies', 'validating-admission-policy', 'ci', 'spinnaker'];

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function slug(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
}

function policyText(root: string, files: readonly string[]): string {
  return files.map((file) => `# ${relative(root, file).split('\\').join('/')}\n${readFileSync(file, 'utf8').trimEnd()}\n`).join('---\n');
}

/** Names of the constraints and Policies in policy files (a CI chain level lists its own). */
function documentNames(files: readonly string[]): string[] {
  const names: string[] = [];
  for (const file of files) {
    for (const doc of parseAllDocuments(readFileSync(file, 'utf8')).flatMap((d) => (Array.isArray(d) ? [] : [d.toJS() as unknown]))) {
      if (isObject(doc) && doc['kind'] !== 'PolicyTemplate' && isObject(doc['metadata']) && typeof doc['metadata']['name'] === 'string') names.push(doc['metadata']['name']);
    }
  }
  return names;
}

function readData(suite: Suite, value: unknown): unknown {
  return typeof value === 'string' ? (parseAllDocuments(readFileSync(resolve(suite.dir, value), 'utf8'))[0]?.toJS() as unknown) : value;
}

/** The objects of an inventory entry: a list, a `kind: List`'s items, or the object itself (as suites read them). */
function listItems(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  return isObject(value) && value['kind'] === 'List' && Array.isArray(value['items']) ? value['items'] : [value];
}

function inputOf(suite: Suite, testCase: SuiteCase): { text: string; value: unknown } {
  if (typeof testCase.input === 'string') {
    const text = readFileSync(resolve(suite.dir, testCase.input), 'utf8');
    return { text, value: parseAllDocuments(text)[0]?.toJS() as unknown };
  }
  return { text: stringify(testCase.input), value: testCase.input };
}

function expected(testCase: SuiteCase): ExampleCase['expected'] {
  const expect = testCase.expect;
  if (expect.allowed !== undefined) return expect.allowed ? 'allowed' : 'denied';
  if (expect.admission) return expect.admission === 'accepted' ? 'allowed' : 'denied';
  const violations = expect.assertions?.find((a) => a.message === undefined)?.violations;
  if (violations !== undefined) return violations === 'no' || violations === 0 ? 'allowed' : 'denied';
  return undefined;
}

function settingsFor(adapter: AdapterId, suite: Suite, testCase: SuiteCase, input: unknown): Record<string, unknown> {
  if (adapter === 'kubernetes') {
    const namespaces = { ...(suite.kubernetes?.namespaces ?? {}) };
    const namespace = isObject(input) && isObject(input['metadata']) ? input['metadata']['namespace'] : undefined;
    if (testCase.namespaceLabels && typeof namespace === 'string') namespaces[namespace] = testCase.namespaceLabels;
    return {
      ...(Object.keys(namespaces).length > 0 ? { namespaces } : {}),
      ...(testCase.operation ? { operation: testCase.operation } : {}),
      ...(testCase.userInfo ? { userInfo: testCase.userInfo } : {}),
      ...(testCase.oldObject !== undefined ? { oldObject: readData(suite, testCase.oldObject) } : {}),
      ...(testCase.inventory ? { inventory: testCase.inventory.flatMap((entry) => listItems(readData(suite, entry))) } : {}),
      ...(suite.kubernetes?.mutating !== undefined ? { mutating: suite.kubernetes.mutating } : {}),
      ...(suite.kubernetes?.failurePolicy ? { failurePolicy: suite.kubernetes.failurePolicy } : {}),
    };
  }
  if (adapter === 'ci') {
    const ci = suite.ci ?? {};
    const chain = Array.isArray(ci['chain']) ? (ci['chain'] as Array<Record<string, unknown>>) : [];
    const levels = chain.map((level) => ({
      level: level['level'], ...(level['name'] ? { name: level['name'] } : {}),
      ...(chain.length > 1 ? { policies: documentNames((level['policies'] as string[]).map((p) => resolve(suite.dir, p))) } : {}),
    }));
    return { ...(levels.length > 0 ? { chain: levels } : {}), ...(ci['runners'] !== undefined ? { runners: readData(suite, ci['runners']) } : {}) };
  }
  if (adapter === 'fiat') {
    const settings = { ...(suite.spinnaker ?? {}) };
    if (settings['definitions'] !== undefined) settings['definitions'] = readData(suite, settings['definitions']);
    return settings;
  }
  return {};
}

function policyFiles(suite: Suite): string[] {
  const chain = Array.isArray(suite.ci?.['chain']) ? (suite.ci['chain'] as Array<Record<string, unknown>>) : [];
  const fromChain = chain.flatMap((level) => (Array.isArray(level['policies']) ? (level['policies'] as string[]).map((p) => resolve(suite.dir, p)) : []));
  return findPolicyFiles([...suite.policies, ...fromChain]);
}

function exampleOf(root: string, file: string, suite: Suite, index: number): Example | undefined {
  const cases = suite.cases.filter((c) => !c.skip);
  const first = cases[0];
  if (!first) return undefined;
  const detected = suite.adapter === 'auto' ? detectAdapter(inputOf(suite, first).value) : suite.adapter;
  const adapter: AdapterId = detected === 'spinnaker' ? 'fiat' : detected;
  const source = relative(root, file).split('\\').join('/');
  const group = source.split('/')[1] ?? 'examples';
  const isDefault = source === DEFAULT_EXAMPLE.file && index === DEFAULT_EXAMPLE.suite;
  const examplesCases: ExampleCase[] = cases.map((testCase) => {
    const input = inputOf(suite, testCase);
    const settings = settingsFor(adapter, suite, testCase, input.value);
    const outcome = expected(testCase);
    return { name: testCase.name, input: input.text, settings: Object.keys(settings).length > 0 ? stringify(settings) : '', ...(outcome ? { expected: outcome } : {}) };
  });
  const defaultCase = isDefault ? Math.max(0, cases.findIndex((c) => DEFAULT_EXAMPLE.caseName.test(c.name))) : 0;
  return { id: `${group}/${slug(suite.name)}`, title: suite.name, group, source, adapter, policies: policyText(root, policyFiles(suite)), cases: examplesCases, defaultCase };
}

/** `*.verdict.yaml` files under `dir`, sorted, skipping dependencies. */
function suiteFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...suiteFiles(full));
    else if (entry.name.endsWith('.verdict.yaml')) out.push(full);
  }
  return out;
}

/** Every example of the repository, the default one first, then by {@link ORDER}. */
export function loadExamples(root: string): Example[] {
  const found: Array<{ example: Example; isDefault: boolean }> = [];
  for (const file of suiteFiles(resolve(root, 'examples'))) {
    loadSuiteFile(file).forEach((suite, index) => {
      const example = exampleOf(root, file, suite, index);
      if (example) found.push({ example, isDefault: example.source === DEFAULT_EXAMPLE.file && index === DEFAULT_EXAMPLE.suite });
    });
  }
  const rank = ({ example, isDefault }: { example: Example; isDefault: boolean }) => {
    if (isDefault) return -1;
    const at = ORDER.indexOf(example.group);
    return at === -1 ? ORDER.length : at;
  };
  return found
    .map((entry, i) => ({ entry, i }))
    .sort((a, b) => rank(a.entry) - rank(b.entry) || a.entry.example.group.localeCompare(b.entry.example.group) || a.i - b.i)
    .map(({ entry }) => entry.example);
}
