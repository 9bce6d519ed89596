/** Argument parsing on node:util `parseArgs`, with one-line errors that name the command. */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { closest } from '@verdict/core';
import { CliError } from './io.js';

export type Options = NonNullable<ParseArgsConfig['options']>;

/** Parsed arguments: option values by name, and positionals. */
export interface Parsed {
  values: Record<string, string | boolean | string[] | boolean[] | undefined>;
  positionals: string[];
}

/** Parses `argv` for `command`; throws {@link CliError} (exit 2) for unknown or malformed options. */
export function parse(command: string, argv: readonly string[], options: Options, positionals: boolean): Parsed {
  try {
    const { values, positionals: rest } = parseArgs({ args: [...argv], options, allowPositionals: positionals, strict: true });
    return { values: values as Parsed['values'], positionals: rest };
  } catch (error) {
    const e = error as { code?: string; message: string };
    const option = /'(-{1,2}[^'\s]+)/.exec(e.message)?.[1];
    const help = `; see verdict ${command} --help`;
    switch (e.code) {
      case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
        throw new CliError(`unknown option ${option ?? ''} for verdict ${command}${option ? suggestOption(option, options) : ''}${help}`);
      case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
        throw new CliError(`option ${option ?? ''} of verdict ${command} ${/argument missing/.test(e.message) ? 'needs a value' : 'takes no value'}${help}`);
      case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
        throw new CliError(`verdict ${command} takes no argument ${/'([^']+)'/.exec(e.message)?.[1] ?? ''}${help}`.replace('  ', ' '));
      default:
        throw new CliError(`${e.message.split('\n')[0]}${help}`);
    }
  }
}

/** `; did you mean "--policies"?` for a misspelt option, or `''`. */
function suggestOption(option: string, options: Options): string {
  const long = Object.keys(options).map((name) => `--${name}`);
  const hit = option.startsWith('--') ? closest(option, long) : undefined;
  return hit ? `; did you mean "${hit}"?` : '';
}

/** A string option (the last one when repeated). */
export function str(parsed: Parsed, name: string): string | undefined {
  const value = parsed.values[name];
  if (Array.isArray(value)) return value.length ? String(value[value.length - 1]) : undefined;
  return typeof value === 'string' ? value : undefined;
}

/** A repeatable string option, each value also split on commas. */
export function list(parsed: Parsed, name: string): string[] {
  const value = parsed.values[name];
  const items = Array.isArray(value) ? value.map(String) : typeof value === 'string' ? [value] : [];
  return items.flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean);
}

/** One of `choices`, or a usage error naming them. */
export function choice<T extends string>(command: string, name: string, value: string | undefined, choices: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  if ((choices as readonly string[]).includes(value)) return value as T;
  throw new CliError(`--${name} must be one of ${choices.join(', ')} (got "${value}"); see verdict ${command} --help`);
}

/** `key=value` pairs (from `--namespace-labels team=a,env=prod`). */
export function pairs(command: string, name: string, items: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of items) {
    const at = item.indexOf('=');
    if (at <= 0) throw new CliError(`--${name} takes key=value pairs (got "${item}"); see verdict ${command} --help`);
    out[item.slice(0, at)] = item.slice(at + 1);
  }
  return out;
}
