import { SpinnakerError } from './errors.js';
import { RESOURCE_TYPES, parseAuthorization, parseResourceType, type ResourceType } from './model.js';

/** "May `user` do `authorization` on `resourceName` of `resourceType`?", normalised. */
export interface FiatQuery {
  readonly user: string;
  readonly resourceName: string;
  /** Parsed like Fiat's `ResourceType.parse` (`applications` → `application`). */
  readonly resourceType: ResourceType;
  /** Upper-cased (`read` → READ); kept as given for service accounts, whose authorization Fiat never reads. */
  readonly authorization: string;
}

/**
 * Builds and checks a {@link FiatQuery}: every field must be a non-empty string,
 * the type must parse and, except for service accounts, the authorization must
 * be READ, WRITE or EXECUTE (CREATE is checked with `canCreate`). Throws
 * `SpinnakerError` saying which field is wrong.
 */
export function fiatQuery(input: { user: string; resourceType: string; resourceName: string; authorization: string }): FiatQuery {
  if (input === null || typeof input !== 'object') throw SpinnakerError.invalidConfig('a Fiat query is an object {user, resourceType, resourceName, authorization}');
  for (const key of ['user', 'resourceType', 'resourceName', 'authorization'] as const) {
    if (typeof input[key] !== 'string' || input[key] === '') throw SpinnakerError.invalidConfig(`query.${key} must be a non-empty string (got ${JSON.stringify(input[key])})`, `/${key}`);
  }
  const resourceType = parseResourceType(input.resourceType);
  let authorization = input.authorization;
  if (resourceType !== RESOURCE_TYPES.SERVICE_ACCOUNT) {
    const parsed = parseAuthorization(input.authorization);
    if (parsed === 'CREATE') throw new SpinnakerError('CREATE_NOT_SUPPORTED', 'a Fiat query cannot ask for CREATE: use canCreate(user, resourceType, resource)', { path: '/authorization' });
    authorization = parsed as string;
  }
  return Object.freeze({ user: input.user, resourceName: input.resourceName, resourceType, authorization });
}
