/**
 * The Kubernetes format library (k8s.io/apiserver/pkg/cel/library/format.go): `format.dns1123Label()`,
 * `format.named("uuid")`, and `<format>.validate(s)` giving `optional.none()` for a valid string or the
 * list of apimachinery's error messages. Patterns run on core's linear-time regex engine.
 */
import { Optional, type Environment } from '@marcbachmann/cel-js';
import { compileRegex } from '../regex.js';
import { spend } from '../runtime.js';
import { regexUnits, stringSize } from './costed.js';
import type { CelLibrary } from './index.js';
import { parseURL } from './url.js';

export class Format {
  constructor(readonly name: string, readonly check: (s: string) => string[]) {}
}

function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  // apimachinery's RegexError joins the examples with " or " after their ", ": "'a',  or 'b', ".
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${fmt}')`;
}

const maxLen = (n: number) => `must be no more than ${n} characters`;
const full = (fmt: string) => compileRegex(`^(?:${fmt})$`);

const LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const SUBDOMAIN_FMT = `${LABEL_FMT}(\\.${LABEL_FMT})*`;
const DNS1035_FMT = '[a-z]([-a-z0-9]*[a-z0-9])?';
const QUALIFIED_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const LABEL_VALUE_FMT = '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?';

function dns1123Label(s: string): string[] {
  const out: string[] = [];
  if (s.length > 63) out.push(maxLen(63));
  if (!full(LABEL_FMT).test(s)) out.push(regexError("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character", LABEL_FMT, 'my-name', '123-abc'));
  return out;
}

function dns1123Subdomain(s: string): string[] {
  const out: string[] = [];
  if (s.length > 253) out.push(maxLen(253));
  if (!full(SUBDOMAIN_FMT).test(s)) out.push(regexError("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character", SUBDOMAIN_FMT, 'example.com'));
  return out;
}

function dns1035Label(s: string): string[] {
  const out: string[] = [];
  if (s.length > 63) out.push(maxLen(63));
  if (!full(DNS1035_FMT).test(s)) out.push(regexError("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character", DNS1035_FMT, 'my-name', 'abc-123'));
  return out;
}

const QUALIFIED_MSG = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

function qualifiedName(s: string): string[] {
  const parts = s.split('/');
  let name = parts[0]!;
  const out: string[] = [];
  if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) out.push('prefix part must be non-empty');
    else for (const e of dns1123Subdomain(prefix)) out.push(`prefix part ${e}`);
  } else if (parts.length > 2) {
    return [`a qualified name ${regexError(QUALIFIED_MSG, QUALIFIED_FMT, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`];
  }
  if (name.length === 0) out.push('name part must be non-empty');
  else if (name.length > 63) out.push(`name part ${maxLen(63)}`);
  if (name.length > 0 && !full(QUALIFIED_FMT).test(name)) out.push(`name part ${regexError(QUALIFIED_MSG, QUALIFIED_FMT, 'MyName', 'my.name', '123-abc')}`);
  return out;
}

function labelValue(s: string): string[] {
  const out: string[] = [];
  if (s.length > 63) out.push(maxLen(63));
  if (!full(LABEL_VALUE_FMT).test(s)) out.push(regexError("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character", LABEL_VALUE_FMT, 'MyValue', 'my_value', '12345'));
  return out;
}

/** apimachinery's maskTrailingDash: a generated-name prefix may end with "-". */
const prefixed = (check: (s: string) => string[]) => (s: string) => check(s.length > 1 && s.endsWith('-') ? `${s.slice(0, -1)}a` : s);

/** kube-openapi strfmt's UUIDPattern: hyphens optional, any case. */
const UUID = /^[a-fA-F0-9]{8}-?[a-fA-F0-9]{4}-?[a-fA-F0-9]{4}-?[a-fA-F0-9]{4}-?[a-fA-F0-9]{12}$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const DATE = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/;
const DATETIME = /^([0-9]{4}-[0-9]{2}-[0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]+)?([Zz]|[+-][0-9]{2}:[0-9]{2})$/;

function validDate(text: string): boolean {
  const m = DATE.exec(text);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const days = [31, y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  return mo >= 1 && mo <= 12 && d >= 1 && d <= days[mo - 1]!;
}

const FORMATS: Record<string, (s: string) => string[]> = {
  dns1123Label,
  dns1123Subdomain,
  dns1035Label,
  qualifiedName,
  dns1123LabelPrefix: prefixed(dns1123Label),
  dns1123SubdomainPrefix: prefixed(dns1123Subdomain),
  dns1035LabelPrefix: prefixed(dns1035Label),
  labelValue,
  uri: (s) => {
    const u = parseURL(s);
    return typeof u === 'string' ? [u.replace(/^URL parse error during conversion from string: /, '')] : [];
  },
  uuid: (s) => (s.length <= 36 && UUID.test(s) ? [] : ['does not match the UUID format']),
  byte: (s) => (s.length % 4 === 0 && BASE64.test(s) ? [] : ['invalid base64']),
  date: (s) => (s.length <= 10 && validDate(s) ? [] : ['invalid date']),
  datetime: (s) => {
    const m = s.length <= 64 ? DATETIME.exec(s) : null;
    return m && validDate(m[1]!) && Number(m[2]) < 24 && Number(m[3]) < 60 && Number(m[4]) < 60 ? [] : ['invalid datetime'];
  },
};

/**
 * Each format's `MaxRegexSize` (library/format.go), the pattern length the API server charges `validate` for: the
 * apimachinery patterns' bounds, and for the CRD formats the length of the pattern they stand for (govalidator's
 * URL and Base64, kube-openapi strfmt's UUIDPattern and DateTimePattern, as vendored by Kubernetes).
 */
const MAX_REGEX_SIZE: Readonly<Record<string, number>> = {
  dns1123Label: 30,
  dns1123Subdomain: 60,
  dns1035Label: 30,
  qualifiedName: 60,
  dns1123LabelPrefix: 30,
  dns1123SubdomainPrefix: 60,
  dns1035LabelPrefix: 30,
  labelValue: 40,
  uri: 357,
  uuid: 70,
  byte: 84,
  date: 71,
  datetime: 71,
};

function register(env: Environment): void {
  env.registerType('kubernetes.NamedFormat', Format);
  class FormatNamespace {}
  env.registerType('FormatNamespace', FormatNamespace);
  env.registerConstant('format', 'FormatNamespace', new FormatNamespace());
  for (const [name, check] of Object.entries(FORMATS)) {
    const f = new Format(name, check);
    env.registerFunction(`FormatNamespace.${name}(): kubernetes.NamedFormat`, () => f);
  }
  env.registerFunction('FormatNamespace.named(string): optional<kubernetes.NamedFormat>', (_: unknown, name: string) =>
    Object.hasOwn(FORMATS, name) ? Optional.of(new Format(name, FORMATS[name]!)) : Optional.none());
  // library/cost.go: validate is a regular expression of the format's MaxRegexSize run over the string (costed.ts);
  // format.named, format.<name>() and `==` are the default one unit, charged by the static pass.
  env.registerFunction('kubernetes.NamedFormat.validate(string): optional<list<string>>', (f: Format, s: string) => {
    spend(regexUnits(stringSize(s), MAX_REGEX_SIZE[f.name]!));
    const errors = f.check(s);
    return errors.length ? Optional.of(errors) : Optional.none();
  });
  // format.go's Format.Equal: formats are equal when they have the same name.
  env.registerOperator('kubernetes.NamedFormat == kubernetes.NamedFormat', (a: Format, b: Format) => a.name === b.name);
}

export const formatLibrary: CelLibrary = { name: 'format', register };
