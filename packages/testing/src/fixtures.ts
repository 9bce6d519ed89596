/**
 * Builders for test inputs in each adapter's wire format. The AdmissionReview
 * builder lives with the Kubernetes evaluator (it remembers namespace labels).
 */
import { fiatQuery, type FiatQuery } from '@verdict/spinnaker';
import type { JobPayload } from '@verdict/ci';

let nextJobId = 1;

/**
 * A CI job as GitLab's admission controller proposal sends it:
 * `{id, variables, tags}`. Variable values are kept as given (GitLab sends
 * strings and numbers); `id` defaults to a counter starting at 1.
 */
export function ciJobFor(variables: Record<string, string | number | boolean>, tags: readonly string[] = [], options: { id?: number | string } = {}): JobPayload {
  return { id: options.id ?? nextJobId++, variables: { ...variables }, tags: [...tags] } as JobPayload;
}

/**
 * A Fiat query "may `user` do `authorization` on `resourceName` of
 * `resourceType`?", checked and normalised by `@verdict/spinnaker`'s
 * `fiatQuery` (`applications` → `application`, `read` → `READ`).
 */
export function fiatQueryFor(user: string, authorization: string, resourceType: string, resourceName: string): FiatQuery {
  return fiatQuery({ user, authorization, resourceType, resourceName });
}
