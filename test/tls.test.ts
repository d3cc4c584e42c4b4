import { X509Certificate, createPrivateKey } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { makeLocalTls } from '../packages/emulator/src/index.js';

describe('local TLS', () => {
  it('makes a CA and a server certificate for the hosts, signed by the CA', async () => {
    const t = await makeLocalTls(['127.0.0.1', 'localhost', '::1']);
    const ca = new X509Certificate(t.ca);
    const cert = new X509Certificate(t.cert);
    expect(ca.ca).toBe(true);
    expect(cert.ca).toBe(false);
    expect(cert.checkIssued(ca)).toBe(true);
    expect(cert.verify(ca.publicKey)).toBe(true);
    expect(cert.subjectAltName).toBe('IP Address:127.0.0.1, DNS:localhost, IP Address:0:0:0:0:0:0:0:1');
    expect(cert.checkHost('localhost')).toBe('localhost');
    expect(cert.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(cert.checkPrivateKey(createPrivateKey(t.key))).toBe(true);
    expect(Date.parse(cert.validTo) - Date.now()).toBeGreaterThan(29 * 86400_000);
  });

  it('gives two CAs different names, so trusting both at once works', async () => {
    const [a, b] = await Promise.all([makeLocalTls(), makeLocalTls()]);
    expect(new X509Certificate(a.ca).subject).not.toBe(new X509Certificate(b.ca).subject);
    expect(new X509Certificate(a.cert).checkIssued(new X509Certificate(b.ca))).toBe(false);
  });
});
