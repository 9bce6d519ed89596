/**
 * Loads a scenario folder: `scenario.json` names the chain's policy files and
 * holds the runner inventory; every `request*.json` is paired with the
 * `response*.json` of the same suffix (the expected answer).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createJobAdmission, type AdmissionResponse, type ChainLevelOptions, type JobAdmission, type JobPayload, type Runner } from '@verdict/ci';

export const SCENARIOS_DIR = fileURLToPath(new URL('../scenarios/', import.meta.url));

/** The scenario folders, in order. */
export const SCENARIOS = ['1-allow-list', '2-retag-by-user', '3-runner-pools', 'example-payloads'] as const;
export type ScenarioName = (typeof SCENARIOS)[number];

interface ScenarioFile {
  title: string;
  chain: Array<Omit<ChainLevelOptions, 'policies'> & { policies: string }>;
  runners?: Runner[];
}

export interface Exchange {
  /** `request.json`, `request-245.json`, … */
  file: string;
  request: JobPayload[];
  expected: AdmissionResponse[];
}

export interface Scenario {
  name: ScenarioName;
  title: string;
  admission: JobAdmission;
  exchanges: Exchange[];
}

function readJson<T>(dir: string, file: string): T {
  return JSON.parse(readFileSync(join(dir, file), 'utf8')) as T;
}

/** Builds the scenario's admission (the policies are compiled once) and reads its payloads. */
export function loadScenario(name: ScenarioName): Scenario {
  const dir = join(SCENARIOS_DIR, name);
  const spec = readJson<ScenarioFile>(dir, 'scenario.json');
  const chain = spec.chain.map((level) => ({ ...level, policies: readFileSync(join(dir, level.policies), 'utf8') }));
  const admission = createJobAdmission(spec.runners ? { chain, runners: spec.runners } : { chain });
  const exchanges = readdirSync(dir)
    .filter((file) => /^request.*\.json$/.test(file))
    .sort()
    .map((file) => ({
      file,
      request: readJson<JobPayload[]>(dir, file),
      expected: readJson<AdmissionResponse[]>(dir, file.replace(/^request/, 'response')),
    }));
  return { name, title: spec.title, admission, exchanges };
}

/** Answers every request of a scenario. */
export function runScenario(name: ScenarioName): Array<Exchange & { actual: AdmissionResponse[] }> {
  const { admission, exchanges } = loadScenario(name);
  return exchanges.map((exchange) => ({ ...exchange, actual: admission.admit(exchange.request) }));
}
