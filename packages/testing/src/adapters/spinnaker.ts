/**
 * Fiat queries: answered by `createPermissionEvaluator` over the suite's
 * `spinnaker:` settings, with the suite's policies as a permission source;
 * the resource's policy decision (explain mode) is kept for the trace. Also
 * the Fiat query fixture.
 */
import { resolve } from 'node:path';
import type { Decision, PolicyDocument } from '@verdict/core';
import { resourceInput } from '@verdict/spinnaker/internal';
import {
  createPermissionEvaluator, fiatQuery, policyPermissionSource,
  type FiatDefinitions, type FiatQuery, type PermissionEvaluatorConfig, type PolicyPermissionSource, type ResourcePermissionSource, type ResourceRef,
} from '@verdict/spinnaker';
import type { AdapterOptions, Evaluator } from '../evaluate.js';
import { readInputFile } from '../files.js';
import { toOutcome } from '../outcome.js';

/** Records the resources a policy source was asked about, to explain a query's resource later. */
function recording(source: PolicyPermissionSource, seen: Map<string, ResourceRef>): ResourcePermissionSource {
  return {
    name: source.name,
    getPermissions(resource) {
      seen.set(`${resource.type}/${resource.name}`, resource);
      return source.getPermissions(resource);
    },
  };
}

/** Evaluates Fiat queries with @verdict/spinnaker. */
export function createSpinnakerEvaluator(documents: readonly PolicyDocument[], options: AdapterOptions): Evaluator {
  const settings = { ...(options.spinnaker ?? {}) } as PermissionEvaluatorConfig & Record<string, unknown>;
  const baseDir = options.baseDir ?? process.cwd();
  if (typeof settings.definitions === 'string') {
    const file = settings.definitions as string;
    settings.definitions = readInputFile(resolve(baseDir, file), `spinnaker.definitions (${file})`) as FiatDefinitions;
  }
  const seen = new Map<string, ResourceRef>();
  const source = documents.length > 0 ? policyPermissionSource([...documents], { name: 'suite policies', ...(options.limits ? { limits: options.limits } : {}) }) : undefined;
  const config: PermissionEvaluatorConfig = {
    ...settings,
    cache: false,
    permissionSources: [...(settings.permissionSources ?? []), ...(source ? [recording(source, seen)] : [])],
  };
  if (!config.definitions && !config.views && !config.source) config.definitions = {};
  const evaluator = createPermissionEvaluator(config);
  return {
    adapter: 'spinnaker',
    async evaluate(input: unknown) {
      const query = fiatQuery(input as Parameters<typeof fiatQuery>[0]);
      const answer = evaluator.check(query);
      let decision: Decision | undefined;
      const ref = seen.get(`${query.resourceType}/${query.resourceName}`);
      if (source) {
        const resource = ref ?? { type: query.resourceType, name: query.resourceName };
        decision = source.policies.evaluate(resourceInput(resource), { explain: true, mutate: false });
      }
      return toOutcome({ ...answer }, decision);
    },
  };
}

/**
 * A Fiat query "may `user` do `authorization` on `resourceName` of
 * `resourceType`?", checked and normalised by `@verdict/spinnaker`'s
 * `fiatQuery` (`applications` → `application`, `read` → `READ`).
 */
export function fiatQueryFor(user: string, authorization: string, resourceType: string, resourceName: string): FiatQuery {
  return fiatQuery({ user, authorization, resourceType, resourceName });
}
