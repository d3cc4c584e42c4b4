/** The trust store of the toolkit's HTTPS clients: the public roots, NODE_EXTRA_CA_CERTS and a custom CA. */
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createSecureContext, rootCertificates, type SecureContext } from 'node:tls';
import { InputError } from './errors.js';

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

/** Read the `ca` option: PEM text as is, anything else as a file path; every certificate in it must parse. */
export function loadCa(ca: string, inputName = 'ca-cert'): string {
  let text: string;
  const shown = ca.includes('-----BEGIN') ? '(PEM text)' : ca;
  if (ca.includes('-----BEGIN CERTIFICATE-----')) text = ca;
  else {
    try {
      text = readFileSync(ca, 'utf8');
    } catch (error) {
      throw new InputError(inputName, ca, `PEM text or the path of a readable PEM file (${(error as Error).message})`);
    }
    if (!text.includes('-----BEGIN CERTIFICATE-----')) {
      throw new InputError(inputName, ca, 'PEM text or the path of a PEM file (the file holds no certificate)');
    }
  }
  for (const [i, block] of [...text.matchAll(PEM_BLOCK)].map((m, n) => [n, m[0]] as const)) {
    try {
      new X509Certificate(block);
    } catch (error) {
      throw new InputError(inputName, shown, `PEM certificates that parse (certificate ${i + 1}: ${(error as Error).message})`);
    }
  }
  return text;
}

/** The trust store for a custom CA: public roots + NODE_EXTRA_CA_CERTS + the given CA (a `ca` option replaces Node's defaults otherwise). */
export function trustStore(ca: string): string[] {
  const list = [...rootCertificates];
  const extra = process.env.NODE_EXTRA_CA_CERTS;
  if (extra) {
    try {
      list.push(readFileSync(extra, 'utf8'));
    } catch {
      // Node itself warns about an unreadable NODE_EXTRA_CA_CERTS at start-up.
    }
  }
  list.push(ca);
  return list;
}

/** TLS contexts made, by their trust store's text: a few kept (one per CA a process talks to). */
const contexts = new Map<string, SecureContext>();
const CONTEXTS_KEPT = 8;

/**
 * The TLS context trusting `trustStore(ca)`, made once per process for one store: building it parses ~150
 * certificates (~20 ms of CPU), which each client, and with `ca` each connection, would spend again.
 * A context only verifies, so clients of one store can share it; the key is the store's text.
 */
export function trustedContext(ca: string): SecureContext {
  const store = trustStore(ca);
  // The public roots are the same for the whole process: the rest of the store tells stores apart.
  const key = store.slice(rootCertificates.length).join('\n');
  let context = contexts.get(key);
  if (!context) {
    context = createSecureContext({ ca: store });
    contexts.set(key, context);
    if (contexts.size > CONTEXTS_KEPT) contexts.delete(contexts.keys().next().value as string);
  }
  return context;
}
