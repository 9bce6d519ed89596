/**
 * Every command the README shows runs as written in a clone: each
 * `npx -y pnpm@10 <name>` names a pnpm command or a script of the root
 * package.json, and the `verdict` script runs the CLI from its sources.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const scripts = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
const PNPM_COMMANDS = new Set(['install']);

describe("the README's commands", () => {
  it('name pnpm commands or root scripts, and use verdict through the root script', () => {
    const named = [...readme.matchAll(/npx -y pnpm@10 ([a-z][\w:-]*)/g)].map((m) => m[1]!);
    expect(named).toContain('verdict');
    expect(named.filter((name) => !PNPM_COMMANDS.has(name) && !(name in scripts))).toEqual([]);
    // A bare `verdict …` in the README is a command a clone cannot run (no verdict on PATH, and npx goes to the registry).
    const bare = [...readme.matchAll(/`(verdict [^`]*)`/g)].map((m) => m[1]!);
    expect(bare).toEqual([]);
  });

  it('run the CLI from its sources with the verdict script', () => {
    const [command, ...args] = scripts['verdict']!.split(' ');
    expect(command).toBe('node');
    const version = execFileSync(process.execPath, [...args, '--version'], { cwd: root, encoding: 'utf8' });
    expect(version.trim()).toBe((JSON.parse(readFileSync(join(root, 'packages/cli/package.json'), 'utf8')) as { version: string }).version);
  });
});
