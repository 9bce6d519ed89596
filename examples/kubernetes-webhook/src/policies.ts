/**
 * Policies from a folder (in a cluster, a ConfigMap volume), reloaded into a
 * running webhook when the folder changes. A set that does not load is
 * reported and the webhook keeps the set it has.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parsePolicyDocuments, type PolicyDocument } from '@verdict/core';
import type { AdmissionWebhook } from '@verdict/kubernetes';
import { watchFolder } from './watch.js';

export interface PolicyFiles {
  documents: PolicyDocument[];
  /** File names read, sorted. */
  files: string[];
  /** sha256 over names and contents: equal digests, equal sets. */
  digest: string;
}

const POLICY_FILE = /\.(ya?ml|json)$/;

interface FolderText {
  texts: Array<[file: string, text: string]>;
  digest: string;
}

function readTexts(folder: string): FolderText {
  const files = readdirSync(folder).filter((f) => !f.startsWith('.') && POLICY_FILE.test(f)).sort();
  const hash = createHash('sha256');
  const texts = files.map((file): [string, string] => {
    const text = readFileSync(join(folder, file), 'utf8');
    hash.update(`${file}\0${text}\0`);
    return [file, text];
  });
  return { texts, digest: hash.digest('hex') };
}

function parse(read: FolderText, label: string): PolicyFiles {
  const documents = read.texts.flatMap(([file, text]) => parsePolicyDocuments(text, { source: `${label}/${file}` }));
  return { documents, files: read.texts.map(([file]) => file), digest: read.digest };
}

/**
 * Reads every `*.yaml`, `*.yml` and `*.json` of `folder`, sorted by name,
 * with `label/<file>` in error messages. Entries starting with a dot (a
 * ConfigMap volume's `..data` and timestamped folders) are skipped.
 */
export function readPolicyFolder(folder: string, label = folder): PolicyFiles {
  return parse(readTexts(folder), label);
}

export interface PolicyLoad {
  /** 1 for the set loaded at start, then +1 per set loaded. */
  version: number;
  policies: number;
  files: string[];
  digest: string;
}

export interface PolicyReload {
  /** The set in use. */
  current(): PolicyLoad;
  /** Reads the folder now; loads it when it changed. Returns whether a new set is in use. */
  check(): boolean;
  stop(): void;
}

/**
 * Keeps `webhook` on the policies of `folder`: `initial` is what the webhook
 * was created with; each change of the folder that yields a different set is
 * loaded with `webhook.update`. A set that fails is reported once, until the
 * folder changes again.
 */
export function reloadPolicies(
  webhook: AdmissionWebhook,
  folder: string,
  initial: PolicyFiles,
  events: { label?: string; onLoad?: (load: PolicyLoad) => void; onError?: (error: Error) => void; settleMs?: number } = {},
): PolicyReload {
  let current: PolicyLoad = { version: 1, policies: webhook.policies.policies.length, files: initial.files, digest: initial.digest };
  let failed = '';
  const check = (): boolean => {
    let read: FolderText;
    try {
      read = readTexts(folder);
    } catch (error) {
      events.onError?.(error as Error);
      return false;
    }
    if (read.digest === current.digest || read.digest === failed) return false;
    let next: PolicyFiles;
    try {
      next = parse(read, events.label ?? folder);
      webhook.update(next.documents);
    } catch (error) {
      failed = read.digest;
      events.onError?.(error as Error);
      return false;
    }
    current = { version: current.version + 1, policies: webhook.policies.policies.length, files: next.files, digest: next.digest };
    failed = '';
    events.onLoad?.(current);
    return true;
  };
  const watch = watchFolder(folder, check, { pollMs: 60_000, ...(events.settleMs !== undefined ? { settleMs: events.settleMs } : {}), ...(events.onError ? { onError: events.onError } : {}) });
  return { current: () => current, check, stop: () => watch.close() };
}
