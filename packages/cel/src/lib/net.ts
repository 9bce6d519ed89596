/**
 * The Kubernetes IP and CIDR libraries (k8s.io/apiserver/pkg/cel/library/ip.go, cidr.go): `ip("10.0.0.1")`,
 * `cidr("10.0.0.0/8")`, families, classes, containment. Parsing follows Go's net/netip strictly (no leading
 * zeros in IPv4, RFC 5952 canonical text) and, like the API server, refuses zones and IPv4-mapped IPv6.
 * Hand-written: netip's exact grammar is the specification, and no JS library reproduces it.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { fail, spendSize } from '../runtime.js';
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

function parseV4(text: string): number[] | string {
  const parts = text.split('.');
  if (parts.length !== 4) return 'IPv4 address too short';
  const out: number[] = [];
  for (const p of parts) {
    if (!/^[0-9]{1,3}$/.test(p)) return `unexpected character in IPv4 address`;
    if (p.length > 1 && p.startsWith('0')) return 'IPv4 field has octet with leading zero';
    const n = Number(p);
    if (n > 255) return 'IPv4 field has value >255';
    out.push(n);
  }
  return out;
}

function parseV6(text: string): number[] | string {
  let head = text;
  let tail4: number[] = [];
  const lastColon = text.lastIndexOf(':');
  if (text.slice(lastColon + 1).includes('.')) {
    const v4 = parseV4(text.slice(lastColon + 1));
    if (typeof v4 === 'string') return v4;
    tail4 = v4;
    head = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const halves = head.split('::');
  if (halves.length > 2) return 'multiple :: in address';
  const groups = (s: string): number[] | string => {
    if (s === '') return [];
    const out: number[] = [];
    for (const g of s.split(':')) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return 'each colon-separated field must have at least one digit and at most four';
      out.push(parseInt(g, 16));
    }
    return out;
  };
  const left = groups(halves[0]!);
  const right = halves.length === 2 ? groups(halves[1]!) : [];
  if (typeof left === 'string') return left;
  if (typeof right === 'string') return right;
  const fill = 8 - left.length - right.length;
  if (halves.length === 2 ? fill < 1 : fill !== 0) return halves.length === 2 ? 'address too long' : 'address too short';
  const all = [...left, ...Array<number>(halves.length === 2 ? fill : 0).fill(0), ...right];
  const bytes = all.flatMap((g) => [g >> 8, g & 255]);
  if (tail4.length) bytes.splice(12, 4, ...tail4);
  return bytes;
}

/** Parses an address like the API server (netip.ParseAddr without zones or IPv4-mapped IPv6), or says why not. */
export function parseIP(text: string): IP | string {
  if (text.length > 64) return 'address too long';
  if (text.includes('%')) return 'IP Address with zone value is not allowed';
  const bytes = text.includes(':') ? parseV6(text) : parseV4(text);
  if (typeof bytes === 'string') return `ParseAddr(${JSON.stringify(text)}): ${bytes}`;
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

function must<T>(v: T | string): T {
  return typeof v === 'string' ? fail(v) : v;
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

function register(env: Environment): void {
  env.registerType('net.IP', IP);
  env.registerType('net.CIDR', CIDR);
  const ip = (s: string) => {
    spendSize(s.length);
    return must(parseIP(s));
  };
  const cidr = (s: string) => {
    spendSize(s.length);
    return must(parseCIDR(s));
  };
  env.registerFunction('ip(string): net.IP', ip);
  env.registerFunction('isIP(string): bool', (s: string) => typeof parseIP(s) !== 'string');
  class IPNamespace {}
  env.registerType('IPNamespace', IPNamespace);
  env.registerConstant('ip', 'IPNamespace', new IPNamespace());
  env.registerFunction('IPNamespace.isCanonical(string): bool', (_: unknown, s: string) => must(parseIP(s)).toString() === s);
  env.registerFunction('string(net.IP): string', (a: IP) => a.toString());
  env.registerFunction('net.IP.family(): int', (a: IP) => BigInt(a.family));
  env.registerFunction('net.IP.isUnspecified(): bool', (a: IP) => classes(a).unspecified);
  env.registerFunction('net.IP.isLoopback(): bool', (a: IP) => classes(a).loopback);
  env.registerFunction('net.IP.isLinkLocalMulticast(): bool', (a: IP) => classes(a).linkLocalMulticast);
  env.registerFunction('net.IP.isLinkLocalUnicast(): bool', (a: IP) => classes(a).linkLocalUnicast);
  env.registerFunction('net.IP.isGlobalUnicast(): bool', (a: IP) => classes(a).globalUnicast);
  env.registerOperator('net.IP == net.IP', (a: IP, b: IP) => same(a.bytes, b.bytes));
  env.registerFunction('cidr(string): net.CIDR', cidr);
  env.registerFunction('isCIDR(string): bool', (s: string) => typeof parseCIDR(s) !== 'string');
  env.registerFunction('string(net.CIDR): string', (c: CIDR) => c.toString());
  env.registerFunction('net.CIDR.ip(): net.IP', (c: CIDR) => c.ip);
  env.registerFunction('net.CIDR.masked(): net.CIDR', masked);
  env.registerFunction('net.CIDR.prefixLength(): int', (c: CIDR) => BigInt(c.bits));
  env.registerFunction('net.CIDR.containsIP(net.IP): bool', contains);
  env.registerFunction('net.CIDR.containsIP(string): bool', (c: CIDR, s: string) => contains(c, ip(s)));
  const containsCIDR = (c: CIDR, o: CIDR) => o.bits >= c.bits && contains(c, o.ip);
  env.registerFunction('net.CIDR.containsCIDR(net.CIDR): bool', containsCIDR);
  env.registerFunction('net.CIDR.containsCIDR(string): bool', (c: CIDR, s: string) => containsCIDR(c, cidr(s)));
  env.registerOperator('net.CIDR == net.CIDR', (a: CIDR, b: CIDR) => a.bits === b.bits && same(a.ip.bytes, b.ip.bytes));
}

export const netLibrary: CelLibrary = { name: 'ip and cidr', register };
