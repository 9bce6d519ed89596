import { describe, expect, it } from 'vitest';
import * as cli from '@verdict/cli';
import { EXIT, main, processIo, type Io } from '@verdict/cli';
import { CliError, colourEnabled, styleFor } from '../src/io.js';

function setup(env: Record<string, string> = {}, isTTY = false) {
  let stdout = '';
  let stderr = '';
  const io: Io = { stdout: { write: (s: string) => (stdout += s), isTTY }, stderr: { write: (s: string) => (stderr += s) }, env, cwd: process.cwd() };
  return { io, out: () => stdout, err: () => stderr };
}

describe('the public surface of @verdict/cli', () => {
  it('exports exactly these runtime values', () => {
    expect(Object.keys(cli).sort()).toEqual(['EXIT', 'main', 'processIo']);
    expect(EXIT).toEqual({ OK: 0, FAILED: 1, USAGE: 2 });
  });

  it('runs in-process and writes errors as one verdict: line with exit code 2', async () => {
    const { io, out, err } = setup();
    expect(await main(['--version'], io)).toBe(0);
    expect(out()).toBe('0.1.0\n');
    expect(await main(['eval'], io)).toBe(2);
    expect(err()).toBe('verdict: verdict eval needs policies: -p <file or directory>; see verdict eval --help\n');
  });

  it('colours on a TTY unless NO_COLOR is set, and when FORCE_COLOR asks', () => {
    expect(colourEnabled(setup({}, true).io)).toBe(true);
    expect(colourEnabled(setup({}, false).io)).toBe(false);
    expect(colourEnabled(setup({ NO_COLOR: '1' }, true).io)).toBe(false);
    expect(colourEnabled(setup({ NO_COLOR: '' }, true).io)).toBe(true);
    expect(colourEnabled(setup({ FORCE_COLOR: '1' }, false).io)).toBe(true);
    expect(colourEnabled(setup({ FORCE_COLOR: '0' }, false).io)).toBe(false);
    expect(styleFor(setup({}, true).io).bad('x')).toBe('\u001b[31mx\u001b[39m');
    expect(styleFor(setup({}, false).io).bad('x')).toBe('x');
  });

  it('has one-line usage errors with an exit code, and binds to the process', () => {
    const error = new CliError('bad option');
    expect(error).toMatchObject({ code: 'CLI_USAGE', exit: 2, message: 'bad option' });
    expect(new CliError('denied', { exit: EXIT.FAILED }).exit).toBe(1);
    const io = processIo();
    expect(io.cwd).toBe(process.cwd());
    expect(typeof io.stdin).toBe('function');
  });
});
