/** The machine and the versions a run used, recorded with its results. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { dirname, join } from 'node:path';

export interface Machine {
  cpu: string;
  cores: number;
  memoryGiB: number;
  os: string;
  node: string;
  commit: string;
  versions: Record<string, string>;
  /** 1-minute load average sampled when each measuring process started (other work on the machine adds noise). */
  loadAverage?: { min: number; median: number; max: number };
  /** The measuring processes ran at nice -10. */
  raisedPriority?: boolean;
}

const require = createRequire(import.meta.url);

const PACKAGES = ['@verdict/core', 'tinybench', 'json-logic-js', 'json-logic-engine', 'json-rules-engine', 'casbin', '@casl/ability', 'autocannon'];

function version(name: string): string | undefined {
  try {
    // Walk up from the entry point to the package's own package.json (exports maps may hide it).
    let dir = dirname(require.resolve(name));
    for (let i = 0; i < 6; i++) {
      try {
        const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
        if (pkg.name === name) return pkg.version;
      } catch {
        // not here; go up
      }
      dir = dirname(dir);
    }
  } catch {
    return undefined;
  }
  return undefined;
}

function cpuModel(): string {
  try {
    const info = readFileSync('/proc/cpuinfo', 'utf8');
    const model = /^model name\s*:\s*(.+)$/m.exec(info)?.[1];
    if (model) return model.trim();
  } catch {
    // not Linux
  }
  return os.cpus()[0]?.model ?? 'unknown';
}

export function machine(): Machine {
  const versions: Record<string, string> = {};
  for (const name of PACKAGES) {
    const v = version(name);
    if (v) versions[name] = v;
  }
  let commit = 'unknown';
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    // not a git checkout
  }
  return {
    cpu: cpuModel(),
    cores: os.cpus().length,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    os: `${os.type()} ${os.release()}`,
    node: process.version,
    commit,
    versions,
  };
}
