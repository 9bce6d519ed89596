/**
 * @verdict/spinnaker: answer "may user U do A on resource R?" in-process with
 * Spinnaker Fiat's exact semantics, from definitions, policies, views fetched
 * from Fiat, or (via `@verdict/spinnaker/redis`) Fiat's Redis layout.
 * @packageDocumentation
 */
export { SpinnakerError, type SpinnakerErrorCode } from './errors.js';
export {
  ALL_AUTHORIZATIONS, AUTHORIZATIONS, RESOURCE_TYPES, UNRESTRICTED_USER, accessDeniedMessage, isAuthorization, keySuffix, parseAuthorization, parseResourceType,
  type Authorization, type ResourceType,
} from './model.js';
export {
  EMPTY_PERMISSIONS, authorizationsFor, isRestricted, normalizePermissions, permissionsToJSON, unionPermissions, withExecuteFallback, withoutCreate,
  type Permissions,
} from './permissions.js';
export {
  emptyUserPermission, mergeUserPermission, resourceToJSON, toResource, toRole, toServiceAccount,
  type AccountResource, type ApplicationResource, type AuthorizableResource, type RoleResource, type RoleSource, type ServiceAccountResource, type UserPermission,
} from './resources.js';
export { parseView, toView, type AuthorizableView, type RoleView, type ServiceAccountView, type UserPermissionView } from './view.js';
export { evaluateView, type PermissionDecision } from './evaluate-view.js';
export type {
  AccountDefinition, ApplicationDefinition, FiatDefinitions, PermissionsInput, ResourceDefinition, RoleInput, ServiceAccountDefinition,
} from './definitions.js';
export { chaosMonkeyPermissionSource, prefixPermissionSource, type PrefixEntry, type PrefixSourceConfig, type ResourcePermissionSource, type ResourceRef } from './sources.js';
export { createFiatResolver, resolveFiatConfig, type FiatConfig, type FiatResolver, type PermissionSource, type ResolvedFiatConfig, type ResolverOptions } from './resolver.js';
export { convertUserId, fallbackView } from './server.js';
export type { ClientConfig } from './client.js';
export { createPermissionEvaluator, getUserPermission, type PermissionEvaluator, type PermissionEvaluatorConfig, type ViewLookup } from './evaluator.js';
export {
  FIAT_CLIENT_RETRY, createAsyncPermissionEvaluator,
  type AsyncPermissionEvaluator, type AsyncPermissionEvaluatorConfig, type AsyncPermissionSource, type RetryConfig,
} from './async-evaluator.js';
export { fiatQuery, type FiatQuery } from './query.js';
export {
  PERMISSIONS_KIND, PERMISSIONS_TEMPLATE, policyPermissionSource, resourceInput, spinnakerMatchDialect,
  type PermissionContribution, type PermissionExplanation, type PolicyPermissionSource, type ResourceInput,
} from './policy/source.js';
