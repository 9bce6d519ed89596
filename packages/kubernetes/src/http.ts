/**
 * The wire rules both servers share (the Fetch handler here, the Node
 * listener in listener.ts): POST only, at most `maxBodyBytes`, UTF-8 JSON,
 * and errors answered with a Kubernetes `Status` and an HTTP error code.
 * Nothing here throws past the handler.
 */
import { AdmissionError, type AdmissionErrorCode } from './errors.js';
import { API_VERSION } from './review.js';
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

/** The `review` function both servers call. */
export type Review = (body: unknown) => AdmissionReviewResponse | Promise<AdmissionReviewResponse>;

/** One HTTP answer: status, JSON text and the headers beyond `content-type`. */
export interface Answer {
  status: number;
  body: string;
  headers?: Record<string, string>;
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

/** The answer for anything thrown while serving a request. */
export function errorAnswer(error: unknown): Answer {
  if (error instanceof AdmissionError) {
    const status = HTTP_STATUS[error.code];
    const answer: Answer = { status, body: JSON.stringify(statusBody(status, error.code, error.message, error.path)) };
    if (status === 405) answer.headers = { allow: 'POST' };
    return answer;
  }
  return { status: 500, body: JSON.stringify(statusBody(500, 'INTERNAL', `internal error: ${(error as Error)?.message ?? String(error)}`, '')) };
}

export function notPost(method: string | undefined): AdmissionError {
  return new AdmissionError('METHOD_NOT_ALLOWED', `admission webhooks are called with POST (got ${method ?? 'no method'})`);
}

/** `TOO_LARGE` for a declared Content-Length over the limit (or `undefined`), so nothing is read. */
export function declaredTooLarge(contentLength: string | null | undefined, maxBytes: number): AdmissionError | undefined {
  const declared = Number(contentLength);
  if (contentLength === null || contentLength === undefined || !Number.isFinite(declared) || declared <= maxBytes) return undefined;
  return new AdmissionError('TOO_LARGE', `the body is ${declared} bytes; the limit is ${maxBytes} bytes (maxBodyBytes)`);
}

export function readTooLarge(maxBytes: number): AdmissionError {
  return new AdmissionError('TOO_LARGE', `the body is larger than the limit of ${maxBytes} bytes (maxBodyBytes)`);
}

const ALLOWED_PREFIX = `{"apiVersion":"${API_VERSION}","kind":"AdmissionReview","response":{"uid":`;

/** Whether `response` holds exactly `uid` (a string) and `allowed: true`, in that order. */
function allowedOnly(response: unknown): response is { uid: string; allowed: true } {
  if (typeof response !== 'object' || response === null) return false;
  const r = response as Record<string, unknown>;
  if (typeof r['uid'] !== 'string' || r['allowed'] !== true || Object.getPrototypeOf(r) !== Object.prototype) return false;
  let n = 0;
  for (const key in r) {
    if ((n === 0 && key !== 'uid') || (n === 1 && key !== 'allowed') || !Object.hasOwn(r, key)) return false;
    n++;
  }
  return n === 2;
}

/**
 * The JSON text of an AdmissionReview answer, the same text `JSON.stringify` gives. The usual answer
 * (allowed, nothing to say) is written directly: `JSON.stringify` of that small object costs several times
 * more on Node 20 than the request's own parsing does per byte.
 */
export function reviewJson(answer: AdmissionReviewResponse): string {
  const r = answer as unknown as Record<string, unknown>;
  let n = 0;
  for (const key in r) {
    // apiVersion, kind, response: nothing else, in that order (as toAdmissionResponse builds it).
    if (key !== (n === 0 ? 'apiVersion' : n === 1 ? 'kind' : 'response') || !Object.hasOwn(r, key)) return JSON.stringify(answer);
    n++;
  }
  if (n !== 3 || r['apiVersion'] !== API_VERSION || r['kind'] !== 'AdmissionReview' || !allowedOnly(r['response'])) return JSON.stringify(answer);
  return `${ALLOWED_PREFIX}${JSON.stringify((r['response'] as { uid: string }).uid)},"allowed":true}}`;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** One UTF-8 decode (refusing invalid bytes) and one `JSON.parse`. */
export function parseBody(bytes: Uint8Array): unknown {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new AdmissionError('NOT_JSON', 'the body is not valid UTF-8 text; expected a JSON AdmissionReview');
  }
  return parseText(text);
}

export function parseText(text: string): unknown {
  if (text.trim() === '') throw new AdmissionError('NOT_JSON', 'the body is empty; expected a JSON AdmissionReview');
  // Only a body of more than twice the limit can nest that deep: smaller ones are not scanned.
  if (text.length > 2 * MAX_BODY_NESTING && nestedTooDeep(text)) {
    throw AdmissionError.invalidReview(`the body nests objects and lists more than ${MAX_BODY_NESTING} levels deep: its object more than ${MAX_NESTING} levels deep (the API server refuses such an object: k8s.io/apimachinery/pkg/util/json)`, '');
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new AdmissionError('NOT_JSON', `the body is not JSON (${(error as Error).message.slice(0, 200)}); expected an AdmissionReview`);
  }
}

/** The deepest nesting of objects and lists the API server decodes (k8s.io/apimachinery/pkg/util/json, maxDepth). */
export const MAX_NESTING = 10_000;

/** The body's limit: an object the API server accepted, inside the AdmissionReview and its `request` (two levels). */
const MAX_BODY_NESTING = MAX_NESTING + 2;

/** Whether an AdmissionReview's JSON text nests objects and lists more than its object may, {@link MAX_NESTING}, plus its envelope (one pass, strings skipped). */
function nestedTooDeep(text: string): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      // A string: skip to its closing quote (a backslash escapes the next character).
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 92) i++;
        else if (d === 34) break;
      }
    } else if (c === 123 || c === 91) {
      if (++depth > MAX_BODY_NESTING) return true;
    } else if (c === 125 || c === 93) depth--;
  }
  return false;
}

/** Chunks → one contiguous array (no copy for a single chunk). */
export function concat(chunks: readonly Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

async function readBody(request: Request, maxBytes: number): Promise<Uint8Array> {
  const tooLarge = declaredTooLarge(request.headers.get('content-length'), maxBytes);
  if (tooLarge) throw tooLarge;
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw readTooLarge(maxBytes);
    }
    chunks.push(value);
  }
  return concat(chunks, size);
}

function toResponse(answer: Answer): Response {
  return new Response(answer.body, { status: answer.status, headers: { 'content-type': 'application/json', ...answer.headers } });
}

/** Builds the Fetch-API handler `(Request) => Promise<Response>` around a `review` function. */
export function createHandler(review: Review, maxBodyBytes: number): (request: Request) => Promise<Response> {
  return async (request) => {
    try {
      if (request.method !== 'POST') throw notPost(request.method);
      const body = parseBody(await readBody(request, maxBodyBytes));
      return toResponse({ status: 200, body: reviewJson(await review(body)) });
    } catch (error) {
      return toResponse(errorAnswer(error));
    }
  };
}
