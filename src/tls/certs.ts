/** A throw-away CA and a server certificate signed by it, for local HTTPS servers (emulator, tests). */
import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { generate } from 'selfsigned';

export interface LocalTls {
  /** PEM of the CA a client must trust. */
  ca: string;
  /** PEM of the server certificate (signed by the CA). */
  cert: string;
  /** PEM of the server's private key. */
  key: string;
}

/** Make a CA and a certificate for the given hosts (DNS names or IP addresses); EC P-256, valid 30 days. */
export async function makeLocalTls(hosts: string[] = ['127.0.0.1', 'localhost']): Promise<LocalTls> {
  const notBeforeDate = new Date(Date.now() - 60_000);
  const notAfterDate = new Date(Date.now() + 30 * 24 * 3600_000);
  // A unique name: two local CAs trusted together must not be mistaken for each other.
  const ca = await generate([{ name: 'commonName', value: `datamodel-ci local CA ${randomBytes(6).toString('hex')}` }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate,
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    ],
  });
  const altNames = [...new Set(hosts)].map((h) => (isIP(h) ? { type: 7 as const, ip: h } : { type: 2 as const, value: h }));
  const server = await generate([{ name: 'commonName', value: hosts[0] ?? 'localhost' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate,
    ca: { key: ca.private, cert: ca.cert },
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames },
    ],
  });
  return { ca: ca.cert, cert: server.cert, key: server.private };
}
