/**
 * The Kubernetes IP and CIDR libraries (k8s.io/apiserver/pkg/cel/library/ip.go, cidr.go): `ip("10.0.0.1")`,
 * `cidr("10.0.0.0/8")`, families, classes, containment. Parsing follows Go's net/netip strictly (no leading
 * zeros in IPv4, RFC 5952 canonical text) and, like the API server, refuses zones and IPv4-mapped IPv6.
 * Hand-written: netip's exact grammar is the specification, and no JS library reproduces it.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { fail, spend } from '../runtime.js';
import { scanTwiceUnits, scanUnits, stringSize } from './costed.js';
import type { CelLibrary } from './index.js';

/** An IPv4 (4 bytes) or IPv6 (16 bytes) address. */
export class IP {
  constructor(readonly bytes: readonly number[]) {}
  get family(): 4 | 6 {
    return this.bytes.length === 4 ? 4 : 6;
  }
  toString(): string {
    if (this.family === 4) return this.bytes.join('.');
    const groups: number[] = [];
    for (let i = 0; i < 16; i += 2) groups.push((this.bytes[i]! << 8) | this.bytes[i + 1]!);
    let best = -1;
    let bestLen = 1;
    for (let i = 0; i < 8; ) {
      let j = i;
      while (j < 8 && groups[j] === 0) j++;
      if (j - i > bestLen) [best, bestLen] = [i, j - i];
      i = j === i ? i + 1 : j;
    }
    const hex = groups.map((g) => g.toString(16));
    if (best < 0) return hex.join(':');
    return `${hex.slice(0, best).join(':')}::${hex.slice(best + bestLen).join(':')}`;
  }
}

/** A prefix: an address and a prefix length (the address is kept as written, as netip.Prefix does). */
export class CIDR {
  constructor(readonly ip: IP, readonly bits: number) {}
  toString(): string {
    return `${this.ip.toString()}/${this.bits}`;
  }
}

/** netip's parseAddrError text: `ParseAddr("in"): msg (at "rest")`. */
function addrError(input: string, msg: string, at?: string): string {
  return `ParseAddr(${JSON.stringify(input)}): ${msg}${at ? ` (at ${JSON.stringify(at)})` : ''}`;
}

/** netip.parseIPv4Fields: the four fields of `input.slice(from, to)` into `out`, or netip's error. */
function parseV4Fields(input: string, from: number, to: number, out: number[]): string | undefined {
  const s = input.slice(from, to);
  let val = 0;
  let pos = 0;
  let digits = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      if (digits === 1 && val === 0) return addrError(input, 'IPv4 field has octet with leading zero');
      val = val * 10 + (c - 48);
      digits++;
      if (val > 255) return addrError(input, 'IPv4 field has value >255');
    } else if (s[i] === '.') {
      if (i === 0 || i === s.length - 1 || s[i - 1] === '.') return addrError(input, 'IPv4 field must have at least one digit', s.slice(i));
      if (pos === 3) return addrError(input, 'IPv4 address too long');
      out[pos++] = val;
      val = 0;
      digits = 0;
    } else return addrError(input, 'unexpected character', s.slice(i));
  }
  if (pos < 3) return addrError(input, 'IPv4 address too short');
  out[3] = val;
  return undefined;
}

function parseV4(input: string): number[] | string {
  const out = [0, 0, 0, 0];
  return parseV4Fields(input, 0, input.length, out) ?? out;
}

/** netip.parseIPv6 (zones are refused before this), with its messages. */
function parseV6(input: string): number[] | string {
  const ip = new Array<number>(16).fill(0);
  let s = input;
  let ellipsis = -1;
  if (s.length >= 2 && s[0] === ':' && s[1] === ':') {
    ellipsis = 0;
    s = s.slice(2);
    if (s.length === 0) return ip;
  }
  let i = 0;
  while (i < 16) {
    let off = 0;
    let acc = 0;
    for (; off < s.length; off++) {
      const c = s[off]!;
      const d = c >= '0' && c <= '9' ? c.charCodeAt(0) - 48 : c >= 'a' && c <= 'f' ? c.charCodeAt(0) - 87 : c >= 'A' && c <= 'F' ? c.charCodeAt(0) - 55 : -1;
      if (d < 0) break;
      acc = acc * 16 + d;
      if (off > 3) return addrError(input, 'each group must have 4 or less digits', s);
      if (acc > 0xffff) return addrError(input, 'IPv6 field has value >=2^16', s);
    }
    if (off === 0) return addrError(input, 'each colon-separated field must have at least one digit', s);
    if (off < s.length && s[off] === '.') {
      if (ellipsis < 0 && i !== 12) return addrError(input, 'embedded IPv4 address must replace the final 2 fields of the address', s);
      if (i + 4 > 16) return addrError(input, 'too many hex fields to fit an embedded IPv4 at the end of the address', s);
      const v4 = [0, 0, 0, 0];
      const err = parseV4Fields(input, input.length - s.length, input.length, v4);
      if (err) return err;
      ip.splice(i, 4, ...v4);
      s = '';
      i += 4;
      break;
    }
    ip[i] = acc >> 8;
    ip[i + 1] = acc & 0xff;
    i += 2;
    s = s.slice(off);
    if (s.length === 0) break;
    if (s[0] !== ':') return addrError(input, 'unexpected character, want colon', s);
    if (s.length === 1) return addrError(input, 'colon must be followed by more characters', s);
    s = s.slice(1);
    if (s[0] === ':') {
      if (ellipsis >= 0) return addrError(input, 'multiple :: in address', s);
      ellipsis = i;
      s = s.slice(1);
      if (s.length === 0) break;
    }
  }
  if (s.length !== 0) return addrError(input, 'trailing garbage after address', s);
  if (i < 16) {
    if (ellipsis < 0) return addrError(input, 'address string too short');
    const n = 16 - i;
    for (let j = i - 1; j >= ellipsis; j--) ip[j + n] = ip[j]!;
    for (let j = ellipsis + n - 1; j >= ellipsis; j--) ip[j] = 0;
  } else if (ellipsis >= 0) return addrError(input, 'the :: must expand to at least one field of zeros');
  return ip;
}

/** Parses an address like the API server (netip.ParseAddr without zones or IPv4-mapped IPv6), or says why not. */
export function parseIP(text: string): IP | string {
  if (text.includes('%')) return 'IP Address with zone value is not allowed';
  let bytes: number[] | string = addrError(text, 'unable to parse IP');
  for (const c of text) {
    if (c === '.') {
      bytes = parseV4(text);
      break;
    }
    if (c === ':') {
      bytes = parseV6(text);
      break;
    }
  }
  if (typeof bytes === 'string') return bytes;
  const ip = new IP(bytes);
  if (ip.family === 6 && bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 255 && bytes[11] === 255) return 'IPv4-mapped IPv6 address is not allowed';
  return ip;
}

export function parseCIDR(text: string): CIDR | string {
  const slash = text.indexOf('/');
  if (slash < 0) return `netip.ParsePrefix(${JSON.stringify(text)}): no '/'`;
  const ip = parseIP(text.slice(0, slash));
  if (typeof ip === 'string') return ip;
  const bitsText = text.slice(slash + 1);
  const max = ip.family === 4 ? 32 : 128;
  if (!/^(0|[1-9][0-9]{0,2})$/.test(bitsText) || Number(bitsText) > max) return `netip.ParsePrefix(${JSON.stringify(text)}): bad bits after slash: ${JSON.stringify(bitsText)}`;
  return new CIDR(ip, Number(bitsText));
}

function masked(c: CIDR): CIDR {
  const bytes = c.ip.bytes.map((b, i) => {
    const keep = Math.max(0, Math.min(8, c.bits - i * 8));
    return b & ((0xff << (8 - keep)) & 0xff);
  });
  return new CIDR(new IP(bytes), c.bits);
}

function contains(c: CIDR, ip: IP): boolean {
  if (c.ip.family !== ip.family) return false;
  return masked(new CIDR(ip, c.bits)).ip.toString() === masked(c).ip.toString();
}

const same = (a: readonly number[], b: readonly number[]) => a.length === b.length && a.every((x, i) => x === b[i]);

function classes(ip: IP) {
  const b = ip.bytes;
  const v4 = ip.family === 4;
  const unspecified = b.every((x) => x === 0);
  const loopback = v4 ? b[0] === 127 : same(b, [...Array<number>(15).fill(0), 1]);
  const multicast = v4 ? (b[0]! & 0xf0) === 0xe0 : b[0] === 0xff;
  const linkLocalMulticast = v4 ? b[0] === 224 && b[1] === 0 && b[2] === 0 : b[0] === 0xff && (b[1]! & 0x0f) === 0x02;
  const linkLocalUnicast = v4 ? b[0] === 169 && b[1] === 254 : b[0] === 0xfe && (b[1]! & 0xc0) === 0x80;
  const broadcast = v4 && b.every((x) => x === 255);
  return { unspecified, loopback, linkLocalMulticast, linkLocalUnicast, globalUnicast: !unspecified && !loopback && !multicast && !linkLocalUnicast && !broadcast };
}

/** A CIDR's size as cel-go measures it (cel.CIDR.Size): its prefix in bytes, rounded up. */
const cidrSize = (c: CIDR) => Math.ceil(c.bits / 8);

/**
 * The API server's units (library/cost.go): parsing a string (ip, cidr, isIP, isCIDR) one unit per ten code points,
 * rounded up; ip.isCanonical twice that; containsIP comparing twice the CIDR's size in bytes, one unit per ten
 * rounded up, and containsCIDR that again for masking plus one; their string overloads add the string's parse.
 * Every accessor and `==` is the default one unit, charged by the static pass.
 */
function register(env: Environment): void {
  env.registerType('net.IP', IP);
  env.registerType('net.CIDR', CIDR);
  const parsing = (s: string) => spend(scanUnits(stringSize(s)));
  // The API server's messages (ip.go, cidr.go; cidr.go wraps its message twice).
  const ipOf = (s: string) => {
    const v = parseIP(s);
    return typeof v === 'string' ? fail(`IP Address ${JSON.stringify(s)} parse error during conversion from string: ${v}`) : v;
  };
  const cidrOf = (s: string) => {
    const v = parseCIDR(s);
    return typeof v === 'string' ? fail(`network address parse error during conversion from string: network address parse error during conversion from string: ${v}`) : v;
  };
  env.registerFunction('ip(string): net.IP', (s: string) => {
    parsing(s);
    return ipOf(s);
  });
  env.registerFunction('isIP(string): bool', (s: string) => {
    parsing(s);
    return typeof parseIP(s) !== 'string';
  });
  class IPNamespace {}
  env.registerType('IPNamespace', IPNamespace);
  env.registerConstant('ip', 'IPNamespace', new IPNamespace());
  env.registerFunction('IPNamespace.isCanonical(string): bool', (_: unknown, s: string) => {
    spend(scanTwiceUnits(stringSize(s)));
    return ipOf(s).toString() === s;
  });
  env.registerFunction('string(net.IP): string', (a: IP) => a.toString());
  env.registerFunction('net.IP.family(): int', (a: IP) => BigInt(a.family));
  env.registerFunction('net.IP.isUnspecified(): bool', (a: IP) => classes(a).unspecified);
  env.registerFunction('net.IP.isLoopback(): bool', (a: IP) => classes(a).loopback);
  env.registerFunction('net.IP.isLinkLocalMulticast(): bool', (a: IP) => classes(a).linkLocalMulticast);
  env.registerFunction('net.IP.isLinkLocalUnicast(): bool', (a: IP) => classes(a).linkLocalUnicast);
  env.registerFunction('net.IP.isGlobalUnicast(): bool', (a: IP) => classes(a).globalUnicast);
  env.registerOperator('net.IP == net.IP', (a: IP, b: IP) => same(a.bytes, b.bytes));
  env.registerFunction('cidr(string): net.CIDR', (s: string) => {
    parsing(s);
    return cidrOf(s);
  });
  env.registerFunction('isCIDR(string): bool', (s: string) => {
    parsing(s);
    return typeof parseCIDR(s) !== 'string';
  });
  env.registerFunction('string(net.CIDR): string', (c: CIDR) => c.toString());
  // `ip` is charged by name (cost.go): the CIDR's address is its nominal one unit (overload cidr_ip).
  env.registerFunction('net.CIDR.ip(): net.IP', (c: CIDR) => {
    spend(1);
    return c.ip;
  });
  env.registerFunction('net.CIDR.masked(): net.CIDR', masked);
  env.registerFunction('net.CIDR.prefixLength(): int', (c: CIDR) => BigInt(c.bits));
  const comparing = (c: CIDR) => scanUnits(cidrSize(c) + cidrSize(c));
  // containsIP and containsCIDR, each taking a value or a string (whose parse is added to the units).
  const containment = <T>(call: `${string}(${string})`, units: (c: CIDR) => number, parse: (s: string) => T, test: (c: CIDR, x: T) => boolean) => {
    const name = call.slice(0, call.indexOf('('));
    env.registerFunction(`net.CIDR.${call}: bool`, (c: CIDR, x: T) => {
      spend(units(c));
      return test(c, x);
    });
    env.registerFunction(`net.CIDR.${name}(string): bool`, (c: CIDR, s: string) => {
      spend(units(c) + scanUnits(stringSize(s)));
      return test(c, parse(s));
    });
  };
  containment('containsIP(net.IP)', comparing, ipOf, contains);
  containment('containsCIDR(net.CIDR)', (c) => comparing(c) + scanUnits(cidrSize(c)) + 1, cidrOf, (c, o: CIDR) => o.bits >= c.bits && contains(c, o.ip));
  env.registerOperator('net.CIDR == net.CIDR', (a: CIDR, b: CIDR) => a.bits === b.bits && same(a.ip.bytes, b.ip.bytes));
  // The type names `net.IP` and `net.CIDR` (`type(x) == net.IP`): fields of a `net` namespace holding the types.
  class NetNamespace {
    constructor(readonly IP: unknown, readonly CIDR: unknown) {}
  }
  env.registerType('NetNamespace', { ctor: NetNamespace, fields: { IP: 'type', CIDR: 'type' } } as never);
  env.registerConstant('net', 'NetNamespace', new NetNamespace(env.evaluate('type(ip("0.0.0.0"))'), env.evaluate('type(cidr("0.0.0.0/0"))')) as never);
}

export const netLibrary: CelLibrary = { name: 'ip and cidr', register };
