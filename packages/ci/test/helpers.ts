/** Builders for the tests: small Policy documents and jobs. */
import type { PolicyDocument } from '@verdict/core';
import type { JobPayload } from '@verdict/ci';

type Spec = Record<string, unknown>;

export function policy(name: string, spec: Spec): PolicyDocument {
  return { apiVersion: 'verdict.dev/v1', kind: 'Policy', metadata: { name }, spec };
}

const withMatch = (spec: Spec, match?: Spec): Spec => (match ? { match, ...spec } : spec);

/** Adds `tag` to matching jobs. */
export function addTag(name: string, tag: string, match?: Spec): PolicyDocument {
  return policy(name, withMatch({ mutate: [{ name: 'add', patch: [{ op: 'add', path: '/tags/-', value: tag }] }] }, match));
}

/** Removes `tag` (by name) from matching jobs. */
export function untag(name: string, tag: string, match?: Spec): PolicyDocument {
  return policy(name, withMatch({ mutate: [{ name: 'untag', patch: [{ op: 'add', path: '/untag/-', value: tag }] }] }, match));
}

/** Denies matching jobs with `message`. */
export function deny(name: string, message: string, match?: Spec): PolicyDocument {
  return policy(name, withMatch({ validate: [{ name: 'deny', rule: false, message }] }, match));
}

/** Gives matching jobs a reason (and nothing else). */
export function because(name: string, reason: string, match?: Spec): PolicyDocument {
  return policy(name, withMatch({ parameters: { reason } }, match));
}

/** Restricts runners of matching jobs through the `runners` parameter. */
export function runners(name: string, parameters: Spec, match?: Spec): PolicyDocument {
  return policy(name, withMatch({ parameters: { runners: parameters } }, match));
}

export function job(id: number | string, variables: Record<string, string | number> = {}, tags: string[] = []): JobPayload {
  return { id, variables, tags };
}
