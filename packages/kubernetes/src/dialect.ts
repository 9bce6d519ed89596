/**
 * The Kubernetes match dialect: Gatekeeper's `spec.match` vocabulary and the
 * webhook-level vocabulary of a ValidatingWebhookConfiguration, registered
 * with core through `compilePolicies({dialects: [kubernetesDialect]})`.
 */
import { loadPolicySet, type EvaluationLimits, type MatchDialect, type PolicySet, type PolicySource, type Selector } from '@verdict/core';
import { AdmissionError } from './errors.js';
import { compileGatekeeperMatch } from './match-gatekeeper.js';
import { compileWebhookMatch } from './match-webhook.js';

const GATEKEEPER_ONLY = ['kinds', 'scope', 'namespaces', 'excludedNamespaces', 'name', 'source'] as const;
const WEBHOOK_ONLY = ['rules', 'objectSelector', 'namespace'] as const;
const SHARED = ['labelSelector', 'namespaceSelector'] as const;

/**
 * Match keys for Kubernetes inputs (see docs/kubernetes.md):
 * - Gatekeeper: `kinds`, `scope`, `namespaces`, `excludedNamespaces`, `labelSelector`,
 *   `namespaceSelector`, `name`, `source`, with Gatekeeper's semantics exactly;
 * - webhook: `rules`, `objectSelector`, `namespaceSelector` (and shell-operator's
 *   `labelSelector` and `namespace.labelSelector`), with the apiserver's semantics.
 * A block holding `rules`, `objectSelector` or `namespace` is a webhook block; the
 * two vocabularies cannot be mixed in one block (combine blocks with `all`).
 */
export const kubernetesDialect: MatchDialect = Object.freeze({
  name: 'kubernetes',
  keys: Object.freeze([...GATEKEEPER_ONLY, ...SHARED, ...WEBHOOK_ONLY]),
  compile(block: Readonly<Record<string, unknown>>, ctx: Parameters<MatchDialect['compile']>[1]): Selector {
    const webhook = WEBHOOK_ONLY.find((k) => block[k] !== undefined);
    if (webhook) {
      const mixed = GATEKEEPER_ONLY.filter((k) => block[k] !== undefined);
      for (const key of mixed) {
        ctx.problem(`/${key}`, `"${key}" is Gatekeeper match vocabulary but this block uses the webhook key "${webhook}"; they read selectors differently, so put them in separate blocks (all: [{${webhook}: …}, {${key}: …}])`);
      }
      return compileWebhookMatch(block, ctx);
    }
    return compileGatekeeperMatch(block, ctx);
  },
});

/** JSON pointer, inside the input document, that `mutate` patches address: the admitted object. */
export const MUTATION_TARGET = '/object';

/**
 * Loads policies for Kubernetes inputs: YAML/JSON text, parsed documents, or a
 * compiled set (returned as is when it patches `/object`). Compiles with
 * {@link kubernetesDialect} and `mutationTarget: "/object"`, and `limits`
 * (core's evaluation limits) when given. Throws core's `PolicyLoadError`
 * listing every problem.
 */
export function loadKubernetesPolicies(source: PolicySource, options: { source?: string; limits?: EvaluationLimits } = {}): PolicySet {
  const set = loadPolicySet(source, { ...options.limits, dialects: [kubernetesDialect], mutationTarget: MUTATION_TARGET, ...(options.source ? { source: options.source } : {}) });
  if (set.mutationTarget !== MUTATION_TARGET) {
    throw new AdmissionError('INVALID_OPTIONS', `the policy set patches "${set.mutationTarget || '(the whole input)'}", but admission patches must address the object; compile it with mutationTarget: "/object" and dialects: [kubernetesDialect]`);
  }
  return set;
}
