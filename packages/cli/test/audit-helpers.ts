/** Runs `verdict audit` / `verdict diff` in-process over the fixture tree (or a temporary one). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv from 'ajv';
import Ajv04 from 'ajv-draft-04';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';
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
  objects: Array<{ file: string; line: number; kind: string; namespace: string; name: string; allowed: boolean; skipped?: string; results: Array<{ kind: string; policy: string; rule: string; status: string; messages: string[] }> }>;
  problems: Array<{ file: string; line: number; column?: number; message: string }>;
}

/** A validator of SARIF logs: the vendored SARIF 2.1.0 JSON Schema (draft-04). */
export function sarifValidator() {
  const schema = JSON.parse(readFileSync(join(AUDIT, 'schemas/sarif-2.1.0-rtm.5.json'), 'utf8')) as object;
  // unicodeRegExp: false, because rtm.5's language pattern has a stray "]" that only a non-unicode RegExp accepts (a literal).
  const ajv = new Ajv04({ allErrors: true, strict: false, unicodeRegExp: false });
  addFormats(ajv);
  return ajv.compile(schema);
}

/**
 * A validator per report kind from the wgpolicyk8s.io CRDs (the v1alpha2 version's openAPIV3Schema). Kubernetes
 * checks apiVersion, kind and metadata itself; the schema's extensions (x-kubernetes-*) are not JSON Schema keywords.
 */
export function policyReportValidators() {
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats(ajv);
  const validator = (kind: string) => {
    const crd = parse(readFileSync(join(AUDIT, `schemas/wg-policy-prototypes/wgpolicyk8s.io_${kind.toLowerCase()}s.yaml`), 'utf8')) as {
      spec: { names: { kind: string }; versions: Array<{ name: string; schema: { openAPIV3Schema: object } }> };
    };
    if (crd.spec.names.kind !== kind) throw new Error(`the CRD file for ${kind} defines ${crd.spec.names.kind}`);
    return ajv.compile(crd.spec.versions.find((v) => v.name === 'v1alpha2')!.schema.openAPIV3Schema);
  };
  return { PolicyReport: validator('PolicyReport'), ClusterPolicyReport: validator('ClusterPolicyReport') };
}
