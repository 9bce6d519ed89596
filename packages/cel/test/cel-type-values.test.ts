/**
 * Type values and their names as cel-go gives them (`type(optional.none()) == optional_type`, `null_type`,
 * `kubernetes.URL`), and the library overloads Kubernetes' cost tests exercise (sums of uints and
 * durations, URL equality, sets across int, uint and double).
 */
import { describe, expect, it } from 'vitest';
import { compileCel } from '../src/index.js';

const run = (expression: string) => compileCel(expression, { kubernetesVersion: false }).evaluate();

describe('type values', () => {
  it('gives optional values the type optional_type', () => {
    expect(run('type(optional.none()) == optional_type')).toBe(true);
    expect(run('type(optional.of(1)) == optional_type')).toBe(true);
    expect(run('type(dyn(optional.of(1))) == optional_type')).toBe(true);
    expect(run('type(optional.of(1)) == int')).toBe(false);
    // optional_type belongs to optional types (Kubernetes 1.28).
    expect(() => compileCel('type(1) == optional_type', { kubernetesVersion: '1.27' })).toThrow(/optional_type is not available in Kubernetes 1\.27/);
    expect(compileCel('type(1) == optional_type', { kubernetesVersion: '1.28' }).evaluate()).toBe(false);
  });

  it('prints type names as cel-go does', () => {
    expect(run("'%s'.format([type(null)])")).toBe('null_type');
    expect(run("'%s'.format([type(optional.none())])")).toBe('optional_type');
    expect(run("'%s'.format([type(url('https://kubernetes.io'))])")).toBe('kubernetes.URL');
    expect(run("'%s'.format([type(1)])")).toBe('int');
  });
});

describe('library overloads of the cost tests', () => {
  it('sums uints and durations', () => {
    expect(run('[uint(1), uint(2), uint(3)].sum() == uint(6)')).toBe(true);
    expect(run("[duration('1s'), duration('2s')].sum() == duration('3s')")).toBe(true);
    expect(() => run('[18446744073709551615u, 1u].sum()')).toThrow();
  });

  it('compares URLs by their parts', () => {
    expect(compileCel("url('http://x.b/p?q=1') == url('http://x.b/p?q=1')").evaluate()).toBe(true);
    expect(compileCel("url('http://x.b/p') == url('http://x.b/q')").evaluate()).toBe(false);
  });

  it('finds a map key given as another numeric type, also in a map whose type is known at run time only', () => {
    expect(run("dyn({2u: 'happy'})[2u]")).toBe('happy');
    expect(run("dyn({1u: 1.0, 2: 2.0})[2u]")).toBe(2);
    expect(run("dyn({2: 'x'})[2.0]")).toBe('x');
    expect(() => run("dyn({2: 'x'})[3]")).toThrow(/No such key: 3/);
  });

  it('compares uints with doubles in sets', () => {
    expect(run('sets.contains([1, 2u], [2, 2.0])')).toBe(true);
    expect(run('sets.contains([1, 2.0, 3u], [1.0, 2u, 3])')).toBe(true);
    expect(run('sets.intersects([1], [1.1, 2u])')).toBe(false);
  });
});
