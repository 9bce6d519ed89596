import { VerdictError } from '@verdict/core';

/** Codes of {@link AdmissionError}. The HTTP status for each is in the handler (`http.ts`). */
export type AdmissionErrorCode =
  /** The body is not JSON (or not UTF-8). */
  | 'NOT_JSON'
  /** The body is JSON but not an AdmissionReview with a valid `request`. */
  | 'INVALID_REVIEW'
  /** The AdmissionReview is not `admission.k8s.io/v1` (e.g. `v1beta1`). */
  | 'UNSUPPORTED_VERSION'
  /** The body is larger than `maxBodyBytes`. */
  | 'TOO_LARGE'
  /** The HTTP method is not POST. */
  | 'METHOD_NOT_ALLOWED'
  /** `createAdmissionWebhook` was given invalid options. */
  | 'INVALID_OPTIONS'
  /** The namespace-label lookup threw, returned something other than labels, or timed out. */
  | 'LOOKUP_FAILED';

/** Thrown for a request verdict cannot review and for invalid webhook options. */
export class AdmissionError extends VerdictError<AdmissionErrorCode> {
  override readonly name = 'AdmissionError';

  static invalidReview(message: string, path: string): AdmissionError {
    return invalidReview(message, path);
  }
}

/** Outside the class body, so the bundle keeps the class's name (see core's `VerdictError` factories). */
function invalidReview(message: string, path: string): AdmissionError {
  return new AdmissionError('INVALID_REVIEW', message, { path });
}
