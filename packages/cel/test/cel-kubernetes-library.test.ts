/**
 * Kubernetes' own CEL library tests (k8s.io/apiserver/pkg/cel/library/*_test.go), ported row by row as data
 * (fixtures/kubernetes-cel-library, with its NOTICE): each expression compiles in Kubernetes' newest CEL
 * environment (the image rows in verdict's full environment: no release enables that library) and gives the
 * expected value (the same through the planner and through cel-js) (compared with CEL's ==, as the Go tests compare with Equal), the run-time error, or the
 * compile error. A row verdict does not reproduce is listed in differences.json with the reason; a listed
 * row that passes fails here, so the list only holds real differences.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compileCel } from '../src/index.js';
import { bothWays, sameOutcome } from './cel-differential.js';

interface Row {
  readonly file: string;
  readonly name: string;
  readonly expr: string;
  readonly expect?: string;
  readonly tolerance?: number;
  readonly runtimeError?: string;
  readonly runtimeErrorText?: string;
  readonly compileError?: string;
  readonly full?: boolean;
  /** The Kubernetes version whose environment the row runs in (default: the newest). */
  readonly version?: string;
  /** cost_test.go's rows: the expression compiles and evaluates without an error (the Go test then compares costs). */
  readonly evaluates?: true;
  /** cost_test.go's runtime cost (cel-go's units), compared with verdict's in cel-cost-units.test.ts (docs/concepts/cel.md). */
  readonly runtimeCost?: number;
  readonly estimatedCost?: readonly [number, number];
}

const folder = new URL('./fixtures/kubernetes-cel-library/', import.meta.url);
const { rows } = JSON.parse(readFileSync(new URL('cases.json', folder), 'utf8')) as { rows: Row[] };
const differences = JSON.parse(readFileSync(new URL('differences.json', folder), 'utf8')) as Record<string, string>;

/** Undefined when the row reproduces; otherwise what verdict did instead. */
function check(row: Row): string | undefined {
  const options = row.full ? { kubernetesVersion: false as const } : row.version ? { kubernetesVersion: row.version } : {};
  let compiled;
  try {
    compiled = compileCel(row.expr, options);
  } catch (error) {
    const message = (error as Error).message;
    if (row.compileError !== undefined) return new RegExp(row.compileError).test(message) ? undefined : `compile error "${message.split('\n')[0]}"`;
    return `compile error "${message.split('\n')[0]}"`;
  }
  if (row.compileError !== undefined) return 'compiled';
  let value: unknown;
  try {
    value = compiled.evaluate();
  } catch (error) {
    const message = (error as Error).message;
    if (row.runtimeErrorText !== undefined) return message === row.runtimeErrorText ? undefined : `error "${message}"`;
    if (row.runtimeError !== undefined) return new RegExp(row.runtimeError).test(message) ? undefined : `error "${message}"`;
    return `error "${message}"`;
  }
  if (row.evaluates) return undefined;
  if (row.expect === undefined) return `value ${JSON.stringify(value)}`;
  if (row.tolerance !== undefined) return Math.abs(Number(value) - Number(row.expect)) < row.tolerance ? undefined : `value ${String(value)}`;
  const equal = compileCel(`(${row.expr}) == (${row.expect})`, options).evaluate();
  return equal === true ? undefined : `value ${JSON.stringify(value)}`;
}

describe('Kubernetes CEL library tests (ported rows)', () => {
  it('covers the library test files, every row named once', () => {
    expect(new Set(rows.map((r) => r.file))).toEqual(new Set(['quantity_test.go', 'ip_test.go', 'cidr_test.go', 'semver_test.go', 'format_test.go', 'image_test.go', 'cost_test.go', 'environment_test.go']));
    expect(new Set(rows.map((r) => `${r.file}/${r.name}`)).size).toBe(rows.length);
    expect(rows.length).toBeGreaterThan(580);
    expect(rows.filter((r) => r.file === 'cost_test.go').length).toBeGreaterThan(190);
  });

  it.each(rows.map((r) => [`${r.file}/${r.name}`, r] as const))('%s', (key, row) => {
    const outcome = check(row);
    if (key in differences) expect(outcome, `${key} is listed as a difference (${differences[key]}) but reproduces: remove it`).toBeDefined();
    else expect(outcome, row.expr).toBeUndefined();
  });

  it('gives the same value or error through the planner (both back ends) and through cel-js on every row that loads', () => {
    let compared = 0;
    for (const row of rows) {
      const both = bothWays(row.expr, {});
      if (!both) continue;
      compared++;
      expect(sameOutcome(both.plan, both.library), row.expr).toBe(true);
    }
    expect(compared).toBeGreaterThan(300);
  });

  it('lists only rows of the data as differences, each with a reason', () => {
    const keys = new Set(rows.map((r) => `${r.file}/${r.name}`));
    for (const [key, reason] of Object.entries(differences)) {
      expect(keys.has(key), key).toBe(true);
      expect(reason.length, key).toBeGreaterThan(20);
    }
  });
});
