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

/*
 * Every field below is read with a literal name (`request['uid']`): V8 turns
 * that into a cached named load, several times cheaper than a read by a
 * variable key or a `hasOwnProperty` call on this hot path. None of these
 * names is a property of `Object.prototype`, so a plain read cannot reach an
 * inherited member.
 */

function optionalString(value: unknown, key: string): void {
  if (value !== undefined && value !== null && typeof value !== 'string') {
    throw AdmissionError.invalidReview(`request.${key} must be a string (got ${typeOf(value)})`, `/request/${key}`);
  }
}

function optionalObject(value: unknown, key: string): void {
  if (value !== undefined && value !== null && !isObject(value)) {
    throw AdmissionError.invalidReview(`request.${key} must be an object or null (got ${typeOf(value)})`, `/request/${key}`);
  }
}

/** `{group, version, kind}` or `{group, version, resource}` at `request.<key>`; the core group is "" and may be omitted. */
function groupVersion(value: unknown, key: string, name: 'kind' | 'resource', required: boolean): void {
  if (!required && (value === undefined || value === null)) return;
  if (!isObject(value)) {
    const shape = `{group, version, ${name}}`;
    throw AdmissionError.invalidReview(`request.${key} must be ${shape} (got ${typeOf(value)})`, `/request/${key}`);
  }
  const group = value['group'];
  const version = value['version'];
  const last = name === 'kind' ? value['kind'] : value['resource'];
  let part: string | undefined;
  if (group !== undefined && group !== null && typeof group !== 'string') part = 'group';
  else if (typeof version !== 'string' || version === '') part = 'version';
  else if (typeof last !== 'string' || last === '') part = name;
  if (part !== undefined) {
    const shape = `{group, version, ${name}}`;
    const got = part === 'group' ? group : part === 'version' ? version : last;
    throw AdmissionError.invalidReview(`request.${key}.${part} must be a non-empty string (got ${typeOf(got)}); ${key} is ${shape}`, `/request/${key}/${part}`);
  }
}

/** A plain loop (no callback to allocate on every review); holes pass, as they do with `some`. */
function isStringList(value: unknown): boolean {
  if (!Array.isArray(value)) return false;
  for (let i = 0; i < value.length; i++) {
    const item: unknown = value[i];
    if (typeof item !== 'string' && (item !== undefined || i in value)) return false;
  }
  return true;
}

function userInfo(value: unknown): void {
  if (value === undefined || value === null) return;
  if (!isObject(value)) throw AdmissionError.invalidReview(`request.userInfo must be an object (got ${typeOf(value)})`, '/request/userInfo');
  const username = value['username'];
  if (username !== undefined && username !== null && typeof username !== 'string') throw AdmissionError.invalidReview(`request.userInfo.username must be a string (got ${typeOf(username)})`, '/request/userInfo/username');
  const uid = value['uid'];
  if (uid !== undefined && uid !== null && typeof uid !== 'string') throw AdmissionError.invalidReview(`request.userInfo.uid must be a string (got ${typeOf(uid)})`, '/request/userInfo/uid');
  const groups = value['groups'];
  if (groups !== undefined && groups !== null && !isStringList(groups)) {
    throw AdmissionError.invalidReview('request.userInfo.groups must be a list of strings', '/request/userInfo/groups');
  }
  const extra = value['extra'];
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
  const apiVersion = review['apiVersion'];
  const kind = review['kind'];
  if (typeof apiVersion === 'string' && apiVersion.startsWith('admission.k8s.io/') && apiVersion !== API_VERSION) {
    throw new AdmissionError('UNSUPPORTED_VERSION', `apiVersion "${apiVersion}" is not supported; expected "${API_VERSION}" (set admissionReviewVersions: ["v1"] in the webhook configuration)`, { path: '/apiVersion' });
  }
  if (apiVersion !== API_VERSION || kind !== 'AdmissionReview') {
    const got = (v: unknown) => (typeof v === 'string' ? `"${v}"` : typeOf(v));
    const hint = kind !== 'AdmissionReview' && typeof kind === 'string' ? '; pass the AdmissionReview that wraps the object (admissionReviewFor builds one)' : '';
    throw AdmissionError.invalidReview(`expected apiVersion "${API_VERSION}" and kind "AdmissionReview" (got apiVersion ${got(apiVersion)}, kind ${got(kind)})${hint}`, apiVersion !== API_VERSION ? '/apiVersion' : '/kind');
  }
  const request = review['request'];
  if (!isObject(request)) {
    throw AdmissionError.invalidReview(`request must be an object (got ${typeOf(request)}); a webhook receives AdmissionReviews with a request and answers with a response`, '/request');
  }
  const uid = request['uid'];
  if (typeof uid !== 'string' || uid === '') {
    throw AdmissionError.invalidReview(`request.uid must be a non-empty string (got ${typeOf(uid)}); the response must echo it`, '/request/uid');
  }
  groupVersion(request['kind'], 'kind', 'kind', true);
  groupVersion(request['resource'], 'resource', 'resource', true);
  groupVersion(request['requestKind'], 'requestKind', 'kind', false);
  groupVersion(request['requestResource'], 'requestResource', 'resource', false);
  const operation = request['operation'];
  if (typeof operation !== 'string' || !OPERATIONS.includes(operation)) {
    const hint = typeof operation === 'string' ? didYouMean(operation, OPERATIONS) : '';
    throw AdmissionError.invalidReview(`request.operation must be one of ${OPERATIONS.join(', ')} (got ${typeof operation === 'string' ? `"${operation}"` : typeOf(operation)})${hint}`, '/request/operation');
  }
  optionalString(request['subResource'], 'subResource');
  optionalString(request['requestSubResource'], 'requestSubResource');
  optionalString(request['name'], 'name');
  optionalString(request['namespace'], 'namespace');
  optionalObject(request['object'], 'object');
  optionalObject(request['oldObject'], 'oldObject');
  optionalObject(request['options'], 'options');
  const dryRun = request['dryRun'];
  if (dryRun !== undefined && dryRun !== null && typeof dryRun !== 'boolean') {
    throw AdmissionError.invalidReview(`request.dryRun must be a boolean (got ${typeOf(dryRun)})`, '/request/dryRun');
  }
  userInfo(request['userInfo']);
  return request as unknown as AdmissionRequest;
}
