/** Runs `verdict audit` / `verdict diff` in-process over the fixture tree (or a temporary one). */
import { join } from 'node:path';
import { main, type Io } from '@verdict/cli';
import { ROOT } from './helpers.js';

/** Policies, manifests (policies/, manifests/) and the vendored schemas (schemas/) of the audit tests. */
export const AUDIT = join(ROOT, 'packages/cli/test/audit-fixtures');

export interface InProcessRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** `verdict ...args` in `cwd` (default the audit fixtures), with optional standard input and TTY flags. */
export async function run(args: readonly string[], options: { cwd?: string; stdin?: string; tty?: boolean; stderrTTY?: boolean } = {}): Promise<InProcessRun> {
  let stdout = '';
  let stderr = '';
  const io: Io = {
    stdout: { write: (s: string) => (stdout += s), isTTY: options.tty === true },
    stderr: { write: (s: string) => (stderr += s), isTTY: options.stderrTTY === true },
    env: {},
    cwd: options.cwd ?? AUDIT,
    ...(options.stdin !== undefined ? { stdin: () => Promise.resolve(options.stdin!) } : {}),
  };
  const code = await main(args, io);
  return { code, stdout, stderr };
}

/** The gatekeeper-library ports, for inventory tests. */
export const UNIQUE_INGRESS_HOST = [
  join(ROOT, 'examples/gatekeeper-library/uniqueingresshost/template.yaml'),
  join(ROOT, 'examples/gatekeeper-library/uniqueingresshost/samples/unique-ingress-host/constraint.yaml'),
].join(',');
export const UNIQUE_SERVICE_SELECTOR = [
  join(ROOT, 'examples/gatekeeper-library/uniqueserviceselector/template.yaml'),
  join(ROOT, 'examples/gatekeeper-library/uniqueserviceselector/samples/unique-service-selector/constraint.yaml'),
].join(',');

/** The JSON report's shape, as the tests read it. */
export interface JsonReport {
  summary: { files: number; objects: number; denied: number; warned: number; skipped: number; problems: number; results: Record<string, number> };
  objects: Array<{ file: string; line: number; kind: string; namespace: string; name: string; allowed: boolean; skipped?: string; results: Array<{ policy: string; rule: string; status: string; messages: string[] }> }>;
  problems: Array<{ file: string; line: number; column?: number; message: string }>;
}
