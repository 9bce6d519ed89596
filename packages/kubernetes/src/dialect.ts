/**
 * The Kubernetes match dialect: Gatekeeper's `spec.match` vocabulary and the
 * webhook-level vocabulary of a ValidatingWebhookConfiguration, registered
 * with core through `compilePolicies({dialects: [kubernetesDialect]})`.
 */
import type { MatchDialect, Selector } from '@verdict/core';
import { compileGatekeeperMatch } from './match-gatekeeper.js';
import { compileMatchResources, MATCH_RESOURCES_KEYS } from './match-resources.js';
import { compileWebhookMatch } from './match-webhook.js';

const GATEKEEPER_ONLY = ['kinds', 'scope', 'namespaces', 'excludedNamespaces', 'name', 'source'] as const;
const WEBHOOK_ONLY = ['rules', 'objectSelector', 'namespace', ...MATCH_RESOURCES_KEYS] as const;
const SHARED = ['labelSelector', 'namespaceSelector'] as const;

/**
 * Match keys for Kubernetes inputs (see docs/kubernetes.md):
 * - Gatekeeper: `kinds`, `scope`, `namespaces`, `excludedNamespaces`, `labelSelector`,
 *   `namespaceSelector`, `name`, `source`, with Gatekeeper's semantics exactly;
 * - webhook: `rules`, `objectSelector`, `namespaceSelector` (and shell-operator's
 *   `labelSelector` and `namespace.labelSelector`), with the apiserver's semantics;
 * - MatchResources (ValidatingAdmissionPolicy): `resourceRules`, `excludeResourceRules`,
 *   `matchPolicy`, `objectSelector`, `namespaceSelector`.
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
      return MATCH_RESOURCES_KEYS.some((k) => block[k] !== undefined) ? compileMatchResources(block, ctx) : compileWebhookMatch(block, ctx);
    }
    return compileGatekeeperMatch(block, ctx);
  },
});

/** JSON pointer, inside the input document, that `mutate` patches address: the admitted object. */
export const MUTATION_TARGET = '/object';
