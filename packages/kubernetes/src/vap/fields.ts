/** Typed reads of document fields that report what is wrong and where. */
import { didYouMean } from '@verdict/core';
import { isObject } from '../read.js';
import { typeOf } from '../suggest.js';

/** Reports a load problem at a JSON pointer of the document being read. */
export type Report = (path: string, message: string) => void;

/** Reports every key of `value` that is not in `known`. */
export function unknownKeys(value: Readonly<Record<string, unknown>>, known: readonly string[], at: string, report: Report, what: string): void {
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) report(`${at}/${key}`, `unknown field "${key}" in ${what}${didYouMean(key, known)} (known: ${known.join(', ')})`);
  }
}

/** An optional string field; `undefined` when absent (or after reporting a wrong type). */
export function optionalString(value: Readonly<Record<string, unknown>>, key: string, at: string, report: Report): string | undefined {
  const v = value[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') {
    report(`${at}/${key}`, `${key} must be a string (got ${typeOf(v)})`);
    return undefined;
  }
  return v;
}

/** A required string field; reports when it is missing, blank or not a string. */
export function requiredString(value: Readonly<Record<string, unknown>>, key: string, at: string, report: Report): string | undefined {
  const v = optionalString(value, key, at, report);
  if (v === undefined) {
    if (value[key] === undefined || value[key] === null) report(`${at}/${key}`, `missing required field "${key}"`);
    return undefined;
  }
  if (v.trim() === '') {
    report(`${at}/${key}`, `${key} must not be empty`);
    return undefined;
  }
  return v;
}

/** A list of objects (absent: `[]`); reports items that are not objects. */
export function objectList(value: Readonly<Record<string, unknown>>, key: string, at: string, report: Report): Array<Readonly<Record<string, unknown>>> {
  const v = value[key];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) {
    report(`${at}/${key}`, `${key} must be a list (got ${typeOf(v)})`);
    return [];
  }
  const out: Array<Readonly<Record<string, unknown>>> = [];
  v.forEach((item, i) => {
    if (isObject(item)) out.push(item);
    else report(`${at}/${key}/${i}`, `each entry of ${key} must be an object (got ${typeOf(item)})`);
  });
  return out;
}

/** An optional object field; `undefined` when absent (or after reporting a wrong type). */
export function optionalObject(value: Readonly<Record<string, unknown>>, key: string, at: string, report: Report): Readonly<Record<string, unknown>> | undefined {
  const v = value[key];
  if (v === undefined || v === null) return undefined;
  if (!isObject(v)) {
    report(`${at}/${key}`, `${key} must be an object (got ${typeOf(v)})`);
    return undefined;
  }
  return v;
}

/** An optional enum field, with a did-you-mean hint. */
export function optionalEnum<T extends string>(value: Readonly<Record<string, unknown>>, key: string, allowed: readonly T[], at: string, report: Report): T | undefined {
  const v = value[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string' || !(allowed as readonly string[]).includes(v)) {
    const got = typeof v === 'string' ? `"${v}"` : typeOf(v);
    report(`${at}/${key}`, `${key} must be one of ${allowed.join(', ')} (got ${got})${typeof v === 'string' ? didYouMean(v, allowed) : ''}`);
    return undefined;
  }
  return v as T;
}
