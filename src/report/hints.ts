/**
 * What a person can do about a failure: one hint naming the fix (the key, its scope, the CA, the
 * address), and whether the platform could not be reached (the exit code's part: src/commands/exit-codes.ts).
 * Every command, in the terminal and in Actions, reads failures through here.
 */
import {
  AuthenticationError,
  ConnectionError,
  NotAvailableError,
  PermissionDeniedError,
  PlatformError,
  RateLimitError,
  ServerError,
  TimeoutError,
} from '../client/errors.js';

/** The docs page section a hint points at. */
const KEY_DOCS = 'docs/cli.md#the-api-key-and-the-deployment-id';

/** TLS verification failures: the machine does not trust the tenant's certificate. */
const UNTRUSTED = new Set([
  'CERT_HAS_EXPIRED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_GET_ISSUER_CERT',
  'CERT_UNTRUSTED',
]);

/** The first PlatformError in an error's cause chain (a workflow may wrap one). */
export function platformErrorIn(error: unknown): PlatformError | undefined {
  let e: unknown = error;
  for (let i = 0; i < 5 && e; i++) {
    if (e instanceof PlatformError) return e;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Could not talk to the platform: no answer, the key refused, or the platform down after every retry. */
export function isPlatformUnavailable(error: unknown): boolean {
  const e = platformErrorIn(error);
  return (
    e instanceof ConnectionError ||
    e instanceof TimeoutError ||
    e instanceof AuthenticationError ||
    e instanceof PermissionDeniedError ||
    e instanceof RateLimitError ||
    e instanceof ServerError ||
    e instanceof NotAvailableError
  );
}

/** `/api/v1/deployments/12/…` -> 12. */
function deploymentOf(path: string): string | undefined {
  return /\/deployments\/(\d+)(?:\/|$)/.exec(path)?.[1];
}

function hostOf(apiUrl: string | undefined): string {
  try {
    return apiUrl ? new URL(apiUrl).host : 'the platform';
  } catch {
    return 'the platform';
  }
}

/** One or two sentences on how to fix `error`, or undefined when there is nothing to add to its message. */
export function hintFor(error: unknown, apiUrl?: string): string | undefined {
  const e = platformErrorIn(error);
  if (!e) return undefined;
  const host = hostOf(apiUrl);
  if (e instanceof AuthenticationError) {
    return `the platform refused the API key (401): check that --api-key (DATAMODEL_CI_API_KEY) holds the whole key, that it was not revoked, and that it belongs to ${host}; an admin makes keys under Admin → API Keys (${KEY_DOCS}). A key that is not an sk-… platform key may need --auth-scheme bearer or api-key.`;
  }
  if (e instanceof PermissionDeniedError) {
    const id = deploymentOf(e.path);
    if (id) {
      return `the key may not act on deployment ${id}: its deployment scope (Admin → API Keys) must include ${id} or all deployments, and its owner's role needs Access deployment, View data model and Edit data model there; "datamodel-ci check" lists the deployments the key can see (${KEY_DOCS}).`;
    }
    return `the key is valid but its owner may not do this (403): some endpoints need an admin's key (${KEY_DOCS}).`;
  }
  if (e instanceof ConnectionError) {
    const code = e.code ?? '';
    if (UNTRUSTED.has(code)) {
      return `this machine does not trust the TLS certificate of ${host} (${code}): behind a TLS-inspecting proxy or with a private CA, pass the CA's PEM file with --ca-cert FILE (DATAMODEL_CI_CA_CERT) or NODE_EXTRA_CA_CERTS=FILE.`;
    }
    if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return `the TLS certificate of ${host} is for another host name: check --api-url.`;
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
      return `the host name of ${host} does not resolve: check --api-url (https://<tenant>.cubecloud.dev or your custom domain).`;
    return `could not reach ${host}: check --api-url (host and port), the network and any proxy; "datamodel-ci check" tests the connection and the key alone.`;
  }
  if (e instanceof TimeoutError) {
    return `${host} did not answer within the request timeout: check the network, or raise --request-timeout (seconds).`;
  }
  return undefined;
}
