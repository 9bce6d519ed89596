/**
 * Checks that a parsed body is an `admission.k8s.io/v1` AdmissionReview with a
 * usable `request`, field by field, and says exactly what is wrong and where.
 */
import { AdmissionError } from './errors.js';
import { isObject } from './read.js';
import { didYouMean, typeOf } from './suggest.js';
import type { AdmissionRequest } from './types.js';

export const API_VERSION = 'admission.k8s.io/v1';
const OPERATIONS = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'];

/**
 * Reads one of the fixed AdmissionReview field names. None of them is a
 * property of `Object.prototype`, so a plain read cannot reach an inherited
 * member; it is several times cheaper than a `hasOwnProperty` call on this
 * hot path.
 */
function field(request: Record<string, unknown>, key: string): unknown {
  return request[key];
}

function optionalString(request: Record<string, unknown>, key: string): void {
  const value = field(request, key);
  if (value !== undefined && value !== null && typeof value !== 'string') {
    throw AdmissionError.invalidReview(`request.${key} must be a string (got ${typeOf(value)})`, `/request/${key}`);
  }
}

function optionalObject(request: Record<string, unknown>, key: string): void {
  const value = field(request, key);
  if (value !== undefined && value !== null && !isObject(value)) {
    throw AdmissionError.invalidReview(`request.${key} must be an object or null (got ${typeOf(value)})`, `/request/${key}`);
  }
}

const PARTS = { kind: ['group', 'version', 'kind'], resource: ['group', 'version', 'resource'] } as const;
const OPTIONAL_STRINGS = ['subResource', 'requestSubResource', 'name', 'namespace'] as const;
const OPTIONAL_OBJECTS = ['object', 'oldObject', 'options'] as const;

function groupVersion(request: Record<string, unknown>, key: string, name: 'kind' | 'resource', required: boolean): void {
  const value = field(request, key);
  if (!required && (value === undefined || value === null)) return;
  const shape = `{group, version, ${name}}`;
  if (!isObject(value)) {
    throw AdmissionError.invalidReview(`request.${key} must be ${shape} (got ${typeOf(value)})`, `/request/${key}`);
  }
  const parts = PARTS[name];
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    const v = field(value, part);
    if (i === 0 && (v === undefined || v === null)) continue; // the core group is "" and may be omitted
    if (typeof v !== 'string' || (i > 0 && v === '')) {
      throw AdmissionError.invalidReview(`request.${key}.${part} must be a non-empty string (got ${typeOf(v)}); ${key} is ${shape}`, `/request/${key}/${part}`);
    }
  }
}

function userInfo(request: Record<string, unknown>): void {
  const value = field(request, 'userInfo');
  if (value === undefined || value === null) return;
  if (!isObject(value)) throw AdmissionError.invalidReview(`request.userInfo must be an object (got ${typeOf(value)})`, '/request/userInfo');
  for (const key of ['username', 'uid']) {
    const v = field(value, key);
    if (v !== undefined && v !== null && typeof v !== 'string') throw AdmissionError.invalidReview(`request.userInfo.${key} must be a string (got ${typeOf(v)})`, `/request/userInfo/${key}`);
  }
  const groups = field(value, 'groups');
  if (groups !== undefined && groups !== null && (!Array.isArray(groups) || groups.some((g) => typeof g !== 'string'))) {
    throw AdmissionError.invalidReview('request.userInfo.groups must be a list of strings', '/request/userInfo/groups');
  }
  const extra = field(value, 'extra');
  if (extra !== undefined && extra !== null) {
    const ok = isObject(extra) && Object.keys(extra).every((k) => Array.isArray(extra[k]) && (extra[k] as unknown[]).every((x) => typeof x === 'string'));
    if (!ok) throw AdmissionError.invalidReview('request.userInfo.extra must map keys to lists of strings', '/request/userInfo/extra');
  }
}

/**
 * Returns the `request` of an AdmissionReview v1, or throws {@link AdmissionError}
 * (`INVALID_REVIEW`, or `UNSUPPORTED_VERSION` for another apiVersion).
 */
export function requestOf(review: unknown): AdmissionRequest {
  if (!isObject(review)) {
    throw AdmissionError.invalidReview(`expected an AdmissionReview object (got ${typeOf(review)})`, '');
  }
  const apiVersion = field(review, 'apiVersion');
  const kind = field(review, 'kind');
  if (typeof apiVersion === 'string' && apiVersion.startsWith('admission.k8s.io/') && apiVersion !== API_VERSION) {
    throw new AdmissionError('UNSUPPORTED_VERSION', `apiVersion "${apiVersion}" is not supported; expected "${API_VERSION}" (set admissionReviewVersions: ["v1"] in the webhook configuration)`, { path: '/apiVersion' });
  }
  if (apiVersion !== API_VERSION || kind !== 'AdmissionReview') {
    const got = (v: unknown) => (typeof v === 'string' ? `"${v}"` : typeOf(v));
    const hint = kind !== 'AdmissionReview' && typeof kind === 'string' ? '; pass the AdmissionReview that wraps the object (admissionReviewFor builds one)' : '';
    throw AdmissionError.invalidReview(`expected apiVersion "${API_VERSION}" and kind "AdmissionReview" (got apiVersion ${got(apiVersion)}, kind ${got(kind)})${hint}`, apiVersion !== API_VERSION ? '/apiVersion' : '/kind');
  }
  const request = field(review, 'request');
  if (!isObject(request)) {
    throw AdmissionError.invalidReview(`request must be an object (got ${typeOf(request)}); a webhook receives AdmissionReviews with a request and answers with a response`, '/request');
  }
  const uid = field(request, 'uid');
  if (typeof uid !== 'string' || uid === '') {
    throw AdmissionError.invalidReview(`request.uid must be a non-empty string (got ${typeOf(uid)}); the response must echo it`, '/request/uid');
  }
  groupVersion(request, 'kind', 'kind', true);
  groupVersion(request, 'resource', 'resource', true);
  groupVersion(request, 'requestKind', 'kind', false);
  groupVersion(request, 'requestResource', 'resource', false);
  const operation = field(request, 'operation');
  if (typeof operation !== 'string' || !OPERATIONS.includes(operation)) {
    const hint = typeof operation === 'string' ? didYouMean(operation, OPERATIONS) : '';
    throw AdmissionError.invalidReview(`request.operation must be one of ${OPERATIONS.join(', ')} (got ${typeof operation === 'string' ? `"${operation}"` : typeOf(operation)})${hint}`, '/request/operation');
  }
  for (let i = 0; i < OPTIONAL_STRINGS.length; i++) optionalString(request, OPTIONAL_STRINGS[i]!);
  for (let i = 0; i < OPTIONAL_OBJECTS.length; i++) optionalObject(request, OPTIONAL_OBJECTS[i]!);
  const dryRun = field(request, 'dryRun');
  if (dryRun !== undefined && dryRun !== null && typeof dryRun !== 'boolean') {
    throw AdmissionError.invalidReview(`request.dryRun must be a boolean (got ${typeOf(dryRun)})`, '/request/dryRun');
  }
  userInfo(request);
  return request as unknown as AdmissionRequest;
}
