/**
 * Fiat's vocabulary: the Authorization enum and ResourceType, parsed exactly as
 * `Authorization.parse` and `ResourceType.parse` do.
 */
import { SpinnakerError } from './errors.js';

/** Fiat's authorizations, in EnumSet order. */
export const AUTHORIZATIONS = ['READ', 'WRITE', 'EXECUTE', 'CREATE'] as const;

/** One of Fiat's four authorizations. */
export type Authorization = (typeof AUTHORIZATIONS)[number];

/** Fiat's `Authorization.ALL`. */
export const ALL_AUTHORIZATIONS: readonly Authorization[] = AUTHORIZATIONS;

/** The built-in resource types (names as Fiat's `ResourceType` holds them); any other name is an extension type. */
export const RESOURCE_TYPES = {
  ACCOUNT: 'account',
  APPLICATION: 'application',
  SERVICE_ACCOUNT: 'service_account',
  ROLE: 'role',
  BUILD_SERVICE: 'build_service',
} as const;

/** A resource type name, lowercased (`application`, `build_service`, or an extension type such as `my_ext`). */
export type ResourceType = string;

/** The id Fiat stores unrestricted resources under; every user's permissions are merged with it. */
export const UNRESTRICTED_USER = '__unrestricted_user__';

const BUILT_IN = new Set<string>(Object.values(RESOURCE_TYPES));

/** Whether `type` (a parsed resource type) is one of Fiat's built-in types. */
export function isBuiltInResourceType(type: string): boolean {
  return BUILT_IN.has(type);
}

/** Whether `value` is one of the four authorization names (exact case). */
export function isAuthorization(value: unknown): value is Authorization {
  return typeof value === 'string' && (AUTHORIZATIONS as readonly string[]).includes(value);
}

/**
 * Fiat's `Authorization.parse`: `null`/`undefined` give `null`, an authorization is
 * returned as is, anything else is upper-cased and must name one of the four
 * (`"read"` → READ). Throws `SpinnakerError` `INVALID_AUTHORIZATION` otherwise.
 */
export function parseAuthorization(value: unknown): Authorization | null {
  if (value === null || value === undefined) return null;
  const upper = String(value).toUpperCase();
  if (isAuthorization(upper)) return upper;
  throw SpinnakerError.invalidAuthorization(value);
}

/**
 * Fiat's `ResourceType.parse`: the part after the last `:`, with one trailing
 * lowercase `s` removed (case-sensitive, so `"ACCOUNTS"` is the extension type
 * `accounts`), lowercased. `"aCCoUnTs"` → `account`, `"abc:applications"` → `application`.
 * Throws `INVALID_RESOURCE_TYPE` for null and for keys that leave nothing (`""`, `"account:"`, `"account:s"`).
 */
export function parseResourceType(value: string | null | undefined): ResourceType {
  if (value === null || value === undefined) {
    throw new SpinnakerError('INVALID_RESOURCE_TYPE', 'resource type is required (got null)');
  }
  let name = String(value);
  const colon = name.lastIndexOf(':');
  if (colon >= 0) name = name.slice(colon + 1);
  if (name.endsWith('s')) name = name.slice(0, -1);
  if (name === '') {
    throw new SpinnakerError('INVALID_RESOURCE_TYPE', `malformed resource key ${JSON.stringify(String(value))}: expected a resource type such as "application" or "spinnaker:fiat:accounts"`);
  }
  return name.toLowerCase();
}

/** Fiat's `ResourceType.keySuffix()`: the plural used in Redis keys (`applications`, `build_services`). */
export function keySuffix(type: ResourceType): string {
  return `${type}s`;
}

/** How Fiat names a type in messages: `_` → space, lowercased (`service account`). */
export function displayType(type: ResourceType): string {
  return type.replace(/_/g, ' ').toLowerCase();
}

/** Fiat's 403 body: `Access denied to <type> <name>` plus ` - required authorization: <AUTH>` when there is one. */
export function accessDeniedMessage(type: ResourceType, name: string, authorization: Authorization | null): string {
  return `Access denied to ${displayType(type)} ${name}${authorization ? ` - required authorization: ${authorization}` : ''}`;
}
