import { describe, expectTypeOf, it } from 'vitest';
import {
  compilePolicies, loadPolicySet, VerdictError, type Decision, type EnforcementAction, type MatchDialect, type PolicySet, type Selector,
  type Violation, type VerdictErrorCode,
} from '@verdict/core';

describe('public types', () => {
  it('compilePolicies returns a PolicySet whose evaluate gives a Decision', () => {
    expectTypeOf(compilePolicies).returns.toEqualTypeOf<PolicySet>();
    expectTypeOf<PolicySet['evaluate']>().returns.toEqualTypeOf<Decision>();
    expectTypeOf(loadPolicySet).parameter(0).toEqualTypeOf<string | readonly Record<string, unknown>[] | PolicySet>();
  });

  it('a violation carries one of three enforcement actions', () => {
    expectTypeOf<Violation['enforcementAction']>().toEqualTypeOf<EnforcementAction>();
    expectTypeOf<EnforcementAction>().toEqualTypeOf<'deny' | 'warn' | 'audit'>();
  });

  it('VerdictError is generic over its code, defaulting to the core codes', () => {
    expectTypeOf<VerdictError['code']>().toEqualTypeOf<VerdictErrorCode>();
    expectTypeOf(new VerdictError('INVALID_INPUT', 'x').code).toEqualTypeOf<'INVALID_INPUT'>();
    type AdapterCode = 'BAD_REVIEW' | 'TOO_LARGE';
    class AdapterError extends VerdictError<AdapterCode> {}
    expectTypeOf(new AdapterError('BAD_REVIEW', 'x').code).toEqualTypeOf<AdapterCode>();
    // @ts-expect-error: a code outside the union is refused
    new AdapterError('NOPE', 'x');
  });

  it('a dialect returns core selectors', () => {
    expectTypeOf<ReturnType<MatchDialect['compile']>>().toEqualTypeOf<Selector>();
    const ok: Selector = { all: [{ labels: 'a=b', path: 'labels' }, { field: ['kind', 'kind'], values: ['Pod'] }, { test: () => true, describe: 'x' }] };
    expectTypeOf(ok).toMatchTypeOf<Selector>();
  });
});
