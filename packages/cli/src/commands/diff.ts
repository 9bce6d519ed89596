/** `verdict diff --base <policies> --head <policies> <paths...>`: which objects change decision between two policy sets, and why. */
import { findPolicyFiles, readPolicyFiles } from '@verdict/testing/internal';
import { PolicyLoadError, type PolicyDocument } from '@verdict/core';
import { list, parse, str, choice, type Parsed } from '../args.js';
import { CliError, EXIT, styleFor, type Io } from '../io.js';
import type { Command } from './command.js';
import { manifestOptions, manifestSettings, MANIFEST_HELP } from './audit.js';
import { readManifests } from './audit-files.js';
import { progressLine } from './audit-progress.js';
import { Deciders, decideAll, explainOne, planAudit, type AuditPlan } from './audit-run.js';
import { compareObjects, formatDiffTable, type ObjectChange } from './diff-format.js';
import { loadError } from './shared.js';

const HELP = `Usage: verdict diff --base <policies> --head <policies> <paths...> [options]

Decides every object of the manifests under the paths (as verdict audit reads
them) with two versions of a policy set, and prints the objects whose decision
or findings change: newly denied, newly allowed, or the same decision with
other violations or warnings. For each, the traces of the policies that
changed, side by side (base | head): which matched, which parameters were
chosen, which rules failed. For safe rollouts: run it in CI on the policy
change, over the manifests or a cluster dump.

Options:
      --base <path>           the current policies: file or directory (repeatable, or comma-separated)
      --head <path>           the new policies (repeatable, or comma-separated)
  -o, --output <format>       table (default on a terminal) or json (default otherwise)
${MANIFEST_HELP}
  -h, --help                  show this help

Exit codes: 0 no object changes, 1 some object changes (decision or
findings), 2 usage error or policies that do not load.
`;

function policies(side: 'base' | 'head', parsed: Parsed, io: Io): PolicyDocument[] {
  const paths = list(parsed, side);
  if (paths.length === 0) throw new CliError(`verdict diff needs --${side} <policies>; see verdict diff --help`);
  try {
    return readPolicyFiles(paths, { cwd: io.cwd });
  } catch (error) {
    throw loadError(error);
  }
}

async function run(argv: readonly string[], io: Io): Promise<number> {
  const parsed = parse('diff', argv, { ...manifestOptions, base: { type: 'string', multiple: true }, head: { type: 'string', multiple: true }, output: { type: 'string', short: 'o' } }, true);
  if (parsed.values['help']) {
    io.stdout.write(HELP);
    return EXIT.OK;
  }
  const format = choice('diff', 'output', str(parsed, 'output'), ['table', 'json'] as const) ?? (io.stdout.isTTY === true ? 'table' : 'json');
  if (parsed.positionals.length === 0) throw new CliError('verdict diff needs manifests: verdict diff --base <policies> --head <policies> <files, folders or ->; see verdict diff --help');
  const base = policies('base', parsed, io);
  const head = policies('head', parsed, io);
  const settings = await manifestSettings('diff', parsed, io);
  const exclude = new Set(findPolicyFiles([...list(parsed, 'base'), ...list(parsed, 'head')], { cwd: io.cwd }));
  const progress = progressLine(io);
  try {
    const plan = (documents: PolicyDocument[]): AuditPlan => ({ documents, adapterOptions: settings.adapterOptions, namespace: settings.namespace, strictNamespaces: settings.strictNamespaces, defaults: settings.defaults, ...(settings.as ? { as: settings.as } : {}) });
    const sides = [new Deciders(plan(base)), new Deciders(plan(head))] as const;
    for (const d of sides) await d.get(d.adapter);
    const read = await readManifests('diff', parsed.positionals, { io, limits: settings.limits, exclude });
    const planned = [planAudit(read.manifests, plan(base), sides[0].adapter), planAudit(read.manifests, plan(head), sides[1].adapter)] as const;
    const [before, after] = [
      await decideAll(planned[0], sides[0], (done, total) => progress.update(`base: ${done}/${total} objects`)),
      await decideAll(planned[1], sides[1], (done, total) => progress.update(`head: ${done}/${total} objects`)),
    ];
    const changes: ObjectChange[] = [];
    for (let i = 0; i < before.length; i++) {
      const change = compareObjects(before[i]!, after[i]!);
      if (!change) continue;
      change.traces = { base: await explainOne(planned[0], i, sides[0]), head: await explainOne(planned[1], i, sides[1]) };
      changes.push(change);
    }
    progress.done();
    const objects = after.filter((o) => o.skipped === undefined).length;
    if (format === 'json') {
      io.stdout.write(`${JSON.stringify({ summary: { objects, changed: changes.length, problems: read.problems.length }, changes: changes.map(toJson), problems: read.problems }, null, 2)}\n`);
    } else {
      const width = Number(io.env['COLUMNS']) > 40 ? Number(io.env['COLUMNS']) : 120;
      io.stdout.write(formatDiffTable(changes, { objects }, styleFor(io), width));
      for (const p of read.problems) io.stderr.write(`verdict: ${p.file}:${p.line}: unreadable manifest, not compared: ${p.message}\n`);
    }
    return changes.length > 0 ? EXIT.FAILED : EXIT.OK;
  } catch (error) {
    if (error instanceof PolicyLoadError || !(error instanceof CliError)) throw loadError(error);
    throw error;
  } finally {
    progress.done();
  }
}

function toJson(c: ObjectChange) {
  const side = (o: ObjectChange['base']) => ({ allowed: o.allowed, findings: o.results.filter((r) => r.status !== 'pass' && r.status !== 'skip') });
  const trace = (d: ObjectChange['traces'] extends infer T ? T : never, which: 'base' | 'head') => d?.[which]?.trace.filter((t) => c.policies.includes(`${t.kind}/${t.policy}`)) ?? [];
  return {
    file: c.head.file, line: c.head.line, apiVersion: c.head.apiVersion, kind: c.head.kind, namespace: c.head.namespace, name: c.head.name,
    change: c.change, base: side(c.base), head: side(c.head), added: c.added, removed: c.removed,
    trace: { base: trace(c.traces, 'base'), head: trace(c.traces, 'head') },
  };
}

export const diffCommand: Command = { name: 'diff', help: HELP, run };
