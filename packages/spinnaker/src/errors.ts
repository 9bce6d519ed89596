import { VerdictError } from '@verdict/core';

/** Codes of {@link SpinnakerError}. */
export type SpinnakerErrorCode =
  /** An authorization is not one of READ, WRITE, EXECUTE, CREATE (Fiat: IllegalArgumentException). */
  | 'INVALID_AUTHORIZATION'
  /** A resource type is missing or malformed (`""`, `"account:"`, `"account:s"`). */
  | 'INVALID_RESOURCE_TYPE'
  /** `hasPermission` was asked for CREATE; creation is checked with `canCreate`. */
  | 'CREATE_NOT_SUPPORTED'
  /** Definitions, a source or evaluator configuration are invalid. */
  | 'INVALID_CONFIG'
  /** A `UserPermission.View` (or stored resource JSON) does not have Fiat's shape. */
  | 'INVALID_VIEW'
  /** The user is not known to the permission source (Fiat answers 404). */
  | 'USER_NOT_FOUND'
  /** The permission source failed (Redis down or slow, a policy errored, a custom source threw). */
  | 'SOURCE_FAILURE';

/** The error class of `@verdict/spinnaker`: a `VerdictError` (from `@verdict/core`) with a {@link SpinnakerErrorCode}. */
export class SpinnakerError extends VerdictError<SpinnakerErrorCode> {
  override readonly name = 'SpinnakerError';

  static invalidAuthorization(value: unknown, path = ''): SpinnakerError {
    return spinnakerError(
      'INVALID_AUTHORIZATION',
      `unknown authorization ${JSON.stringify(String(value))}${path ? ` at ${path}` : ''}: expected one of READ, WRITE, EXECUTE, CREATE (any case)`,
      path,
    );
  }

  static invalidConfig(message: string, path = ''): SpinnakerError {
    return spinnakerError('INVALID_CONFIG', message, path);
  }

  static invalidView(message: string, path = ''): SpinnakerError {
    return spinnakerError('INVALID_VIEW', `${message}${path ? ` (at ${path})` : ''}`, path);
  }
}

/** Outside the class body, so the bundle keeps the class's name (see core's `VerdictError` factories). */
function spinnakerError(code: SpinnakerErrorCode, message: string, path: string): SpinnakerError {
  return new SpinnakerError(code, message, { path });
}

/** The message of anything thrown (for reasons). */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : typeof error === 'string' ? error : 'unknown error';
}
