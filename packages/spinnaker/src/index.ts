/**
 * @verdict/spinnaker: answer "may user U do A on resource R?" in-process with
 * Spinnaker Fiat's exact semantics, from definitions, policies, views fetched
 * from Fiat, or (via `@verdict/spinnaker/redis`) Fiat's Redis layout.
 * @packageDocumentation
 */
export { SpinnakerError, type SpinnakerErrorCode } from './errors.js';
export { AUTHORIZATIONS, RESOURCE_TYPES, UNRESTRICTED_USER, type Authorization, type ResourceType } from './model.js';
export type { Permissions } from './permissions.js';
export type { AccountResource, ApplicationResource, AuthorizableResource, RoleResource, RoleSource, ServiceAccountResource, UserPermission } from './resources.js';
export { parseView, type AuthorizableView, type RoleView, type ServiceAccountView, type UserPermissionView } from './view.js';
export { evaluateView, type PermissionDecision } from './evaluate-view.js';
export type { AccountDefinition, ApplicationDefinition, FiatDefinitions, PermissionsInput, ResourceDefinition, RoleInput, ServiceAccountDefinition } from './definitions.js';
export { chaosMonkeyPermissionSource, prefixPermissionSource, type PrefixEntry, type PrefixSourceConfig, type ResourcePermissionSource, type ResourceRef } from './sources.js';
export { createFiatResolver, type FiatConfig, type FiatResolver, type PermissionSource, type ResolvedFiatConfig, type ResolverOptions } from './resolver.js';
export type { ClientConfig } from './client.js';
export { createPermissionEvaluator, type PermissionEvaluator, type PermissionEvaluatorConfig, type ViewLookup } from './evaluator.js';
export { createAsyncPermissionEvaluator, FIAT_CLIENT_RETRY, type AsyncPermissionEvaluator, type AsyncPermissionEvaluatorConfig, type AsyncPermissionSource, type RetryConfig } from './async-evaluator.js';
export { fiatQuery, type FiatQuery } from './query.js';
export { policyPermissionSource, PERMISSIONS_KIND, PERMISSIONS_TEMPLATE, spinnakerMatchDialect, type PermissionContribution, type PermissionExplanation, type PolicyPermissionSource, type ResourceInput } from './policy/source.js';
