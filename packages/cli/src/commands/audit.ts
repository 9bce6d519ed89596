/** `verdict audit -p <policies> <paths...>`: decide every manifest and report, for CI (SARIF, JUnit) and dashboards (PolicyReport). */
import { parseQuantity, PolicyLoadError } from '@verdict/core';
import { findPolicyFiles } from '@verdict/testing/internal';
import type { AdapterName, AdapterOptions } from '@verdict/testing';
import packageJson from '../../package.json';
import { choice, list, parse, str, type Options, type Parsed } from '../args.js';
import { CliError, EXIT, styleFor, type Io } from '../io.js';
import type { Command } from './command.js';
import { readManifests } from './audit-files.js';
import { formatJUnit } from './audit-junit.js';
import { formatPolicyReports } from './audit-policyreport.js';
import { progressLine } from './audit-progress.js';
import { summarize, type AuditReport } from './audit-results.js';
import { auditManifests, Deciders } from './audit-run.js';
import { formatSarif } from './audit-sarif.js';
import { formatTable } from './audit-table.js';
import { ADAPTERS, loadError, readConfig, readPolicies } from './shared.js';

export const FORMATS = ['table', 'json', 'sarif', 'policyreport', 'junit'] as const;
export type AuditFormat = (typeof FORMATS)[number];

/** Options `audit` and `diff` share. */
export const manifestOptions: Options = {
  as: { type: 'string' },
  config: { type: 'string', short: 'c' },
  namespace: { type: 'string', short: 'n' },
  'max-document-size': { type: 'string' },
  'strict-namespaces': { type: 'boolean' },
  'no-defaults': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
};

export const MANIFEST_HELP = `      --as <adapter>          core, kubernetes, ci or spinnaker for every input
                              (default: from each input's shape; inputs the policies' adapter
                              cannot take are skipped)
  -c, --config <file>         adapter settings, as in a suite: kubernetes: {namespaces,
                              failurePolicy, mutating}, ci: {chain, runners}, spinnaker: {...}
  -n, --namespace <name>      namespace of namespaced objects without metadata.namespace
                              (default "default", as kubectl apply)
      --strict-namespaces     a namespace without a Namespace document (or --config labels) is
                              unknown, as on a cluster without it (default: it is assumed to
                              exist with the label kubernetes.io/metadata.name, and reported)
      --no-defaults           review objects as written (default: with the API server's defaults
                              for built-in kinds applied first, as admission sees them)
      --max-document-size <q> largest YAML or JSON document read (default 32Mi; 512Ki, 1Gi, bytes)`;

const HELP = `Usage: verdict audit -p <policies> <paths...> [options]

Decides every object of the manifests under the paths (files; folders,
searched recursively for .yaml, .yml and .json; - for standard input): each
YAML document, JSON file, and item of a kind: List (kubectl get -A -o yaml).
Kubernetes objects are reviewed as CREATE requests by the Kubernetes webhook,
with the audited objects as the inventory and the audited Namespaces' labels;
CI jobs and Fiat queries go to their adapters. A manifest that does not parse
is reported with its file and line, and the others are still decided.

Options:
  -p, --policies <path>       policy file or directory (repeatable, or comma-separated)
  -o, --output <format>       table (default on a terminal), json (default otherwise),
                              sarif (SARIF 2.1.0 for code scanning), policyreport
                              (wgpolicyk8s.io/v1alpha2 reports, YAML), junit
      --fail-on <level>       deny (default) or warn: also exit 1 for warnings
  -a, --all                   table: list passing and skipped objects too
      --stats                 print timings to stderr as one JSON line (reading and parsing,
                              deciding, writing the report; objects per second)
${MANIFEST_HELP}
  -h, --help                  show this help

Exit codes: 0 no object denied, 1 an object denied (or warned, with --fail-on
warn) or a manifest that does not parse, 2 usage error or policies that do not load.
`;

const DEFAULT_MAX_DOCUMENT = 32 * 1024 * 1024;

function sizeOption(command: string, parsed: Parsed): number {
  const text = str(parsed, 'max-document-size');
  if (text === undefined) return DEFAULT_MAX_DOCUMENT;
  const bytes = parseQuantity(text);
  if (bytes === null || !Number.isFinite(bytes) || bytes <= 0) {
    throw new CliError(`--max-document-size must be a positive size such as 32Mi, 512Ki or 1000000 (got "${text}"); see verdict ${command} --help`);
  }
  return Math.floor(bytes);
}

/** The shared part of `audit` and `diff`: what to read and how to decide it. */
export async function manifestSettings(command: string, parsed: Parsed, io: Io) {
  const as = choice<AdapterName>(command, 'as', str(parsed, 'as'), ADAPTERS);
  const config = await readConfig(parsed, io);
  // An audit decides what is stored, as a validating webhook would: no mutation unless the config asks for it.
  const adapterOptions: AdapterOptions = { ...config, kubernetes: { mutating: false, ...config.kubernetes } };
  return {
    ...(as ? { as } : {}),
    adapterOptions,
    namespace: str(parsed, 'namespace') ?? 'default',
    strictNamespaces: parsed.values['strict-namespaces'] === true,
    defaults: parsed.values['no-defaults'] !== true,
    limits: { maxDocumentBytes: sizeOption(command, parsed) },
  };
}

/** Milliseconds spent in each phase of a run. */
export interface AuditTiming {
  loadMs: number;
  readMs: number;
  decideMs: number;
}

/** Runs an audit and returns the report (the policies are loaded before any manifest is read). */
export async function runAudit(command: string, parsed: Parsed, io: Io): Promise<{ report: AuditReport; timing: AuditTiming }> {
  const paths = parsed.positionals;
  if (paths.length === 0) throw new CliError(`verdict ${command} needs manifests: verdict ${command} -p <policies> <files, folders or ->; see verdict ${command} --help`);
  const documents = readPolicies(command, parsed, io);
  const settings = await manifestSettings(command, parsed, io);
  const exclude = new Set(findPolicyFiles(list(parsed, 'policies'), { cwd: io.cwd }));
  const progress = progressLine(io);
  const deciders = new Deciders({ documents, adapterOptions: settings.adapterOptions, ...(settings.as ? { as: settings.as } : {}) });
  try {
    const t0 = performance.now();
    await deciders.get(deciders.adapter);
    deciders.policies();
    const t1 = performance.now();
    let read = 0;
    const manifests = await readManifests(command, paths, {
      io, limits: settings.limits, exclude, onFile: (file, objects) => progress.update(`reading: ${(read += objects)} objects (${file})`),
    });
    const t2 = performance.now();
    const decided = await auditManifests(manifests.manifests, {
      documents, adapterOptions: settings.adapterOptions, namespace: settings.namespace, strictNamespaces: settings.strictNamespaces, defaults: settings.defaults, ...(settings.as ? { as: settings.as } : {}),
      onObject: (done, total) => progress.update(`deciding: ${done}/${total} objects`),
    }, deciders);
    const timing = { loadMs: t1 - t0, readMs: t2 - t1, decideMs: performance.now() - t2 };
    return { report: { ...decided, problems: manifests.problems, warnings: manifests.warnings, files: manifests.files }, timing };
  } catch (error) {
    if (error instanceof PolicyLoadError || !(error instanceof CliError)) throw loadError(error);
    throw error;
  } finally {
    progress.done();
  }
}

/** The report in `format`. */
export function formatReport(report: AuditReport, format: AuditFormat, io: Io, options: { all?: boolean } = {}): string {
  switch (format) {
    case 'table':
      return formatTable(report, styleFor(io), options);
    case 'json':
      return `${JSON.stringify({ summary: summarize(report), adapter: report.adapter, assumedNamespaces: report.assumedNamespaces ?? [], objects: report.objects, problems: report.problems, warnings: report.warnings ?? [] }, null, 2)}\n`;
    case 'sarif':
      return formatSarif(report, { version: packageJson.version, cwd: io.cwd });
    case 'policyreport':
      return formatPolicyReports(report);
    case 'junit':
      return formatJUnit(report);
  }
}

async function run(argv: readonly string[], io: Io): Promise<number> {
  const parsed = parse('audit', argv, {
    ...manifestOptions,
    policies: { type: 'string', short: 'p', multiple: true },
    output: { type: 'string', short: 'o' },
    'fail-on': { type: 'string' },
    all: { type: 'boolean', short: 'a' },
    stats: { type: 'boolean' },
  }, true);
  if (parsed.values['help']) {
    io.stdout.write(HELP);
    return EXIT.OK;
  }
  const format = choice('audit', 'output', str(parsed, 'output'), FORMATS) ?? (io.stdout.isTTY === true ? 'table' : 'json');
  const failOn = choice('audit', 'fail-on', str(parsed, 'fail-on'), ['deny', 'warn'] as const) ?? 'deny';
  const { report, timing } = await runAudit('audit', parsed, io);
  const t = performance.now();
  io.stdout.write(formatReport(report, format, io, { all: parsed.values['all'] === true }));
  const counts = summarize(report);
  if (parsed.values['stats'] === true) {
    const ms = (n: number) => Math.round(n * 10) / 10;
    const writeMs = performance.now() - t;
    const total = timing.loadMs + timing.readMs + timing.decideMs + writeMs;
    // The summary's counts: decided objects, and the skipped documents apart.
    const stats = { files: counts.files, objects: counts.objects, skipped: counts.skipped, loadMs: ms(timing.loadMs), readMs: ms(timing.readMs), decideMs: ms(timing.decideMs), writeMs: ms(writeMs), objectsPerSecond: Math.round((counts.objects * 1000) / Math.max(total, 0.001)) };
    io.stderr.write(`verdict audit stats: ${JSON.stringify(stats)}\n`);
  }
  const failed = counts.denied > 0 || counts.problems > 0 || (failOn === 'warn' && counts.warned > 0);
  return failed ? EXIT.FAILED : EXIT.OK;
}

export const auditCommand: Command = { name: 'audit', help: HELP, run };
