/**
 * `verdict audit -o sarif`: SARIF 2.1.0 for code scanning (GitHub uploads it
 * with `github/codeql-action/upload-sarif`). One rule per policy, one result
 * per violation: `error` for deny, `warning` for warn, `note` for audit
 * (dryrun); evaluation errors are results too. Each result points at the file
 * and the line where the object's document starts. Unreadable manifests are
 * results of the `verdict/unreadable-manifest` rule. Written by hand: the
 * format is plain JSON and the shape is checked against the SARIF 2.1.0
 * schema in the tests.
 */
import { createHash } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import type { CatalogEntry } from './audit-catalog.js';
import type { AuditReport, AuditedObject, PolicyResult } from './audit-results.js';
import { describeObject } from './audit-table.js';

/** The rule id of a policy: `Kind/name`. */
export function ruleId(kind: string, name: string): string {
  return `${kind}/${name}`;
}

const UNREADABLE = 'verdict/unreadable-manifest';
const READ_WARNING = 'verdict/manifest-warning';
const INPUT_ERROR = 'verdict/input-error';

type Level = 'error' | 'warning' | 'note';

function levelOf(r: Pick<PolicyResult, 'status' | 'enforcementAction'>): Level {
  if (r.enforcementAction === 'audit') return 'note';
  if (r.status === 'warn' || r.enforcementAction === 'warn') return 'warning';
  return 'error';
}

function help(entry: CatalogEntry): { text: string; markdown: string } {
  const action = { deny: 'denies admission (error)', warn: 'warns (warning)', audit: 'only reports (dryrun: note)' }[entry.enforcementAction];
  const lines = [entry.description ?? `Policy ${entry.name} of kind ${entry.kind}.`, '', `Enforcement: ${entry.enforcementAction}, ${action}.`];
  const md = [entry.description ?? `Policy \`${entry.name}\` of kind \`${entry.kind}\`.`, '', `Enforcement: \`${entry.enforcementAction}\`, ${action}.`];
  if (entry.rules.length) {
    lines.push('', 'Rules:');
    md.push('', '| rule | what it checks |', '| --- | --- |');
    for (const r of entry.rules) {
      const what = r.description ?? r.message ?? '';
      lines.push(`- ${r.name}${what ? `: ${what}` : ''}`);
      md.push(`| \`${r.name}\` | ${what.replace(/\|/g, '\\|').replace(/\n/g, ' ')} |`);
    }
  }
  return { text: lines.join('\n'), markdown: md.join('\n') };
}

function rule(entry: CatalogEntry) {
  const short = entry.description?.split(/(?<=\.)\s/)[0] ?? `${entry.kind} ${entry.name}`;
  return {
    id: ruleId(entry.kind, entry.name),
    name: entry.name,
    shortDescription: { text: short },
    ...(entry.description ? { fullDescription: { text: entry.description } } : {}),
    help: help(entry),
    defaultConfiguration: { level: levelOf({ status: 'fail', enforcementAction: entry.enforcementAction }) },
    properties: { tags: ['verdict', entry.kind] },
  };
}

const TOOL_RULES = [
  { id: UNREADABLE, name: 'unreadable-manifest', shortDescription: { text: 'A manifest that cannot be parsed.' }, help: { text: 'The YAML or JSON document could not be parsed, so its objects were not checked.' }, defaultConfiguration: { level: 'error' } },
  { id: READ_WARNING, name: 'manifest-warning', shortDescription: { text: 'A manifest read, but not exactly as written.' }, help: { text: 'A key given twice in one mapping: the last value is read, as kubectl reads it.' }, defaultConfiguration: { level: 'warning' } },
  { id: INPUT_ERROR, name: 'input-error', shortDescription: { text: 'An input the adapter could not decide.' }, help: { text: 'The object could not be turned into a request, or the adapter refused it before any policy ran.' }, defaultConfiguration: { level: 'error' } },
];

function uriOf(file: string): string {
  return file.split('/').map(encodeURIComponent).join('/');
}

function location(file: string, line: number, logical?: string, column?: number) {
  return {
    physicalLocation: { artifactLocation: { uri: uriOf(file), uriBaseId: '%SRCROOT%' }, region: { startLine: Math.max(1, line), ...(column !== undefined ? { startColumn: Math.max(1, column) } : {}) } },
    ...(logical ? { logicalLocations: [{ fullyQualifiedName: logical, kind: 'resource' }] } : {}),
  };
}

function fingerprint(...parts: string[]): string {
  return createHash('sha256').update(parts.join('\u0000')).digest('hex').slice(0, 32);
}

function resultsOf(o: AuditedObject, index: Map<string, number>) {
  const out = [];
  for (const r of o.results) {
    if (r.status !== 'fail' && r.status !== 'warn' && r.status !== 'error') continue;
    const id = r.policy === '(input)' ? INPUT_ERROR : ruleId(r.kind, r.policy);
    const what = describeObject(o);
    const messages = r.messages.length ? r.messages : [`rule ${r.rule} ${r.status === 'error' ? 'failed to evaluate' : 'failed'}`];
    for (const message of messages) {
      const text = r.status === 'error' ? `${what}: evaluation error${r.rule ? ` in rule ${r.rule}` : ''}: ${message}` : `${what}: ${message}`;
      out.push({
        ruleId: id,
        ...(index.has(id) ? { ruleIndex: index.get(id)! } : {}),
        level: levelOf(r),
        message: { text },
        locations: [location(o.file, o.line, [o.apiVersion, o.kind, o.namespace, o.name].filter(Boolean).join('/'))],
        // The file is part of it: the same object in two files is two alerts (code scanning merges equal fingerprints).
        partialFingerprints: { 'verdictObject/v1': fingerprint(id, r.rule, o.file, o.apiVersion, o.kind, o.namespace, o.name, message) },
        properties: { rule: r.rule, enforcementAction: r.enforcementAction, ...(r.paths ? { paths: r.paths } : {}) },
      });
    }
  }
  return out;
}

/** The namespaces the audit assumed to exist, as a notification of the run. */
function assumedNotice(report: AuditReport) {
  const assumed = report.assumedNamespaces ?? [];
  if (assumed.length === 0) return {};
  const text = `namespaces without a Namespace document, assumed to exist with only the label kubernetes.io/metadata.name: ${assumed.join(', ')}`;
  return { toolExecutionNotifications: [{ level: 'note', message: { text }, properties: { assumedNamespaces: assumed } }] };
}

/** The SARIF log as JSON text. `cwd` becomes `%SRCROOT%`, the base of the relative file URIs. */
export function formatSarif(report: AuditReport, context: { version: string; cwd: string }): string {
  const seen = new Set<string>();
  const rules = [...report.policies.filter((p) => !seen.has(ruleId(p.kind, p.name)) && seen.add(ruleId(p.kind, p.name))).map(rule), ...TOOL_RULES];
  const index = new Map(rules.map((r, i) => [r.id, i]));
  const results = report.objects.flatMap((o) => resultsOf(o, index));
  for (const p of report.problems) {
    results.push({
      ruleId: UNREADABLE, ruleIndex: index.get(UNREADABLE)!, level: 'error', message: { text: `cannot parse the manifest: ${p.message}` },
      locations: [location(p.file, p.line, undefined, p.column)], partialFingerprints: { 'verdictObject/v1': fingerprint(UNREADABLE, p.file, p.message) }, properties: { rule: '', enforcementAction: 'deny' },
    });
  }
  for (const w of report.warnings ?? []) {
    results.push({
      ruleId: READ_WARNING, ruleIndex: index.get(READ_WARNING)!, level: 'warning', message: { text: w.message },
      locations: [location(w.file, w.line, undefined, w.column)], partialFingerprints: { 'verdictObject/v1': fingerprint(READ_WARNING, w.file, w.message) }, properties: { rule: '', enforcementAction: 'warn' },
    });
  }
  const base = pathToFileURL(context.cwd).href.replace(/\/?$/, '/');
  const log = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [{
      tool: { driver: { name: 'verdict', semanticVersion: context.version, informationUri: 'https://www.npmjs.com/package/@verdict/cli', rules } },
      originalUriBaseIds: { '%SRCROOT%': { uri: base } },
      invocations: [{ executionSuccessful: true, ...assumedNotice(report) }],
      results,
    }],
  };
  return `${JSON.stringify(log, null, 2)}\n`;
}
