import { describe, expect, it } from 'vitest';
import { verdict } from './helpers.js';

describe('verdict', () => {
  it('prints its usage with --help and exits 0, and exits 2 without a command', async () => {
    const help = await verdict(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: verdict <command> [options]');
    for (const command of ['test', 'eval', 'explain', 'validate']) expect(help.stdout).toMatch(new RegExp(`^  ${command} `, 'm'));
    const bare = await verdict([]);
    expect(bare.code).toBe(2);
    expect(bare.stdout).toContain('Usage: verdict');
  });

  it('prints the version', async () => {
    const run = await verdict(['--version']);
    expect(run).toMatchObject({ code: 0, stdout: '0.1.0\n' });
  });

  it('has --help on every command', async () => {
    for (const command of ['test', 'eval', 'explain', 'validate']) {
      const run = await verdict([command, '--help']);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(`Usage: verdict ${command}`);
      expect(run.stdout).toContain('Exit codes:');
    }
  });

  it('reports an unknown command or option in one line on stderr with exit code 2', async () => {
    const unknown = await verdict(['tset']);
    expect(unknown).toMatchObject({ code: 2, stdout: '' });
    expect(unknown.stderr).toBe('verdict: unknown command "tset"; did you mean "test"? (commands: test, eval, explain, validate, audit, diff); see verdict --help\n');
    const option = await verdict(['test', '--junt', 'x.xml']);
    expect(option.code).toBe(2);
    expect(option.stderr).toBe('verdict: unknown option --junt for verdict test; did you mean "--junit"?; see verdict test --help\n');
    expect((await verdict(['validate', '--no-lnt', '.'])).stderr).toBe('verdict: unknown option --no-lnt for verdict validate; did you mean "--no-lint"?; see verdict validate --help\n');
    const value = await verdict(['eval', '-o', 'xml', '-p', 'x', '-i', 'y']);
    expect(value.stderr).toBe('verdict: --output must be one of json, yaml, text (got "xml"); see verdict eval --help\n');
  });
});
