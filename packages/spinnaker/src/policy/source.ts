/**
 * Policies as a permission source: each resource is evaluated as an input
 * document `{resource: {type, name, attributes, permissions}}`, and the merged
 * `parameters.permissions` of every policy that matched (read from the
 * decision trace) are unioned.
 */
import { loadPolicySet, parsePolicyDocuments, PolicySet, type EvaluationLimits, type PolicyDocument, type PolicySource } from '@verdict/core';
import { SpinnakerError } from '../errors.js';
import { parseResourceType } from '../model.js';
import { EMPTY_PERMISSIONS, normalizePermissions, permissionsToJSON, unionPermissions, type Permissions } from '../permissions.js';
import type { ResourcePermissionSource, ResourceRef } from '../sources.js';
import { spinnakerMatchDialect } from './dialect.js';
import { PERMISSIONS_KIND, PERMISSIONS_TEMPLATE } from './template.js';

/** One policy's share of a resource's permissions. */
export interface PermissionContribution {
  policy: string;
  kind: string;
  /** The parameterSelection entries that matched (`[]`: `spec.parameters` alone). */
  entries: Array<{ index: number; name?: string }>;
  permissions: Permissions;
}

/** Why a resource has the permissions the policies give it. */
export interface PermissionExplanation {
  permissions: Permissions;
  contributions: PermissionContribution[];
}

/** A {@link ResourcePermissionSource} backed by verdict policies. */
export interface PolicyPermissionSource extends ResourcePermissionSource {
  readonly policies: PolicySet;
  /** The permissions for `resource` with each contributing policy and entry. Throws `SOURCE_FAILURE` when a policy errors. */
  explain(resource: ResourceInput): PermissionExplanation;
}

/** A resource to evaluate: `type` is parsed like Fiat's `ResourceType.parse`. */
export interface ResourceInput {
  type: string;
  name: string;
  attributes?: Readonly<Record<string, unknown>>;
  permissions?: Permissions;
}

/** The input document policies see for one resource. */
export function resourceInput(resource: ResourceInput): { resource: { type: string; name: string; attributes: Record<string, unknown>; permissions: Record<string, string[]> } } {
  return {
    resource: {
      type: parseResourceType(resource.type),
      name: resource.name,
      attributes: { ...(resource.attributes ?? {}) },
      permissions: permissionsToJSON(resource.permissions ?? EMPTY_PERMISSIONS),
    },
  };
}

/**
 * The shape of {@link resourceInput}'s document, for core's load-time check of
 * the paths rules, selectors and messages read (`resource.nmae` does not load);
 * `attributes` and `permissions` are open.
 */
const RESOURCE_INPUT_SHAPE = {
  title: 'the Spinnaker resource input',
  type: 'object',
  properties: {
    resource: {
      type: 'object',
      properties: { type: {}, name: {}, attributes: { type: 'object', additionalProperties: true }, permissions: { type: 'object', additionalProperties: true } },
    },
  },
} as const;

function withTemplate(documents: readonly PolicyDocument[]): PolicyDocument[] {
  const defines = documents.some((d) => d && d['kind'] === 'PolicyTemplate' && (d['spec'] as { kind?: unknown } | undefined)?.kind === PERMISSIONS_KIND);
  return defines ? [...documents] : [...documents, PERMISSIONS_TEMPLATE];
}

/**
 * Compiles `policies` (YAML/JSON text, documents, or a `PolicySet` compiled with
 * {@link spinnakerMatchDialect} and including {@link PERMISSIONS_TEMPLATE}) into a permission source. The
 * `SpinnakerPermissions` template is added unless the documents define it.
 * `limits` are core's evaluation limits (a resource whose evaluation exceeds
 * the cost budget makes the source fail, like any policy error). Throws core's
 * `PolicyLoadError` listing every problem.
 */
export function policyPermissionSource(policies: PolicySource, options: { name?: string; source?: string; limits?: EvaluationLimits } = {}): PolicyPermissionSource {
  let set: PolicySet;
  if (policies instanceof PolicySet) set = loadPolicySet(policies, { ...options.limits });
  else {
    const documents = typeof policies === 'string' ? parsePolicyDocuments(policies, options.source ? { source: options.source } : {}) : policies;
    set = loadPolicySet(withTemplate(documents), { ...options.limits, dialects: [spinnakerMatchDialect], inputShape: RESOURCE_INPUT_SHAPE });
  }
  const name = options.name ?? 'policies';

  const explain = (resource: ResourceInput): PermissionExplanation => {
    const input = resourceInput(resource);
    const decision = set.evaluate(input, { mutate: false });
    if (decision.errors.length > 0) {
      const first = decision.errors[0]!;
      throw new SpinnakerError('SOURCE_FAILURE', `policy source "${name}" failed for ${input.resource.type} ${resource.name}: ${first.policy ? `[${first.policy}] ` : ''}${first.message}`);
    }
    const contributions: PermissionContribution[] = [];
    for (const trace of decision.trace) {
      const raw = trace.matched ? trace.parameters?.['permissions'] : undefined;
      if (raw === undefined) continue;
      const permissions = normalizePermissions(raw, `/${trace.kind}/${trace.policy}/parameters/permissions`);
      contributions.push({ policy: trace.policy, kind: trace.kind, entries: (trace.selection?.matched ?? []).map((e) => ({ ...e })), permissions });
    }
    return { permissions: unionPermissions(contributions.map((c) => c.permissions)), contributions };
  };

  return {
    name,
    policies: set,
    explain,
    getPermissions: (resource: ResourceRef) => explain(resource).permissions,
  };
}

export { spinnakerMatchDialect, PERMISSIONS_KIND, PERMISSIONS_TEMPLATE };
