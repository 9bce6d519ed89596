/**
 * Every command the README shows runs as written in a clone: each
 * `npx -y pnpm@10 <name>` names a pnpm command or a script of the root
 * package.json, the `verdict` script runs the CLI from its sources, and each
 * `npx -y pnpm@10 verdict …` the README shows succeeds (a command that prints
 * problems on the repository's own examples is not one a new user can follow).
 */
import { execFile, execFileSync } from 'node:child_process';
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

  it('succeed as written: every verdict command the README shows exits 0 in a clone', async () => {
    const commands = [...new Set([...readme.matchAll(/npx -y pnpm@10 verdict ([^`\n]+)/g)].map((m) => m[1]!.trim()))];
    expect(commands).toEqual(expect.arrayContaining(['test examples/', expect.stringMatching(/^validate /)]));
    const [, ...nodeArgs] = scripts['verdict']!.split(' ');
    const runs = await Promise.all(commands.map((command) => new Promise<string>((done) => {
      // The README's arguments are plain words (no quotes): split as a shell would.
      execFile(process.execPath, [...nodeArgs, ...command.split(/\s+/)], { cwd: root, timeout: 90_000, maxBuffer: 16 * 1024 * 1024 },
        (error, stdout, stderr) => done(error ? `verdict ${command} failed (${String(error.code ?? error.message)}):\n${stdout}${stderr}` : ''));
    })));
    expect(runs.filter(Boolean)).toEqual([]);
  }, 120_000);
});
