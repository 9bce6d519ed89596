/**
 * The Fetch-API handler: `(Request) => Promise<Response>`, usable from
 * node:http (through a small adapter), Hono, Bun and Deno. Reads at most
 * `maxBodyBytes`, answers malformed bodies with a Kubernetes `Status` and an
 * HTTP error code, and never throws.
 */
import { AdmissionError, type AdmissionErrorCode } from './errors.js';
import type { AdmissionReviewResponse } from './types.js';

/** HTTP status per error code. The apiserver treats any non-200 answer as a failed call (its failurePolicy applies). */
export const HTTP_STATUS: Readonly<Record<AdmissionErrorCode, number>> = Object.freeze({
  NOT_JSON: 400,
  INVALID_REVIEW: 400,
  UNSUPPORTED_VERSION: 400,
  TOO_LARGE: 400,
  METHOD_NOT_ALLOWED: 405,
  INVALID_OPTIONS: 500,
  LOOKUP_FAILED: 500,
});

const REASONS: Record<number, string> = { 400: 'BadRequest', 405: 'MethodNotAllowed', 500: 'InternalError' };

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
}

/** A `metav1.Status` body, as Kubernetes API servers answer errors. */
function statusBody(status: number, code: string, message: string, path: string): unknown {
  return {
    apiVersion: 'v1',
    kind: 'Status',
    status: 'Failure',
    message,
    reason: REASONS[status] ?? 'InternalError',
    code: status,
    details: { causes: [{ reason: code, message, ...(path ? { field: path } : {}) }] },
  };
}

async function readBody(request: Request, maxBytes: number): Promise<string> {
  const declared = Number(request.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    throw new AdmissionError('TOO_LARGE', `the body is ${declared} bytes; the limit is ${maxBytes} bytes (maxBodyBytes)`);
  }
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw new AdmissionError('TOO_LARGE', `the body is larger than the limit of ${maxBytes} bytes (maxBodyBytes)`);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new AdmissionError('NOT_JSON', 'the body is not valid UTF-8 text; expected a JSON AdmissionReview');
  }
}

function parse(text: string): unknown {
  if (text.trim() === '') throw new AdmissionError('NOT_JSON', 'the body is empty; expected a JSON AdmissionReview');
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new AdmissionError('NOT_JSON', `the body is not JSON (${(error as Error).message.slice(0, 200)}); expected an AdmissionReview`);
  }
}

/** Builds the handler around a `review` function. */
export function createHandler(
  review: (body: unknown) => AdmissionReviewResponse | Promise<AdmissionReviewResponse>,
  maxBodyBytes: number,
): (request: Request) => Promise<Response> {
  return async (request) => {
    try {
      if (request.method !== 'POST') {
        throw new AdmissionError('METHOD_NOT_ALLOWED', `admission webhooks are called with POST (got ${request.method})`);
      }
      const body = parse(await readBody(request, maxBodyBytes));
      return json(200, await review(body));
    } catch (error) {
      if (error instanceof AdmissionError) {
        const status = HTTP_STATUS[error.code];
        return json(status, statusBody(status, error.code, error.message, error.path), status === 405 ? { allow: 'POST' } : {});
      }
      return json(500, statusBody(500, 'INTERNAL', `internal error: ${(error as Error)?.message ?? String(error)}`, ''));
    }
  };
}
