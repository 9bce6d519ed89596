/**
 * A self-signed TLS certificate, generated in memory at start with node:crypto
 * only (no openssl binary, no internet): an ECDSA P-256 key and an X.509 v3
 * certificate encoded in DER by hand. The certificate is its own CA, so the
 * same PEM is the server certificate and the webhook's `caBundle`.
 */
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { isIPv4, isIPv6 } from 'node:net';

export interface SelfSignedCertificate {
  /** PEM certificate: serve it, and trust it (`caBundle` is its base64). */
  cert: string;
  /** PEM PKCS#8 private key. */
  key: string;
  /** `caBundle` for a webhook configuration: base64 of the PEM. */
  caBundle: string;
}

function der(tag: number, ...content: Buffer[]): Buffer {
  const body = Buffer.concat(content);
  const length: number[] = [];
  if (body.length < 0x80) length.push(body.length);
  else {
    for (let n = body.length; n > 0; n >>= 8) length.unshift(n & 0xff);
    length.unshift(0x80 | length.length);
  }
  return Buffer.concat([Buffer.from([tag, ...length]), body]);
}

const sequence = (...items: Buffer[]) => der(0x30, ...items);
const set = (...items: Buffer[]) => der(0x31, ...items);
const integer = (bytes: Buffer) => der(0x02, bytes[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), bytes]) : bytes);
const boolean = (value: boolean) => der(0x01, Buffer.from([value ? 0xff : 0x00]));
const octets = (content: Buffer) => der(0x04, content);
const bits = (content: Buffer, unused = 0) => der(0x03, Buffer.from([unused]), content);
const utf8 = (text: string) => der(0x0c, Buffer.from(text, 'utf8'));
const explicit = (n: number, content: Buffer) => der(0xa0 + n, content);
/** UTCTime, YYMMDDHHMMSSZ (valid until 2049). */
const utcTime = (date: Date) => der(0x17, Buffer.from(`${date.toISOString().replace(/[-:T]/g, '').slice(2, 14)}Z`, 'ascii'));

function oid(dotted: string): Buffer {
  const [first, second, ...rest] = dotted.split('.').map(Number);
  const out = [40 * first! + second!];
  for (const part of rest) {
    const chunk = [part & 0x7f];
    for (let n = part >> 7; n > 0; n >>= 7) chunk.unshift((n & 0x7f) | 0x80);
    out.push(...chunk);
  }
  return der(0x06, Buffer.from(out));
}

function ipBytes(ip: string): Buffer {
  if (isIPv4(ip)) return Buffer.from(ip.split('.').map(Number));
  const [head = '', tail = ''] = ip.split('::');
  const groups = (s: string) => (s ? s.split(':') : []);
  const missing = 8 - groups(head).length - groups(tail).length;
  const all = [...groups(head), ...Array<string>(ip.includes('::') ? missing : 0).fill('0'), ...groups(tail)];
  return Buffer.from(all.flatMap((g) => [parseInt(g, 16) >> 8, parseInt(g, 16) & 0xff]));
}

/**
 * Generates a certificate for `hosts` (DNS names and IP addresses, e.g.
 * `localhost`, `127.0.0.1`, `verdict-webhook.verdict.svc`), valid for `days`.
 */
export function selfSignedCertificate(hosts: readonly string[] = ['localhost', '127.0.0.1', '::1'], days = 365): SelfSignedCertificate {
  if (hosts.length === 0) throw new Error('a certificate needs at least one host name or IP address');
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const ecdsaWithSha256 = sequence(oid('1.2.840.10045.4.3.2'));
  const name = sequence(set(sequence(oid('2.5.4.3'), utf8(hosts[0]!))));
  const now = Date.now();
  const serial = randomBytes(16);
  serial[0] = (serial[0]! & 0x7f) | 0x40;
  const altNames = sequence(...hosts.map((h) => (isIPv4(h) || isIPv6(h) ? der(0x87, ipBytes(h)) : der(0x82, Buffer.from(h, 'ascii')))));
  const extensions = explicit(3, sequence(
    sequence(oid('2.5.29.19'), boolean(true), octets(sequence(boolean(true)))), // basicConstraints: critical, CA
    sequence(oid('2.5.29.15'), boolean(true), octets(bits(Buffer.from([0x84]), 2))), // keyUsage: digitalSignature, keyCertSign
    sequence(oid('2.5.29.37'), octets(sequence(oid('1.3.6.1.5.5.7.3.1')))), // extKeyUsage: serverAuth
    sequence(oid('2.5.29.17'), octets(altNames)), // subjectAltName
  ));
  const tbs = sequence(
    explicit(0, integer(Buffer.from([2]))),
    integer(serial),
    ecdsaWithSha256,
    name,
    sequence(utcTime(new Date(now - 60 * 60 * 1000)), utcTime(new Date(now + days * 24 * 60 * 60 * 1000))),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
    extensions,
  );
  const certificate = sequence(tbs, ecdsaWithSha256, bits(sign('sha256', tbs, privateKey)));
  const cert = `-----BEGIN CERTIFICATE-----\n${certificate.toString('base64').match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----\n`;
  return { cert, key: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, caBundle: Buffer.from(cert).toString('base64') };
}
