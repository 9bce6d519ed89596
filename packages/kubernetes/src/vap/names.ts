/**
 * Name checks of the apiserver's validation (apimachinery
 * `util/validation`), worded for load problems. Each returns why the value is
 * invalid, or `undefined` when it is valid.
 */
import { labelKeyError } from '@verdict/core';

const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const CEL_IDENTIFIER = /^[_a-zA-Z][_a-zA-Z0-9]*$/;
/** CEL's reserved words and literals, which cannot name a variable. */
const CEL_RESERVED = new Set([
  'true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if',
  'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while',
]);

/** `metadata.name` of most objects: a lowercase RFC 1123 subdomain of at most 253 characters. */
export function dnsSubdomainError(value: string): string | undefined {
  if (value.length === 0) return 'must not be empty';
  if (value.length > 253) return `must be at most 253 characters (got ${value.length})`;
  if (!DNS1123_SUBDOMAIN.test(value)) return `"${value}" must be a lowercase RFC 1123 subdomain: lowercase letters, digits, "-" and ".", starting and ending with a letter or digit (e.g. "example.com")`;
  return undefined;
}

/** An RFC 1035 label (API versions): lowercase letters, digits and "-", starting with a letter, at most 63 characters. */
export function dnsLabelError(value: string): string | undefined {
  if (value.length > 63) return `"${value}" must be at most 63 characters`;
  if (!DNS1035_LABEL.test(value)) return `"${value}" must be an RFC 1035 label: lowercase letters, digits and "-", starting with a letter and ending with a letter or digit (e.g. "v1")`;
  return undefined;
}

/** A qualified name (`[prefix/]name`), as label keys, match condition names and audit annotation keys are. */
export function qualifiedNameError(value: string): string | undefined {
  return labelKeyError(value)?.replace(/label key/g, 'name');
}

/** A CEL identifier that is not a reserved word (variable names). */
export function celIdentifierError(value: string): string | undefined {
  if (!CEL_IDENTIFIER.test(value)) return `"${value}" is not a valid CEL identifier: letters, digits and "_", not starting with a digit`;
  if (CEL_RESERVED.has(value)) return `"${value}" is a reserved word in CEL`;
  return undefined;
}

/** A name usable as a path segment (`paramRef.name`, `resourceNames`): not ".", "..", and without "/" or "%". */
export function pathSegmentError(value: string): string | undefined {
  if (value === '.' || value === '..') return `"${value}" may not be used as a name`;
  if (/[/%]/.test(value)) return `"${value}" may not contain "/" or "%"`;
  return undefined;
}
