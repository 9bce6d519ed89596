/**
 * The Kubernetes URL library (k8s.io/apiserver/pkg/cel/library/urls.go): `url(s)` accepts what Go's
 * url.ParseRequestURI accepts (an absolute URI or an absolute path); getScheme, getHost, getHostname,
 * getPort, getEscapedPath, getQuery. Hand-written after Go's net/url (the semantics to match; WHATWG URL,
 * the only parser in browsers, normalises differently).
 */
import type { Environment } from '@marcbachmann/cel-js';
import { fail, spend } from '../runtime.js';
import { scanUnits, stringSize, workOver } from './costed.js';
import type { CelLibrary } from './index.js';
import { parseIP } from './net.js';

export class URL {
  constructor(readonly scheme: string, readonly host: string, readonly path: string, readonly rawQuery: string) {}
}

/** The longest URL verdict parses (longer ones are refused as too long). */
const MAX_URL_LENGTH = 4096;

const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):/;

/** Whether `text` has an ASCII control character (Go's net/url refuses them). */
export function hasControl(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return true;
  }
  return false;
}

function parseError(text: string, why: string): string {
  return `URL parse error during conversion from string: parse ${JSON.stringify(text)}: ${why}`;
}

function unescape(s: string): string | undefined {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

/** Go's url.ParseRequestURI, enough of it for admission policies; a string says why parsing failed. */
export function parseURL(text: string): URL | string {
  if (text.length > MAX_URL_LENGTH) return parseError(text.slice(0, 40), 'URL too long');
  if (hasControl(text)) return parseError(text, 'net/url: invalid control character in URL');
  let rest = text;
  let scheme = '';
  const m = SCHEME.exec(rest);
  if (m) {
    scheme = m[1]!.toLowerCase();
    rest = rest.slice(m[0].length);
  } else if (!rest.startsWith('/')) return parseError(text, 'invalid URI for request');
  const q = rest.indexOf('?');
  const rawQuery = q < 0 ? '' : rest.slice(q + 1);
  if (q >= 0) rest = rest.slice(0, q);
  let host = '';
  if (scheme && rest.startsWith('//')) {
    const slash = rest.indexOf('/', 2);
    const authority = slash < 0 ? rest.slice(2) : rest.slice(2, slash);
    rest = slash < 0 ? '' : rest.slice(slash);
    const at = authority.lastIndexOf('@');
    host = at < 0 ? authority : authority.slice(at + 1);
    const issue = hostIssue(host);
    if (issue) return parseError(text, issue);
  } else if (scheme && !rest.startsWith('/')) {
    // An opaque URI (mailto:x): Go keeps it in Opaque; the path is empty.
    return new URL(scheme, '', '', rawQuery);
  }
  if (/%(?![0-9A-Fa-f]{2})/.test(rest)) return parseError(text, `invalid URL escape ${JSON.stringify(rest.slice(rest.search(/%(?![0-9A-Fa-f]{2})/), rest.search(/%(?![0-9A-Fa-f]{2})/) + 3))}`);
  const path = unescape(rest.replace(/\+/g, '%2B'));
  if (path === undefined) return parseError(text, 'invalid URL escape');
  return new URL(scheme, host, path, rawQuery);
}

function hostIssue(host: string): string | undefined {
  if (host.startsWith('[')) {
    const close = host.indexOf(']');
    if (close < 0) return 'missing \']\' in host';
    const ip = parseIP(host.slice(1, close).replace(/%25.*$/, ''));
    if (typeof ip === 'string' && !host.includes('%25')) return `invalid host: ${ip}`;
    const port = host.slice(close + 1);
    if (port !== '' && !/^:[0-9]*$/.test(port)) return `invalid port ${JSON.stringify(port)} after host`;
    return undefined;
  }
  const colon = host.lastIndexOf(':');
  if (colon >= 0 && !/^[0-9]*$/.test(host.slice(colon + 1))) return `invalid port ${JSON.stringify(host.slice(colon))} after host`;
  if (/[^A-Za-z0-9\-._~!$&'()*+,;=:%]/.test(host)) return `invalid character ${JSON.stringify(host.match(/[^A-Za-z0-9\-._~!$&'()*+,;=:%]/)![0])} in host name`;
  return undefined;
}

function hostname(u: URL): string {
  if (u.host.startsWith('[')) return u.host.slice(1, u.host.indexOf(']'));
  const colon = u.host.lastIndexOf(':');
  return colon < 0 ? u.host : u.host.slice(0, colon);
}

function port(u: URL): string {
  const start = u.host.startsWith('[') ? u.host.indexOf(']') + 1 : 0;
  const colon = u.host.indexOf(':', start);
  return colon < 0 ? '' : u.host.slice(colon + 1);
}

/** Go's url.PathEscape-like escaping of the decoded path (EscapedPath when RawPath is not set). */
function escapedPath(u: URL): string {
  return u.path.replace(/[^A-Za-z0-9\-._~!$&'()*+,;=:@/]/g, (c) => encodeURIComponent(c));
}

function query(u: URL): Map<string, string[]> {
  const out = new Map<string, string[]>();
  if (u.rawQuery === '') return out;
  for (const part of u.rawQuery.split('&')) {
    if (part === '' || part.includes(';')) continue;
    const eq = part.indexOf('=');
    const k = unescape(eq < 0 ? part : part.slice(0, eq));
    const v = unescape(eq < 0 ? '' : part.slice(eq + 1));
    if (k === undefined || v === undefined) continue;
    const list = out.get(k) ?? [];
    list.push(v);
    out.set(k, list);
  }
  return out;
}

function register(env: Environment): void {
  env.registerType('kubernetes.URL', URL);
  // url is a parse (library/cost.go): one unit per ten code points, rounded up. isURL, the accessors and `==` are
  // the default one unit, charged by the static pass; what they read (at most 4096 characters) is verdict's work.
  env.registerFunction('url(string): kubernetes.URL', (s: string) => {
    spend(scanUnits(stringSize(s)));
    const u = parseURL(s);
    return typeof u === 'string' ? fail(u) : u;
  });
  env.registerFunction('isURL(string): bool', (s: string) => {
    workOver(Math.min(s.length, MAX_URL_LENGTH));
    return typeof parseURL(s) !== 'string';
  });
  env.registerFunction('kubernetes.URL.getScheme(): string', (u: URL) => u.scheme);
  env.registerFunction('kubernetes.URL.getHost(): string', (u: URL) => u.host);
  env.registerFunction('kubernetes.URL.getHostname(): string', hostname);
  env.registerFunction('kubernetes.URL.getPort(): string', port);
  env.registerFunction('kubernetes.URL.getEscapedPath(): string', (u: URL) => {
    workOver(u.path.length);
    return escapedPath(u);
  });
  env.registerFunction('kubernetes.URL.getQuery(): map<string, list<string>>', (u: URL) => {
    workOver(u.rawQuery.length);
    return query(u);
  });
  // The type is cel-go's kubernetes.URL (k8s.io/apiserver/pkg/cel/types.go). cel-go's URL.Equal compares the URLs' String(), which the parsed parts determine.
  env.registerOperator('kubernetes.URL == kubernetes.URL', (a: URL, b: URL) => a.scheme === b.scheme && a.host === b.host && a.path === b.path && a.rawQuery === b.rawQuery);
}

export const urlLibrary: CelLibrary = { name: 'url', register };
