import type { Redactor } from './redact.js';
import { InputError, showValue } from '@datamodel-ci/platform-api';

export { InputError, showValue };

/** A thrown value's message (a non-Error as its string). */
export const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** A copy of a request that is safe to print: no Authorization header, secrets replaced. */
export interface RedactedRequest {
  method: string;
  /** Path and query, as sent (secrets replaced). */
  path: string;
  headers: Record<string, string>;
  /** JSON body with secret-looking fields replaced; `undefined` when there was none. */
  body?: unknown;
}

export interface PlatformErrorInit {
  status?: number;
  method: string;
  path: string;
  platformMessage?: string;
  request: RedactedRequest;
  /** Raw response body text (redacted, truncated), for debugging. */
  responseBody?: string;
  /** Seconds to wait, parsed from Retry-After. */
  retryAfterSeconds?: number;
  cause?: unknown;
}

/**
 * Base of every error the client throws for a request. The message reads
 * `PUT /api/v1/deployments/12 -> 400: <platform message>`.
 */
export class PlatformError extends Error {
  override name = 'PlatformError';
  /** HTTP status, or undefined when no response arrived (connection, timeout). */
  readonly status: number | undefined;
  readonly method: string;
  /** Request path without the query string. */
  readonly path: string;
  /** The platform's `{ error }` message, when the body carried one. */
  readonly platformMessage: string | undefined;
  readonly request: RedactedRequest;
  readonly responseBody: string | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(init: PlatformErrorInit, message?: string) {
    super(message ?? formatMessage(init), init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.method = init.method;
    this.path = init.path;
    this.platformMessage = init.platformMessage;
    this.request = init.request;
    this.responseBody = init.responseBody;
    this.retryAfterSeconds = init.retryAfterSeconds;
  }
}

function formatMessage(init: PlatformErrorInit): string {
  const head = `${init.method} ${init.path} -> ${init.status ?? 'no response'}`;
  return init.platformMessage ? `${head}: ${init.platformMessage}` : head;
}

/** 400 or 422: the platform rejected the request's content. */
export class BadRequestError extends PlatformError {
  override name = 'BadRequestError';
}
/** 401: the credential is missing, malformed or expired. */
export class AuthenticationError extends PlatformError {
  override name = 'AuthenticationError';
}
/** 403: the credential is valid but not allowed here (scope, admin role, permission). */
export class PermissionDeniedError extends PlatformError {
  override name = 'PermissionDeniedError';
}
/** 404: no such resource (or the feature is disabled, as for usage analytics). */
export class NotFoundError extends PlatformError {
  override name = 'NotFoundError';
}
/** 409: the request conflicts with the resource's state. */
export class ConflictError extends PlatformError {
  override name = 'ConflictError';
}
/** 429: rate limited; `retryAfterSeconds` carries the server's hint. */
export class RateLimitError extends PlatformError {
  override name = 'RateLimitError';
}
/** 5xx: the platform failed. */
export class ServerError extends PlatformError {
  override name = 'ServerError';
}
/** Any other unexpected status (for example 408 or a 3xx). */
export class UnexpectedStatusError extends PlatformError {
  override name = 'UnexpectedStatusError';
}

/** No response: DNS, refused, reset, TLS failure. `sent` tells whether the request may have reached the server. */
export class ConnectionError extends PlatformError {
  override name = 'ConnectionError';
  /** False when the failure happened before any byte of the request could reach the server. */
  readonly sent: boolean;
  readonly code: string | undefined;
  constructor(init: PlatformErrorInit & { sent: boolean; code?: string }) {
    const detail = describeCause(init.cause);
    super(init, `${init.method} ${init.path} -> connection failed: ${detail}`);
    this.sent = init.sent;
    this.code = init.code;
  }
}

/** The per-request timeout elapsed before the response was complete. */
export class TimeoutError extends PlatformError {
  override name = 'TimeoutError';
  readonly timeoutMs: number;
  constructor(init: PlatformErrorInit & { timeoutMs: number }) {
    super(init, `${init.method} ${init.path} -> timed out after ${init.timeoutMs} ms`);
    this.timeoutMs = init.timeoutMs;
  }
}

/** The caller's AbortSignal fired. Never retried. */
export class AbortedError extends PlatformError {
  override name = 'AbortedError';
  constructor(init: PlatformErrorInit) {
    super(init, `${init.method} ${init.path} -> aborted`);
  }
}

/** A 2xx response whose body does not match the schema: names the field path. */
export class ResponseShapeError extends PlatformError {
  override name = 'ResponseShapeError';
  readonly issues: string[];
  constructor(init: PlatformErrorInit & { issues: string[] }) {
    super(init, `${init.method} ${init.path} -> ${init.status}: unexpected response: ${init.issues.join('; ')}`);
    this.issues = init.issues;
  }
}

/**
 * A 2xx answer that is the platform's web app (HTML) instead of JSON: the endpoint does not exist on
 * this tenant, which may run an older version of the platform. Never retried.
 */
export class NotAvailableError extends PlatformError {
  override name = 'NotAvailableError';
  constructor(init: PlatformErrorInit) {
    super(
      init,
      `${init.method} ${init.path} -> ${init.status}: this endpoint is not available on this tenant (it answered with the web app's HTML page instead of JSON); the tenant may run an older version of the platform`,
    );
  }
}

function describeCause(cause: unknown): string {
  if (cause instanceof Error) {
    const code = (cause as { code?: string }).code;
    const inner = (cause as { cause?: unknown }).cause;
    const base = code && !cause.message.includes(code) ? `${code} ${cause.message}` : cause.message;
    if (inner instanceof Error && !base.includes(inner.message)) return `${base} (${inner.message})`;
    return base;
  }
  return String(cause);
}

/** Map a status to the error class for it. */
export function errorClassForStatus(status: number): typeof PlatformError {
  if (status === 400 || status === 422) return BadRequestError;
  if (status === 401) return AuthenticationError;
  if (status === 403) return PermissionDeniedError;
  if (status === 404) return NotFoundError;
  if (status === 409) return ConflictError;
  if (status === 429) return RateLimitError;
  if (status >= 500) return ServerError;
  return UnexpectedStatusError;
}

/** Build the error for a non-2xx response, reading the platform's `{ error }` message from the body text. */
export function errorFromResponse(
  init: Omit<PlatformErrorInit, 'platformMessage' | 'responseBody'> & { status: number; bodyText: string; location?: string },
  redactor: Redactor,
): PlatformError {
  const bodyText = redactor.redactText(init.bodyText);
  const platformMessage = extractPlatformMessage(bodyText) ?? notTheApi(init.status, bodyText, init.location && redactor.redactText(init.location));
  const Cls = errorClassForStatus(init.status);
  return new Cls({
    ...init,
    platformMessage,
    responseBody: bodyText.length > 2000 ? `${bodyText.slice(0, 2000)}...` : bodyText,
  });
}

/** The longest platform message an error carries (one line). */
const MESSAGE_LIMIT = 800;

/** A JSON value that says something: a non-blank string, or a non-empty array or object (not a bare number or flag). */
function says(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() ? value.trim() : undefined;
  if (Array.isArray(value)) {
    const parts = value.map((v) => (typeof v === 'string' ? v.trim() : says(v))).filter((v): v is string => !!v);
    return parts.length ? parts.join('; ') : undefined;
  }
  if (value && typeof value === 'object') {
    const inner = (value as { message?: unknown }).message;
    if (says(inner)) return says(inner);
    return Object.keys(value).length ? JSON.stringify(value) : undefined;
  }
  return undefined;
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > MESSAGE_LIMIT ? `${flat.slice(0, MESSAGE_LIMIT - 1)}…` : flat;
}

/**
 * The platform's message in an error body: a non-empty `message` (a string, or an array joined), then
 * `error`, then SCIM's `detail`; else the body itself on one line. HTML pages are not a message.
 */
export function extractPlatformMessage(bodyText: string): string | undefined {
  const trimmed = bodyText.trim();
  if (!trimmed) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(trimmed);
  } catch {
    return isHtml(trimmed) ? undefined : oneLine(trimmed);
  }
  if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
    const o = parsed as Record<string, unknown>;
    const found = says(o.message) ?? says(o.error) ?? says(o.detail);
    if (found) return oneLine(found);
    return Object.keys(o).length ? oneLine(trimmed) : undefined;
  }
  return says(parsed) ? oneLine(trimmed) : undefined;
}

/** What a redirect or an HTML error page says, when the answer carries no message of the platform's. */
function notTheApi(status: number, bodyText: string, location: string | undefined): string | undefined {
  if (status >= 300 && status < 400) {
    return `redirected to ${location ?? 'another address'} (redirects are not followed: set api-url to the address the platform's API answers on)`;
  }
  if (!isHtml(bodyText)) return undefined;
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(bodyText)?.[1] ?? /<h1[^>]*>([^<]*)<\/h1>/i.exec(bodyText)?.[1];
  const named = title?.trim() ? ` "${oneLine(title).slice(0, 120)}"` : '';
  return `an HTML page${named} instead of the platform's JSON: a proxy or gateway in front of the platform answered`;
}

/** A body that is a web page (the platform's web app answers unknown routes with one). */
export function isHtml(text: string): boolean {
  const t = text.trimStart();
  return t.startsWith('<') && !t.startsWith('<?xml');
}
