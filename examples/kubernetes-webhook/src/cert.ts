/**
 * The server's TLS certificate: files (e.g. a cert-manager Secret) reloaded
 * when they change, or a development certificate made at start with
 * `selfsigned` (ECDSA P-256; it is its own CA, so its PEM is also the
 * webhook configurations' `caBundle`).
 */
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { createSecureContext, type Server } from 'node:tls';
import { X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import selfsigned from 'selfsigned';
import { watchFolder, type FolderWatch } from './watch.js';

export interface KeyPair {
  /** PEM certificate (chain). */
  cert: string;
  /** PEM private key. */
  key: string;
}

export interface DevelopmentCertificate extends KeyPair {
  /** `caBundle` for a webhook configuration: base64 of the PEM. */
  caBundle: string;
}

/**
 * A self-signed certificate for `hosts` (DNS names and IP addresses, e.g.
 * `localhost`, `127.0.0.1`, `verdict-webhook.verdict.svc`), valid for `days`.
 */
export async function developmentCertificate(hosts: readonly string[] = ['localhost', '127.0.0.1', '::1'], days = 365): Promise<DevelopmentCertificate> {
  if (hosts.length === 0) throw new Error('a certificate needs at least one host name or IP address');
  const now = Date.now();
  const pems = await selfsigned.generate([{ name: 'commonName', value: hosts[0]! }], {
    keyType: 'ec', curve: 'P-256', algorithm: 'sha256',
    notBeforeDate: new Date(now - 60 * 60 * 1000), notAfterDate: new Date(now + days * 24 * 60 * 60 * 1000),
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', digitalSignature: true, keyCertSign: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: hosts.map((h) => (isIP(h) ? { type: 7 as const, ip: h } : { type: 2 as const, value: h })) },
    ],
  });
  return { cert: pems.cert, key: pems.private, caBundle: Buffer.from(pems.cert).toString('base64') };
}

/** Reads a certificate and its key, and checks that they belong together (throws otherwise). */
export function readKeyPair(files: { cert: string; key: string }): KeyPair {
  const pair = { cert: readFileSync(files.cert, 'utf8'), key: readFileSync(files.key, 'utf8') };
  createSecureContext(pair);
  return pair;
}

export interface CertificateReload {
  /** The certificate now served. */
  current(): KeyPair;
  stop(): void;
}

/**
 * Serves new certificate files as soon as they change (cert-manager rotates
 * them in place): new connections get the new certificate, open ones keep
 * theirs. A pair that does not load (half-written, key and certificate not
 * matching) is reported and the current one stays.
 */
export function reloadCertificate(
  server: Server,
  files: { cert: string; key: string },
  initial: KeyPair,
  events: { onLoad?: (info: { notAfter: string; fingerprint: string }) => void; onError?: (error: Error) => void } = {},
): CertificateReload {
  let current = initial;
  const check = () => {
    let next: KeyPair;
    try {
      next = readKeyPair(files);
    } catch (error) {
      events.onError?.(error as Error);
      return;
    }
    if (next.cert === current.cert && next.key === current.key) return;
    server.setSecureContext(next);
    current = next;
    const x509 = new X509Certificate(next.cert);
    events.onLoad?.({ notAfter: new Date(x509.validTo).toISOString(), fingerprint: x509.fingerprint256 });
  };
  const folders = [...new Set([dirname(files.cert), dirname(files.key)])];
  const watches: FolderWatch[] = folders.map((folder) => watchFolder(folder, check, { pollMs: 60_000, ...(events.onError ? { onError: events.onError } : {}) }));
  return {
    current: () => current,
    stop: () => watches.forEach((w) => w.close()),
  };
}
