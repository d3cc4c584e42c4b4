import { randomBytes } from 'node:crypto';
import { Agent as HttpsAgent } from 'node:https';
import type { SecureContext } from 'node:tls';
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { AbortedError, ConnectionError, InputError, PlatformError, TimeoutError, errorFromResponse, type RedactedRequest } from './errors.js';
import { Redactor, type SecretHook } from './redact.js';
import { loadCa, trustedContext } from './trust.js';
import { dispatcherTo, proxyRefusal, TunnelAgent } from './proxy.js';
import { deleteWithEmptyBody } from './empty-delete.js';
import { parseBaseUrl } from './base-url.js';
import { DEFAULT_RETRY, parseRetryAfter, repeatModeOf, retrying, type RetryInfo, type RetryPolicy } from './retry.js';
import { DEFAULTS } from '../defaults.js';
import { VERSION } from '../version.js';

import type { HttpMethod } from '@datamodel-ci/platform-api';
export type { HttpMethod };
export { parseBaseUrl };
/** How the key is sent: `Bearer <key>`, `Api-Key <key>`, or `raw` (the data API's token, as is). */
export type AuthScheme = 'bearer' | 'api-key' | 'raw';

/** Where debug lines go; the action layer wires this to `core.debug`. */
export interface Logger {
  debug(message: string): void;
}

export interface ClientOptions {
  /** `https://` origin of the tenant (a custom domain replaces the whole host). */
  baseUrl: string;
  /** API key, OAuth access token or SCIM token. */
  apiKey: string;
  /**
   * `bearer` sends `Authorization: Bearer <key>`, `api-key` sends `Authorization: Api-Key <key>`; unset,
   * the key decides (`authSchemeFor`).
   */
  authScheme?: AuthScheme;
  /** Extra trusted CA: PEM text, or the path of a PEM file. Added to the public roots and NODE_EXTRA_CA_CERTS. */
  ca?: string;
  /** Per-request timeout in ms (default 30 000). */
  timeoutMs?: number;
  /** Retry policy overrides. */
  retry?: Partial<RetryPolicy>;
  /** Transport override (an undici Dispatcher); by default a keep-alive Agent is made (through the proxy, if one applies). */
  dispatcher?: Dispatcher;
  /** Where HTTPS_PROXY/HTTP_PROXY and NO_PROXY are read (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  /** Parallel connections of the default Agent (default 16). */
  connections?: number;
  /** Told about every secret the client learns; wire to `core.setSecret`. */
  onSecret?: SecretHook;
  logger?: Logger;
  /** Source of randomness for jitter (tests). */
  random?: () => number;
  /** Extra product token appended to the user agent, e.g. `github-action`. */
  userAgentSuffix?: string;
  /** Told about every retry of every request (the CLI says when the platform cannot be reached). */
  onRetry?: (error: PlatformError, next: RetryInfo) => void;
}

export interface RequestOptions {
  /** Cancels the call (and any retry wait). */
  signal?: AbortSignal;
  /** Overrides the client's per-request timeout for this call. */
  timeoutMs?: number;
  /** Overrides the retry policy for this call. */
  retry?: Partial<RetryPolicy>;
  /** Repeating this write has the same effect as sending it once: retried like a GET. */
  repeatable?: boolean;
  /** Absolute time (ms since the epoch) after which no retry starts: the deadline of the whole operation. */
  deadline?: number;
  /** Told about every failure that is about to be retried (429, 5xx, a timeout): a caller can slow down. */
  onRetry?: (error: PlatformError, next: RetryInfo) => void;
  /** A failure that is the server's answer, not a passing fault: never retried (see `RetryRun.final`). */
  final?: (error: PlatformError) => boolean;
}

export interface RawRequest {
  method: HttpMethod;
  /** Path with query already expanded, e.g. `/api/v1/deployments?limit=20`. */
  path: string;
  /** JSON value (serialized here) or a prepared body. */
  json?: unknown;
  body?: { contentType: string; data: Buffer };
  headers?: Record<string, string>;
  /** POST/PATCH that the spec declares idempotent may be retried like GET. */
  idempotent?: boolean;
  /** Return the body as a stream instead of buffering it. */
  stream?: boolean;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  /** Buffered body text (absent when `stream` was asked for). */
  text?: string;
  /** Body stream (when `stream` was asked for); the caller must consume or destroy it. */
  body?: Readable;
}

export const DEFAULT_TIMEOUT_MS = DEFAULTS.requestTimeoutSeconds * 1000;

/** The scheme a key is sent with when none is set: platform API keys (`sk-…`) as `Api-Key`, tokens as `Bearer`. */
export function authSchemeFor(key: string): AuthScheme {
  return key.startsWith('sk-') ? 'api-key' : 'bearer';
}

const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);
function flatHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

function errorCode(error: unknown): string | undefined {
  let e: unknown = error;
  for (let i = 0; i < 4 && e && typeof e === 'object'; i++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code !== 'UND_ERR_SOCKET') return code;
    e = (e as { cause?: unknown }).cause;
  }
  const top = (error as { code?: unknown })?.code;
  return typeof top === 'string' ? top : undefined;
}

/**
 * The one wrapper that does all I/O: auth header, user agent, timeout, retries, error mapping and
 * redaction. Endpoint-aware code (`request.ts`) sits on top of it.
 */
export class HttpClient {
  readonly baseUrl: URL;
  readonly redactor: Redactor;
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  /** TLS context of a custom CA, shared by every connection. */
  private readonly secureContext: SecureContext | undefined;
  /** node:https pool of the bodyless DELETEs (made on first use). */
  private httpsAgent: HttpsAgent | undefined;
  /** The proxy the platform is reached through (HTTPS_PROXY, unless NO_PROXY exempts it). */
  readonly proxy: URL | undefined;
  private readonly authHeader: string;
  private readonly userAgent: string;
  private readonly timeoutMs: number;
  private readonly retry: RetryPolicy;
  private readonly logger: Logger;
  private readonly random: () => number;
  private readonly onRetry: ClientOptions['onRetry'];

  constructor(options: ClientOptions) {
    this.redactor = new Redactor(options.onSecret);
    if (typeof options.apiKey !== 'string' || options.apiKey.trim() === '') {
      throw new InputError('api-key', options.apiKey === '' ? '' : undefined, 'a non-empty API key or token');
    }
    const apiKey = options.apiKey.trim();
    if (/\s/.test(apiKey)) {
      throw new InputError('api-key', '(hidden)', 'a key without spaces or line breaks (pass the key only, not "Bearer <key>")');
    }
    this.redactor.add(apiKey);
    this.baseUrl = parseBaseUrl(options.baseUrl);
    const scheme = options.authScheme ?? authSchemeFor(apiKey);
    if (scheme !== 'bearer' && scheme !== 'api-key' && scheme !== 'raw') {
      throw new InputError('auth-scheme', scheme, '"bearer" or "api-key"');
    }
    this.authHeader = scheme === 'bearer' ? `Bearer ${apiKey}` : scheme === 'api-key' ? `Api-Key ${apiKey}` : apiKey;
    this.redactor.add(this.authHeader);
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
      throw new InputError('timeout', options.timeoutMs, 'a positive number of milliseconds');
    }
    this.timeoutMs = timeoutMs;
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.logger = options.logger ?? { debug: () => {} };
    this.random = options.random ?? Math.random;
    this.onRetry = options.onRetry;
    this.userAgent = `datamodel-ci/${VERSION}${options.userAgentSuffix ? ` ${options.userAgentSuffix}` : ''}`;
    if (options.dispatcher) {
      this.dispatcher = options.dispatcher;
      this.ownsDispatcher = false;
    } else {
      // One TLS context for every connection (and every client of the same CA): building it from ~150 CA
      // certificates takes ~20 ms of CPU, which `ca` alone would spend again on each new connection.
      this.secureContext = options.ca ? trustedContext(loadCa(options.ca)) : undefined;
      const tls = this.secureContext ? { secureContext: this.secureContext } : {};
      const pool = { connections: options.connections ?? 16, keepAliveTimeout: 10_000, keepAliveMaxTimeout: 60_000 };
      // Through a proxy the custom CA checks the platform at the end of the tunnel.
      ({ dispatcher: this.dispatcher, proxy: this.proxy } = dispatcherTo(this.baseUrl, tls, pool, options.env));
      if (this.proxy?.password) this.redactor.add(decodeURIComponent(this.proxy.password));
      this.ownsDispatcher = true;
    }
  }

  /** Whether the platform answered once (any status): retries of a never-answering host are kept short. */
  private answered = false;

  /** Close the connection pool (only the one this client made). */
  async close(): Promise<void> {
    this.httpsAgent?.destroy();
    if (this.ownsDispatcher) await this.dispatcher.close();
  }

  /** Send a request with the retry policy; throws a PlatformError subclass for every failure. */
  send(req: RawRequest, options: RequestOptions = {}): Promise<RawResponse> {
    return retrying(() => this.attempt(req, options), this.retryRun(req, options));
  }

  /** The retry run of one request (endpoint calls add their own `settle`). */
  retryRun<T>(req: RawRequest, options: RequestOptions, settle?: (error: PlatformError) => Promise<T | undefined>) {
    const pathOnly = req.path.split('?')[0] ?? req.path;
    return {
      policy: { ...this.retry, ...options.retry },
      mode: repeatModeOf(req.method, { repeatable: options.repeatable || req.idempotent, checked: settle !== undefined }),
      label: `${req.method} ${pathOnly}`,
      ...(options.deadline !== undefined ? { deadline: options.deadline } : {}),
      ...(settle ? { settle } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.final ? { final: options.final } : {}),
      onRetry: (error: PlatformError, next: RetryInfo) => {
        options.onRetry?.(error, next);
        this.onRetry?.(error, next);
      },
      debug: (m: string) => this.logger.debug(m),
      hostAnswered: () => this.answered,
      random: this.random,
      aborted: () => new AbortedError({ method: req.method, path: pathOnly, request: this.redactRequest(req, {}) }),
    };
  }

  /** A safe copy of a request for errors and logs. */
  redactRequest(req: RawRequest, headers: Record<string, string>): RedactedRequest {
    const safeHeaders: Record<string, string> = {};
    for (const [k, v] of Object.entries(headers)) {
      if (k.toLowerCase() === 'authorization') safeHeaders[k] = '***';
      else safeHeaders[k] = this.redactor.redactText(v);
    }
    const out: RedactedRequest = {
      method: req.method,
      path: this.redactor.redactText(req.path),
      headers: safeHeaders,
    };
    if (req.json !== undefined) out.body = this.redactor.redactValue(req.json);
    else if (req.body) out.body = `<${req.body.contentType}, ${req.body.data.length} bytes>`;
    return out;
  }

  /** A buffered answer: the response for a 2xx, else the error for its status. */
  private finish(
    req: RawRequest,
    status: number,
    headers: Record<string, string | string[] | undefined>,
    text: string,
    redacted: () => RedactedRequest,
  ): RawResponse {
    this.answered = true;
    const flat = flatHeaders(headers);
    if (status >= 200 && status < 300) return { status, headers: flat, text };
    throw errorFromResponse(
      {
        status,
        method: req.method,
        path: req.path.split('?')[0] ?? req.path,
        request: redacted(),
        bodyText: text,
        retryAfterSeconds: parseRetryAfter(flat['retry-after']),
        ...(flat.location ? { location: flat.location } : {}),
      },
      this.redactor,
    );
  }

  /** One attempt, no retry. */
  async attempt(req: RawRequest, options: RequestOptions = {}): Promise<RawResponse> {
    const pathOnly = req.path.split('?')[0] ?? req.path;
    const headers: Record<string, string> = {
      authorization: this.authHeader,
      'user-agent': this.userAgent,
      accept: req.stream ? '*/*' : 'application/json',
      ...req.headers,
    };
    let payload: Buffer | string | undefined;
    if (req.json !== undefined) {
      payload = JSON.stringify(req.json);
      headers['content-type'] = 'application/json';
    } else if (req.body) {
      payload = req.body.data;
      headers['content-type'] = req.body.contentType;
    } else if (req.method !== 'GET') {
      // A bodyless write states its empty body: some frontends answer 411 Length Required otherwise.
      payload = '';
      headers['content-length'] = '0';
    }
    const redacted = () => this.redactRequest(req, headers);
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(new Error('timeout')), timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout.signal]) : timeout.signal;
    // A path in api-url (a gateway serving the platform under /tenant-a) prefixes every request.
    const url = new URL(this.baseUrl.pathname.replace(/\/+$/, '') + req.path, this.baseUrl.origin);
    let sentStarted = false;
    let streaming = false;
    try {
      if (options.signal?.aborted) throw options.signal.reason;
      sentStarted = true;
      if (req.method === 'DELETE' && payload === '' && this.ownsDispatcher) {
        const agentOptions = { keepAlive: true, ...(this.secureContext ? { secureContext: this.secureContext } : {}) };
        this.httpsAgent ??= this.proxy ? new TunnelAgent(this.proxy, agentOptions) : new HttpsAgent(agentOptions);
        const res = await deleteWithEmptyBody(url, headers, this.httpsAgent, signal);
        return this.finish(req, res.statusCode, res.headers, res.text, redacted);
      }
      const res = await this.dispatcher.request({
        origin: url.origin,
        path: url.pathname + url.search,
        method: req.method,
        headers,
        body: payload,
        signal,
      });
      if (res.statusCode >= 200 && res.statusCode < 300 && req.stream) {
        // The timeout keeps running until the stream ends: a stalled download is aborted too.
        streaming = true;
        const done = () => clearTimeout(timer);
        res.body.once('close', done);
        res.body.once('end', done);
        res.body.once('error', done);
        return { status: res.statusCode, headers: flatHeaders(res.headers), body: res.body };
      }
      return this.finish(req, res.statusCode, res.headers, await res.body.text(), redacted);
    } catch (error) {
      if (error instanceof PlatformError) throw error;
      if (options.signal?.aborted) {
        throw new AbortedError({ method: req.method, path: pathOnly, request: redacted(), cause: error });
      }
      if (timeout.signal.aborted) {
        throw new TimeoutError({ method: req.method, path: pathOnly, request: redacted(), timeoutMs, cause: error });
      }
      const refused = this.proxy && proxyRefusal(error, this.proxy, url.host);
      if (refused) throw new ConnectionError({ method: req.method, path: pathOnly, request: redacted(), cause: refused, code: 'PROXY_REFUSED', sent: false });
      const code = errorCode(error);
      throw new ConnectionError({
        method: req.method,
        path: pathOnly,
        request: redacted(),
        cause: error,
        code,
        sent: sentStarted && !(code && NOT_SENT_CODES.has(code)),
      });
    } finally {
      if (!streaming) clearTimeout(timer);
    }
  }
}

/** Encode a multipart/form-data body from fields and files. */
export function encodeMultipart(
  fields: Record<string, string>,
  files: { field: string; fileName: string; data: Buffer; contentType?: string }[],
): { contentType: string; data: Buffer } {
  const boundary = `----datamodel-ci-${randomBytes(12).toString('hex')}`;
  const chunks: Buffer[] = [];
  const esc = (s: string) => s.replace(/[\r\n"]/g, (c) => encodeURIComponent(c));
  for (const [name, value] of Object.entries(fields)) {
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${esc(name)}"\r\n\r\n${value}\r\n`));
  }
  for (const f of files) {
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${esc(f.field)}"; filename="${esc(f.fileName)}"\r\n` +
          `Content-Type: ${f.contentType ?? 'application/octet-stream'}\r\n\r\n`,
      ),
    );
    chunks.push(f.data);
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { contentType: `multipart/form-data; boundary=${boundary}`, data: Buffer.concat(chunks) };
}
