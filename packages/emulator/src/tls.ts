/**
 * A throw-away CA and a server certificate signed by it, for local HTTPS servers (emulator, tests),
 * made with node:crypto alone: EC P-256 keys, X.509 v3 written out in DER. No dependency, so the
 * bundle stays small and start-up fast.
 */
import { createHash, generateKeyPair, randomBytes, sign, type KeyObject } from 'node:crypto';
import { isIP } from 'node:net';
import { promisify } from 'node:util';

export interface LocalTls {
  /** PEM of the CA a client must trust. */
  ca: string;
  /** PEM of the server certificate (signed by the CA). */
  cert: string;
  /** PEM of the server's private key. */
  key: string;
}

// ---------------------------------------------------------------------------------------------
// DER, just what a certificate needs.

function length(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v >>= 8) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

const tlv = (tag: number, content: Buffer) => Buffer.concat([Buffer.from([tag]), length(content.length), content]);
const seq = (...items: Buffer[]) => tlv(0x30, Buffer.concat(items));
const set = (...items: Buffer[]) => tlv(0x31, Buffer.concat(items));
const explicit = (n: number, inner: Buffer) => tlv(0xa0 | n, inner);
const bool = (v: boolean) => tlv(0x01, Buffer.from([v ? 0xff : 0x00]));
const octets = (b: Buffer) => tlv(0x04, b);
const bits = (b: Buffer, unused = 0) => tlv(0x03, Buffer.concat([Buffer.from([unused]), b]));
const utf8 = (s: string) => tlv(0x0c, Buffer.from(s, 'utf8'));

function integer(b: Buffer): Buffer {
  let i = 0;
  while (i < b.length - 1 && b[i] === 0) i++;
  const v = b.subarray(i);
  return tlv(0x02, (v[0] as number) & 0x80 ? Buffer.concat([Buffer.from([0]), v]) : v);
}

function oid(dotted: string): Buffer {
  const [a, b, ...rest] = dotted.split('.').map(Number) as [number, number, ...number[]];
  const out = [a * 40 + b];
  for (const n of rest) {
    const chunk: number[] = [n & 0x7f];
    for (let v = n >>> 7; v > 0; v >>>= 7) chunk.unshift((v & 0x7f) | 0x80);
    out.push(...chunk);
  }
  return tlv(0x06, Buffer.from(out));
}

/** UTCTime until 2049, GeneralizedTime after (RFC 5280 4.1.2.5). */
function time(d: Date): Buffer {
  const iso = d.toISOString().replace(/[-:T]/g, '').slice(0, 14);
  return d.getUTCFullYear() < 2050 ? tlv(0x17, Buffer.from(`${iso.slice(2)}Z`)) : tlv(0x18, Buffer.from(`${iso}Z`));
}

// ---------------------------------------------------------------------------------------------

const ECDSA_SHA256 = seq(oid('1.2.840.10045.4.3.2'));
const name = (cn: string) => seq(set(seq(oid('2.5.4.3'), utf8(cn))));
const extension = (id: string, critical: boolean, value: Buffer) => seq(oid(id), ...(critical ? [bool(true)] : []), octets(value));

function spki(pub: KeyObject): Buffer {
  return pub.export({ type: 'spki', format: 'der' });
}

/** SHA-1 of the public key bits (RFC 5280 4.2.1.2, method 1). */
function keyId(pub: KeyObject): Buffer {
  const der = spki(pub);
  // The BIT STRING is the last element of the SubjectPublicKeyInfo: for P-256, its last 65 bytes.
  return createHash('sha1')
    .update(der.subarray(der.length - 65))
    .digest();
}

interface CertInput {
  subject: string;
  issuer: string;
  publicKey: KeyObject;
  signingKey: KeyObject;
  issuerKey: KeyObject;
  ca: boolean;
  hosts?: string[];
  notBefore: Date;
  notAfter: Date;
}

function certificate(c: CertInput): string {
  const serial = randomBytes(16);
  serial[0] = (serial[0] as number) & 0x7f;
  const exts: Buffer[] = [
    extension('2.5.29.19', true, seq(...(c.ca ? [bool(true)] : []))),
    // keyUsage: CA keyCertSign + cRLSign (+ digitalSignature); server digitalSignature.
    extension('2.5.29.15', true, c.ca ? bits(Buffer.from([0x86]), 1) : bits(Buffer.from([0x80]), 7)),
    extension('2.5.29.14', false, octets(keyId(c.publicKey))),
    extension('2.5.29.35', false, seq(tlv(0x80, keyId(c.issuerKey)))),
  ];
  if (!c.ca) {
    exts.push(extension('2.5.29.37', false, seq(oid('1.3.6.1.5.5.7.3.1'))));
    const names = [...new Set(c.hosts ?? [])].map((h) => {
      if (isIP(h) === 4) return tlv(0x87, Buffer.from(h.split('.').map(Number)));
      if (isIP(h) === 6) {
        const parts = h.split('::');
        const left = parts[0] ? parts[0].split(':') : [];
        const right = parts.length > 1 && parts[1] ? parts[1].split(':') : [];
        const groups = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
        return tlv(0x87, Buffer.from(groups.flatMap((g) => [(parseInt(g, 16) >> 8) & 0xff, parseInt(g, 16) & 0xff])));
      }
      return tlv(0x82, Buffer.from(h, 'ascii'));
    });
    exts.push(extension('2.5.29.17', false, seq(...names)));
  }
  const tbs = seq(
    explicit(0, integer(Buffer.from([2]))),
    integer(serial),
    ECDSA_SHA256,
    name(c.issuer),
    seq(time(c.notBefore), time(c.notAfter)),
    name(c.subject),
    spki(c.publicKey),
    explicit(3, seq(...exts)),
  );
  const signature = sign('sha256', tbs, c.signingKey);
  const der = seq(tbs, ECDSA_SHA256, bits(signature));
  const b64 = der.toString('base64').replace(/(.{64})/g, '$1\n');
  return `-----BEGIN CERTIFICATE-----\n${b64.trimEnd()}\n-----END CERTIFICATE-----\n`;
}

/** Make a CA and a certificate for the given hosts (DNS names or IP addresses); EC P-256, valid 30 days. */
export async function makeLocalTls(hosts: string[] = ['127.0.0.1', 'localhost']): Promise<LocalTls> {
  const notBefore = new Date(Date.now() - 60_000);
  const notAfter = new Date(Date.now() + 30 * 24 * 3600_000);
  const newKeyPair = () => promisify(generateKeyPair)('ec', { namedCurve: 'prime256v1' });
  const [ca, server] = await Promise.all([newKeyPair(), newKeyPair()]);
  // A unique name: two local CAs trusted together must not be mistaken for each other.
  const caName = `datamodel-ci local CA ${randomBytes(6).toString('hex')}`;
  const caPem = certificate({
    subject: caName,
    issuer: caName,
    publicKey: ca.publicKey,
    signingKey: ca.privateKey,
    issuerKey: ca.publicKey,
    ca: true,
    notBefore,
    notAfter,
  });
  const certPem = certificate({
    subject: hosts[0] ?? 'localhost',
    issuer: caName,
    publicKey: server.publicKey,
    signingKey: ca.privateKey,
    issuerKey: ca.publicKey,
    ca: false,
    hosts,
    notBefore,
    notAfter,
  });
  const key = server.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
  return { ca: caPem, cert: certPem, key };
}
