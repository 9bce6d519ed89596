/**
 * Kubernetes' unit tests of the MutatingAdmissionPolicy CEL environment (k8s.io/apiserver/pkg/cel/mutation
 * typeresolver_test.go: TestTypeResolver, TestCELOptional), ported as data (fixtures/kubernetes-map/cel-mutation.yaml,
 * licence in NOTICE there): each expression is rewritten and compiled as translate.ts does for a policy's
 * mutation (object and JSONPatch constructions become map literals, map/construct.ts) and must give the row's
 * value or compile error. A row marked `difference` must not reproduce, with its reason.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { compileCel } from '@verdict/core';
import { rewriteConstructions } from '../src/map/construct.js';

interface Row {
  test: string;
  name: string;
  expression: string;
  value?: unknown;
  compileError?: string;
  difference?: string;
}

const { rows } = parse(readFileSync(fileURLToPath(new URL('./fixtures/kubernetes-map/cel-mutation.yaml', import.meta.url)), 'utf8')) as { rows: Row[] };

/** Undefined when the row reproduces; otherwise what verdict did instead. */
function outcome(row: Row): string | undefined {
  const rewritten = rewriteConstructions(row.expression);
  let compiled;
  try {
    if (rewritten.error !== undefined) throw new Error(rewritten.error);
    // MutatingAdmissionPolicy expressions compile in verdict's full environment (docs/concepts/cel.md, differences).
    compiled = compileCel(rewritten.expression, { kubernetesVersion: false });
  } catch (error) {
    const message = (error as Error).message;
    return row.compileError !== undefined && message.includes(row.compileError) ? undefined : `compile error: ${message.split('\n')[0]}`;
  }
  if (row.compileError !== undefined) return 'compiled';
  const value = compiled.evaluate({});
  return JSON.stringify(value) === JSON.stringify(row.value) ? undefined : `value ${JSON.stringify(value)}`;
}

describe('the MutatingAdmissionPolicy CEL environment (Kubernetes mutation/typeresolver_test.go)', () => {
  it('has the rows of both tests, each named once', () => {
    expect(new Set(rows.map((r) => r.test))).toEqual(new Set(['TestTypeResolver', 'TestCELOptional']));
    expect(new Set(rows.map((r) => `${r.test}/${r.name}`)).size).toBe(rows.length);
    expect(rows.length).toBe(32);
  });

  it.each(rows.map((r) => [`${r.test}/${r.name}`, r] as const))('%s', (_key, row) => {
    if (row.difference) expect(outcome(row), `listed as a difference (${row.difference}) but reproduces`).toBeDefined();
    else expect(outcome(row), row.expression).toBeUndefined();
  });
});
