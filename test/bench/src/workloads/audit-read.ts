/**
 * Workload 8: reading real manifests in `verdict audit`. The corpus has the shape of ten copies of
 * argo-cd's `manifests/install.yaml` (about 19 MB; 97% of it CustomResourceDefinitions, whose
 * OpenAPI schemas are large, deeply nested maps of descriptions): each copy is the committed
 * extract (packages/cli/test/audit-fixtures/upstream/argo-cd, every document but the two largest
 * CRDs) with its AppProject CRD repeated, renamed, until the copy is as large as install.yaml
 * (1,941,627 bytes at the extract's commit).
 *
 * Rows, in one process: the `yaml` package reading every document (parseAllDocuments + toJS:
 * what `verdict audit` did before, the reference), js-yaml reading them (loadAll, the YAML 1.2
 * core schema), `verdict audit`'s reading phase (js-yaml where it reads as the `yaml` package
 * does, positions from the text; `--stats`), and `verdict audit` end to end in-process
 * (`main(['audit', …])`, policies loaded, JSON report). Target: end to end ≥ 20 MB/s.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CORE_SCHEMA, loadAll } from 'js-yaml';
import { parseAllDocuments } from 'yaml';
import { main, type Io } from '@verdict/cli';
import { EXAMPLE_POLICIES } from '@verdict/example-kubernetes-webhook/src/server.js';
import type { Job } from '../jobs.js';
import { QUICK, type GroupResult, type Row } from '../method.js';

const EXTRACT = fileURLToPath(new URL('../../../../packages/cli/test/audit-fixtures/upstream/argo-cd/install-extract.yaml', import.meta.url));
const INSTALL_BYTES = 1_941_627;

/** One copy: the extract, then its AppProject CRD renamed and repeated up to install.yaml's size. */
export function installLike(): string {
  const text = readFileSync(EXTRACT, 'utf8');
  const docs = text.split(/^(?=---[ \t]*$)/m);
  const crd = docs.find((d) => /^kind: CustomResourceDefinition/m.test(d) && d.includes('name: appprojects.argoproj.io'));
  if (!crd) throw new Error('sanity check failed: the extract has no AppProject CRD');
  const parts = [text];
  let size = text.length;
  for (let i = 0; size + crd.length <= INSTALL_BYTES; i++) {
    const copy = crd.replace('name: appprojects.argoproj.io', `name: appprojects${i}.argoproj.io`);
    parts.push(copy);
    size += copy.length;
  }
  return parts.join('');
}

function row(name: string, engine: string, ms: number, bytes: number, objects: number, reference = false): Row {
  return { name, engine, ns: ms * 1e6, rme: 0, samples: 1, batch: 1, metrics: { megabytesPerSecond: Math.round((bytes / 1e6 / (ms / 1000)) * 10) / 10, objects }, ...(reference ? { reference: true } : {}) };
}

function time<T>(fn: () => T): { ms: number; value: T } {
  const t0 = performance.now();
  const value = fn();
  return { ms: performance.now() - t0, value };
}

async function audit(dir: string): Promise<{ ms: number; readMs: number; objects: number; problems: number }> {
  let report = '';
  let stderr = '';
  const io: Io = { stdout: { write: (s: string) => (report += s) }, stderr: { write: (s: string) => (stderr += s) }, env: {}, cwd: dir };
  const t0 = performance.now();
  await main(['audit', '-p', join(EXAMPLE_POLICIES, 'validating'), dir, '-o', 'json', '--stats'], io);
  const ms = performance.now() - t0;
  const stats = JSON.parse(/verdict audit stats: (\{.*\})/.exec(stderr)?.[1] ?? 'null') as { readMs: number } | null;
  if (!stats) throw new Error(`sanity check failed: no stats: ${stderr.slice(0, 300)}`);
  const parsed = JSON.parse(report) as { summary: { objects: number; problems: number } };
  return { ms, readMs: stats.readMs, objects: parsed.summary.objects, problems: parsed.summary.problems };
}

export async function auditReadWorkload(copies = 10): Promise<GroupResult> {
  const dir = mkdtempSync(join(tmpdir(), 'verdict-bench-audit-read-'));
  try {
    const text = installLike();
    for (let i = 0; i < copies; i++) writeFileSync(join(dir, `install-${i}.yaml`), text);
    const bytes = text.length * copies;
    const texts = Array.from({ length: copies }, () => text);
    const viaYaml = () => texts.reduce((n, t) => n + parseAllDocuments(t).map((d) => d.toJS() as unknown).filter((v) => v != null).length, 0);
    const viaJsYaml = () => texts.reduce((n, t) => n + loadAll(t, undefined, { schema: CORE_SCHEMA }).filter((v) => v != null).length, 0);
    // Warm up each path once, then time each once (a fresh process per run; the driver takes medians).
    const expected = viaYaml();
    if (viaJsYaml() !== expected) throw new Error('sanity check failed: js-yaml reads another number of documents');
    const warm = await audit(dir);
    if (warm.objects !== expected || warm.problems !== 0) throw new Error(`sanity check failed: the audit read ${warm.objects} objects (${warm.problems} problems), the yaml package ${expected}`);
    const yamlRun = time(viaYaml);
    const jsYamlRun = time(viaJsYaml);
    const cli = await audit(dir);
    return {
      id: 'audit-read',
      title: `Workload 8: reading ${copies} copies of an argo-cd install.yaml-sized corpus (${(bytes / 1e6).toFixed(1)} MB, ${expected.toLocaleString('en-US')} objects)`,
      rows: [
        row('`yaml` package: parseAllDocuments + toJS (what `verdict audit` read with before)', 'yaml', yamlRun.ms, bytes, expected, true),
        row('js-yaml: loadAll, YAML 1.2 core schema', 'js-yaml', jsYamlRun.ms, bytes, expected),
        row('`verdict audit` reading and parsing (js-yaml on the common path, the `yaml` package for the rest)', 'verdict-audit-read', cli.readMs, bytes, expected),
        row('`verdict audit` end to end (`main([\'audit\', …])` in-process, policies loaded, JSON report)', 'verdict-audit', cli.ms, bytes, expected),
      ],
      info: { megabytes: Math.round(bytes / 1e5) / 10, objects: expected, files: copies, policies: 'examples/kubernetes-webhook/policies/validating' },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function jobs(): Promise<Job[]> {
  return Promise.resolve([{ id: 'audit-read', runs: 3, run: async (timing) => [await auditReadWorkload(timing === QUICK ? 2 : 10)] }]);
}
