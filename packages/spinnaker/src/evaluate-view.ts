/**
 * Fiat's `FiatPermissionEvaluator.permissionContains`: the decision for one
 * view, step by step, with a reason a person can read.
 */
import { SpinnakerError } from './errors.js';
import { RESOURCE_TYPES, accessDeniedMessage, displayType, parseAuthorization, parseResourceType, type Authorization, type ResourceType } from './model.js';
import type { AuthorizableView, UserPermissionView } from './view.js';

/** The answer to "may this user do A on R?": `reason` says why, in Fiat's words on denial. */
export interface PermissionDecision {
  allowed: boolean;
  reason: string;
}

/** The parsed arguments of a check (steps 2 to 5 of Fiat's order), or the denial for a missing one. */
export type ParsedArguments =
  | { ok: true; name: string; type: ResourceType; authorization: Authorization | null }
  | { ok: false; decision: PermissionDecision };

/**
 * Steps 2 to 5: null arguments deny; the type is parsed (Fiat's `ResourceType.parse`);
 * the authorization is parsed unless the type is `service_account` (whose
 * authorization is never looked at); CREATE throws `CREATE_NOT_SUPPORTED`.
 * Throws `SpinnakerError` like Fiat throws `IllegalArgumentException`.
 */
export function parseArguments(resourceName: unknown, resourceType: string | null | undefined, authorization: unknown): ParsedArguments {
  const missing = [resourceName == null ? 'resourceName' : '', resourceType == null ? 'resourceType' : '', authorization == null ? 'authorization' : ''].filter(Boolean);
  if (missing.length > 0) {
    return { ok: false, decision: { allowed: false, reason: `Access denied: ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} required (got null)` } };
  }
  const type = parseResourceType(resourceType);
  const auth = type === RESOURCE_TYPES.SERVICE_ACCOUNT ? null : parseAuthorization(authorization);
  if (auth === 'CREATE') {
    throw new SpinnakerError('CREATE_NOT_SUPPORTED', 'hasPermission must not be called for CREATE: use canCreate(user, resourceType, resource) to check resource creation');
  }
  return { ok: true, name: String(resourceName), type, authorization: auth };
}

function contains(list: readonly AuthorizableView[] | null | undefined, name: string, authorization: Authorization | null): boolean {
  const lower = name.toLowerCase();
  return (list ?? []).some((v) => typeof v.name === 'string' && v.name.toLowerCase() === lower && authorization !== null && (v.authorizations ?? []).includes(authorization));
}

function known(list: readonly { name: string }[] | null | undefined, name: string): boolean {
  const lower = name.toLowerCase();
  return (list ?? []).some((v) => typeof v.name === 'string' && v.name.toLowerCase() === lower);
}

function extensionList(view: UserPermissionView, type: ResourceType): AuthorizableView[] | undefined {
  const map = view.extensionResources;
  if (!map) return undefined;
  for (const key of Object.keys(map)) if (key.toLowerCase() === type) return map[key] ?? [];
  return undefined;
}

/**
 * Step 7 for parsed arguments: `view` null denies; admins may do anything; then
 * accounts, applications (unknown ones and `allowAccessToUnknownApplications`,
 * `legacyFallback`), service accounts (membership only), build services,
 * extension types; roles and unknown types deny. `missing` explains a null view.
 */
export function permissionContains(view: UserPermissionView | null | undefined, query: { name: string; type: ResourceType; authorization: Authorization | null }, missing = 'no permissions were found'): PermissionDecision {
  const { name, type, authorization } = query;
  const denied = accessDeniedMessage(type, name, authorization);
  if (!view) return { allowed: false, reason: `${denied} (${missing})` };
  const user = `user ${view.name}`;
  if (view.admin) return { allowed: true, reason: `${user} is an admin: admins may do anything on any resource` };
  const grant = (what: string) => ({ allowed: true, reason: `${displayType(type)} ${name} grants ${what} to ${user}` });
  const fallback = { allowed: true, reason: `legacy fallback: permissions of ${user} could not be read, and ${displayType(type)} ${name} is allowed while they cannot (services.fiat.legacyFallback)` };
  switch (type) {
    case RESOURCE_TYPES.ACCOUNT:
      return contains(view.accounts, name, authorization) ? grant(String(authorization)) : { allowed: false, reason: denied };
    case RESOURCE_TYPES.APPLICATION: {
      if (!known(view.applications, name) && view.allowAccessToUnknownApplications) {
        return { allowed: true, reason: `application ${name} has no permissions for ${user} and allowAccessToUnknownApplications is true` };
      }
      if (view.legacyFallback) return fallback;
      return contains(view.applications, name, authorization) ? grant(String(authorization)) : { allowed: false, reason: denied };
    }
    case RESOURCE_TYPES.SERVICE_ACCOUNT:
      return known(view.serviceAccounts, name)
        ? { allowed: true, reason: `${user} may use service account ${name}: the user holds its memberOf roles` }
        : { allowed: false, reason: denied };
    case RESOURCE_TYPES.BUILD_SERVICE:
      if (view.legacyFallback) return fallback;
      return contains(view.buildServices, name, authorization) ? grant(String(authorization)) : { allowed: false, reason: denied };
    default: {
      const list = type === RESOURCE_TYPES.ROLE ? undefined : extensionList(view, type);
      if (list !== undefined) {
        if (view.legacyFallback) return fallback;
        return contains(list, name, authorization) ? grant(String(authorization)) : { allowed: false, reason: denied };
      }
      const why = type === RESOURCE_TYPES.ROLE ? 'only admins have permissions on roles' : `the permissions of ${user} hold no resources of type ${type}`;
      return { allowed: false, reason: `${denied} (${why})` };
    }
  }
}

/**
 * Applies Fiat's evaluator to one `UserPermission.View` (steps 2 to 7 of
 * `hasPermission`; flags such as `legacyFallback` and
 * `allowAccessToUnknownApplications` come from the view). Names compare
 * case-insensitively. Throws `SpinnakerError` for an unknown authorization, a
 * malformed type or CREATE, as Fiat throws.
 */
export function evaluateView(view: UserPermissionView | null | undefined, resourceName: string | null | undefined, resourceType: string | null | undefined, authorization: string | null | undefined): PermissionDecision {
  const parsed = parseArguments(resourceName, resourceType, authorization);
  if (!parsed.ok) return parsed.decision;
  return permissionContains(view, parsed, 'no UserPermission.View was given');
}
