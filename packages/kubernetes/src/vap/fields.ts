/** Typed reads of document fields that report what is wrong and where. */
import { didYouMean } from '@verdict/core';
import { isObject } from '../read.js';
import { typeOf } from '../suggest.js';

/** Reports a load problem at a JSON pointer of the document being read. */
export type Report = (path: string, message: string) => void;

type Fields = Readonly<Record<string, unknown>>;

/** A report that also counts: a reader returns its result only when `count()` is still 0. */
export function counting(report: Report): Report & { count(): number } {
  let problems = 0;
  const counted = ((path: string, message: string) => {
    problems++;
    report(path, message);
  }) as Report & { count(): number };
  counted.count = () => problems;
  return counted;
}

/** Reads the fields of the object at `at` (a JSON pointer), reporting through `report`. */
export class FieldReader {
  constructor(readonly value: Fields, readonly at: string, private readonly report: Report) {}

  /** Reports every key that is not in `known`. */
  known(known: readonly string[], what: string): this {
    for (const key of Object.keys(this.value)) {
      if (!known.includes(key)) this.report(`${this.at}/${key}`, `unknown field "${key}" in ${what}${didYouMean(key, known)} (known: ${known.join(', ')})`);
    }
    return this;
  }

  /** An optional string; `undefined` when absent (or after reporting a wrong type). */
  string(key: string): string | undefined {
    const v = this.value[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'string') {
      this.report(`${this.at}/${key}`, `${key} must be a string (got ${typeOf(v)})`);
      return undefined;
    }
    return v;
  }

  /** A required string; reports when it is missing, blank or not a string. */
  required(key: string): string | undefined {
    const v = this.string(key);
    if (v === undefined) {
      if (this.value[key] === undefined || this.value[key] === null) this.report(`${this.at}/${key}`, `missing required field "${key}"`);
      return undefined;
    }
    if (v.trim() === '') {
      this.report(`${this.at}/${key}`, `${key} must not be empty`);
      return undefined;
    }
    return v;
  }

  /** A list of objects (absent: `[]`); reports items that are not objects. */
  list(key: string): Fields[] {
    const v = this.value[key];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) {
      this.report(`${this.at}/${key}`, `${key} must be a list (got ${typeOf(v)})`);
      return [];
    }
    const out: Fields[] = [];
    v.forEach((item, i) => {
      if (isObject(item)) out.push(item);
      else this.report(`${this.at}/${key}/${i}`, `each entry of ${key} must be an object (got ${typeOf(item)})`);
    });
    return out;
  }

  /** An optional object; `undefined` when absent (or after reporting a wrong type). */
  object(key: string): Fields | undefined {
    const v = this.value[key];
    if (v === undefined || v === null) return undefined;
    if (!isObject(v)) {
      this.report(`${this.at}/${key}`, `${key} must be an object (got ${typeOf(v)})`);
      return undefined;
    }
    return v;
  }

  /** An optional value out of `allowed`, with a did-you-mean hint. */
  oneOf<T extends string>(key: string, allowed: readonly T[]): T | undefined {
    const v = this.value[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'string' || !(allowed as readonly string[]).includes(v)) {
      const got = typeof v === 'string' ? `"${v}"` : typeOf(v);
      this.report(`${this.at}/${key}`, `${key} must be one of ${allowed.join(', ')} (got ${got})${typeof v === 'string' ? didYouMean(v, allowed) : ''}`);
      return undefined;
    }
    return v as T;
  }
}
