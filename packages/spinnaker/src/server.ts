/**
 * What Fiat's server does around the repository for `GET /authorize/{userId}`
 * and `POST /authorize/{userId}/{type}/create`, and the fallback view its
 * clients build when it cannot be reached.
 */
import { SpinnakerError } from './errors.js';
import { RESOURCE_TYPES, UNRESTRICTED_USER, accessDeniedMessage, parseResourceType } from './model.js';
import { authorizationsFor, normalizePermissions, type Permissions } from './permissions.js';
import type { ResolvedFiatConfig } from './resolver.js';
import type { UserPermission } from './resources.js';
import { providerPermissions, type ResourcePermissionSource } from './sources.js';
import { toView, type UserPermissionView } from './view.js';
import type { PermissionDecision } from './evaluate-view.js';

/** Fiat's `ControllerSupport.convert`: `anonymous` (any case) is `__unrestricted_user__`; other ids are lower-cased. */
export function convertUserId(userId: string): string {
  return userId.toLowerCase() === 'anonymous' ? UNRESTRICTED_USER : userId.toLowerCase();
}

/** Fiat's 404 for an unknown user. */
export function userNotFound(userId: string): SpinnakerError {
  return new SpinnakerError('USER_NOT_FOUND', `user not found: ${userId}`);
}

/**
 * The server half of `GET /authorize/{userId}` once the repository answered:
 * `own` is the user's permission (undefined when unknown), `unrestricted` reads
 * the unrestricted user for `fiat.defaultToUnrestrictedUser`. The view's
 * `allowAccessToUnknownApplications` is always the server's setting.
 */
export function serverView(userId: string, own: UserPermission | undefined, unrestricted: UserPermission | undefined, config: ResolvedFiatConfig): UserPermissionView {
  let permission = own;
  if (!permission && config.defaultToUnrestrictedUser && unrestricted) permission = { ...unrestricted, id: userId.toLowerCase() };
  if (!permission) throw userNotFound(userId);
  return toView(permission, { allowAccessToUnknownApplications: config.allowAccessToUnknownApplications });
}

/**
 * Fiat's client fallback view (`buildFallbackView`): the user's name, the given
 * accounts with every authorization (Fiat takes them from `X-SPINNAKER-ACCOUNTS`),
 * `legacyFallback` and `allowAccessToUnknownApplications` true, nothing else.
 */
export function fallbackView(username: string, accounts: readonly string[]): UserPermissionView {
  return {
    name: username.toLowerCase(),
    accounts: accounts.filter((a) => a !== '').map((name) => ({ name, authorizations: ['READ', 'WRITE', 'EXECUTE', 'CREATE'] })),
    applications: [], serviceAccounts: [], roles: [], buildServices: [], extensionResources: {},
    admin: false, accountManager: false, legacyFallback: true, allowAccessToUnknownApplications: true,
  };
}

/**
 * The permissions Fiat's application permission provider gives an application
 * about to be created: its own permissions (CREATE stripped) unioned with
 * every source. Throws `INVALID_CONFIG` for a resource without a name.
 */
export function creationPermissions(resource: unknown, sources: readonly ResourcePermissionSource[]): { name: string; permissions: Permissions } {
  if (resource === null || typeof resource !== 'object' || typeof (resource as { name?: unknown }).name !== 'string') {
    throw SpinnakerError.invalidConfig('the application to create must be an object with a name ({name, permissions?, …details})');
  }
  const { name, permissions, attributes, ...details } = resource as { name: string; permissions?: unknown; attributes?: Record<string, unknown> };
  const own = normalizePermissions(permissions, '/permissions');
  return { name, permissions: providerPermissions({ type: RESOURCE_TYPES.APPLICATION, name, attributes: { ...details, ...(attributes ?? {}) }, permissions: own }, sources) };
}

/** Steps of `canCreate` that come before Fiat is asked; `undefined` when the user's view is needed. */
export function creationPrecheck(resourceType: string, config: ResolvedFiatConfig): PermissionDecision | undefined {
  const type = parseResourceType(resourceType);
  if (type !== RESOURCE_TYPES.APPLICATION) return { allowed: false, reason: `Resource type ${resourceType} does not support creation (only applications can be checked)` };
  if (!config.restrictApplicationCreation) return { allowed: true, reason: 'fiat.restrictApplicationCreation is false: anyone may create applications' };
  return undefined;
}

/** The last step of `canCreate`: admins, or CREATE among the authorizations the user's roles hold on the new application. */
export function creationDecision(view: UserPermissionView, resource: unknown, sources: readonly ResourcePermissionSource[]): PermissionDecision {
  const { name, permissions } = creationPermissions(resource, sources);
  if (view.admin) return { allowed: true, reason: `user ${view.name} is an admin: admins may create any application` };
  const auths = authorizationsFor(permissions, view.roles.map((r) => r.name));
  return auths.includes('CREATE')
    ? { allowed: true, reason: `application ${name} grants CREATE to user ${view.name}` }
    : { allowed: false, reason: accessDeniedMessage(RESOURCE_TYPES.APPLICATION, name, 'CREATE') };
}
