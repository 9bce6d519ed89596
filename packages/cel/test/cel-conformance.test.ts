/**
 * verdict's CEL on the CEL specification's conformance data (see cel-conformance.ts). Every case that is
 * not a known failure (fixtures/cel-conformance-known-failures.json, each with its reason) must pass, so a
 * change that breaks a passing case fails here. A known failure that starts passing is reported, and
 * `pnpm run cel-conformance` shrinks the list and rewrites the table in docs/concepts/cel.md, which must
 * match the run.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { conformanceFiles, conformanceTable, conformanceTotals, OUTSIDE_KUBERNETES, runCase, runConformance, TABLE_END, TABLE_START } from './cel-conformance.js';
import { DOC, KNOWN_FAILURES, reasonFor } from './cel-conformance-update.js';

const outcomes = runConformance();
const known = JSON.parse(readFileSync(KNOWN_FAILURES, 'utf8')) as Record<string, string>;

describe('CEL conformance (cel-spec simple tests)', () => {
  it('passes every case that is not a known failure', () => {
    const broken = [...outcomes].filter(([name, o]) => !o.pass && !(name in known)).map(([name, o]) => `${name}: ${o.case.expression}\n  ${o.pass ? '' : o.why}`);
    expect(broken).toEqual([]);
  });

  it('lists only cases of the data as known failures, each with a reason', () => {
    for (const [name, reason] of Object.entries(known)) {
      expect(outcomes.has(name), name).toBe(true);
      expect(reason.length, name).toBeGreaterThan(20);
    }
  });

  it('tells which known failures now pass (run `pnpm run cel-conformance` to shrink the list)', () => {
    const fixed = Object.keys(known).filter((name) => outcomes.get(name)?.pass);
    // Not a failure: another change may make cases pass before the list is rewritten; the docs table check below catches a stale record.
    if (fixed.length > 0) console.warn(`${fixed.length} known CEL conformance failures now pass; run \`pnpm run cel-conformance\`:\n  ${fixed.join('\n  ')}`);
    expect(fixed.every((name) => known[name])).toBe(true);
  });

  it('has the measured table in docs/concepts/cel.md', () => {
    const doc = readFileSync(DOC, 'utf8');
    const start = doc.indexOf(TABLE_START);
    const end = doc.indexOf(TABLE_END);
    expect(start).toBeGreaterThan(0);
    expect(doc.slice(start + TABLE_START.length, end).trim()).toBe(conformanceTable(outcomes));
  });

  it('reaches the figures the table states', () => {
    const totals = conformanceTotals(outcomes);
    // Of the cases in Kubernetes' CEL (extensions it does not enable apart), and of those with no uint, bytes or type value.
    expect(totals.all).toBeGreaterThan(1300);
    // The goals of verdict's CEL (docs/concepts/cel.md): 95% of all the cases, 98% of those with no uint, bytes or type value.
    expect(totals.passed / totals.all).toBeGreaterThanOrEqual(0.95);
    expect(totals.plainPassed / totals.plain).toBeGreaterThanOrEqual(0.98);
  });

  it('compares values by type: an int result is not a double, a uint not an int', () => {
    const byName = new Map(conformanceFiles().flatMap((f) => f.cases.map((c) => [c.name, c] as const)));
    const c = byName.get('basic/self_eval_zeroish/self_eval_int_zero')!;
    expect(c.expected).toEqual({ int: '0' });
    expect(byName.get('basic/self_eval_zeroish/self_eval_uint_zero')!.expected).toEqual({ uint: '0' });
    expect(byName.get('basic/self_eval_zeroish/self_eval_float_zero')!.expected).toEqual({ double: 0 });
  });

  it('explains failures by rule: extensions Kubernetes does not enable', () => {
    expect(reasonFor('math_ext/greatest/x')).toMatch(/not in Kubernetes/);
    expect(reasonFor('block_ext/basic/int_add')).toMatch(/not in Kubernetes/);
  });

  it('gives the same answers unchecked: every case of Kubernetes\' CEL passes with typeCheck: false too', () => {
    const failing = conformanceFiles()
      .filter((f) => !OUTSIDE_KUBERNETES[f.file])
      .flatMap((f) => f.cases)
      .filter((c) => outcomes.get(c.name)?.pass && !runCase({ ...c, unchecked: true }).pass)
      .map((c) => c.name);
    expect(failing).toEqual([]);
  });

  it('runs a case as cel-spec declares it: unchecked when it says disable_check, with its declared variables', () => {
    const byName = new Map(conformanceFiles().flatMap((f) => f.cases.map((c) => [c.name, c] as const)));
    const unchecked = byName.get('logic/AND/short_circuit_type_left')!;
    expect(unchecked.unchecked).toBe(true);
    expect(runCase(unchecked)).toEqual({ pass: true });
    // The same expression checked is a load error (what the API server does with it).
    expect(runCase({ ...unchecked, unchecked: false })).toMatchObject({ pass: false, why: expect.stringMatching(/load error/) });
    const qualified = byName.get('fields/qualified_identifier_resolution/map_field_select')!;
    expect(qualified.declared).toEqual(['a.b']);
    expect(runCase(qualified)).toEqual({ pass: true });
  });
});
