import { posix } from 'node:path';
import type { Readable } from 'node:stream';
import { InputError, formatPath, issueText, parseInput, pathParams, type ArgsOf, type Endpoint, type ResultOf } from '@datamodel-ci/platform-api';
import { NotAvailableError, ResponseShapeError, isHtml, type PlatformError } from './errors.js';
import { retrying } from './retry.js';
import { encodeMultipart, type HttpClient, type RawRequest, type RequestOptions } from './http.js';
import { iterateCursor, type CursorPageResult } from './pagination.js';

/** A value as the wire spells it in a query, a path or a form field: a scalar printed, an object as JSON. */
function wireText(v: unknown): string {
  return typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v);
}

/** Serialize a query object: undefined/null dropped, arrays repeated, objects as JSON. */
export function encodeQuery(query: Record<string, unknown> | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined || v === null) continue;
    if (Array.isArray(v)) for (const item of v) params.append(k, String(item));
    else params.append(k, wireText(v));
  }
  const s = params.toString();
  return s ? `?${s}` : '';
}

/** Expand a path template with checked, encoded parameter values. */
export function buildPath(e: Endpoint, args: Record<string, unknown>): string {
  const names = pathParams(e.path);
  const parsed = e.params ? (parseInput(e.params, pick(args, names), '') as Record<string, unknown>) : {};
  let path = e.path;
  for (const name of names) {
    const value = parsed[name] ?? args[name];
    if (value === undefined || value === null || value === '') {
      throw new InputError(name, value, `a value for {${name}} in ${e.method} ${e.path}`);
    }
    path = path.replace(`{${name}}`, encodeURIComponent(wireText(value)));
  }
  return path;
}

function pick(args: Record<string, unknown>, names: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const n of names) if (n in args) out[n] = args[n];
  return out;
}

function isPlain(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === 'object' && !Array.isArray(v) && !Buffer.isBuffer(v);
}

/** The parsed body with its keys in the caller's order (a body is sent as given, not in the schema's order). */
function inCallerOrder(given: unknown, parsed: unknown): unknown {
  if (Array.isArray(given) && Array.isArray(parsed)) return parsed.map((v, i) => inCallerOrder(given[i], v));
  if (!isPlain(given) || !isPlain(parsed)) return parsed;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(given)) if (k in parsed) out[k] = inCallerOrder(given[k], parsed[k]);
  for (const k of Object.keys(parsed)) if (!(k in out)) out[k] = parsed[k];
  return out;
}

/** Build the raw request for an endpoint call, checking every input before anything is sent. */
export function prepare(e: Endpoint, args: Record<string, unknown> = {}): RawRequest {
  const path = buildPath(e, args);
  const query = e.query ? (parseInput(e.query, args.query ?? {}, 'query') as Record<string, unknown>) : undefined;
  const req: RawRequest = { method: e.method, path: path + encodeQuery(query), idempotent: e.idempotent };
  if (e.body) {
    const body = parseInput(e.body, args.body, 'body');
    if (e.bodyType === 'multipart') {
      const { file, ...fields } = body as { file: Buffer | string } & Record<string, unknown>;
      const strFields: Record<string, string> = {};
      for (const [k, v] of Object.entries(fields)) if (v !== undefined && v !== null) strFields[k] = wireText(v);
      const data = Buffer.isBuffer(file) ? file : Buffer.from(String(file));
      // The part's own filename is the base name; the `fileName` field carries the path (as the vendor's clients send it).
      req.body = encodeMultipart(strFields, [{ field: 'file', fileName: posix.basename(wireText(fields.fileName ?? 'file')), data }]);
    } else if (body !== undefined) {
      req.json = inCallerOrder(args.body, body);
    }
  }
  if (e.responseType === 'csv') req.headers = { accept: 'text/csv' };
  if (e.responseType === 'binary') req.headers = { accept: '*/*' };
  return req;
}

/** Parse a JSON response body with the endpoint's schema. */
export function parseResponse<E extends Endpoint>(http: HttpClient, e: E, req: RawRequest, status: number, text: string): ResultOf<E> {
  const pathOnly = req.path.split('?')[0] ?? req.path;
  // A CSV answer, buffered (callStream streams it instead).
  if (e.responseType === 'csv') return text as ResultOf<E>;
  if (e.responseType === 'empty') return undefined as ResultOf<E>;
  if (text.trim() === '') {
    const r = e.response.safeParse(undefined);
    if (r.success) return r.data as ResultOf<E>;
    // An empty 2xx body where a record was expected: accept an empty object if the schema does.
    const o = e.response.safeParse({});
    if (o.success) return o.data as ResultOf<E>;
  }
  if (isHtml(text)) throw new NotAvailableError({ status, method: req.method, path: pathOnly, request: http.redactRequest(req, {}) });
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ResponseShapeError({
      status,
      method: req.method,
      path: pathOnly,
      request: http.redactRequest(req, {}),
      responseBody: http.redactor.redactText(text.slice(0, 500)),
      issues: ['body is not JSON'],
    });
  }
  http.redactor.harvest(json);
  const result = e.response.safeParse(json);
  if (!result.success) {
    throw new ResponseShapeError({
      status,
      method: req.method,
      path: pathOnly,
      request: http.redactRequest(req, {}),
      responseBody: http.redactor.redactText(text.slice(0, 2000)),
      issues: result.error.issues.slice(0, 5).map((i) => `${formatPath('', i.path)}: ${issueText(i)}`),
    });
  }
  return result.data as ResultOf<E>;
}

/** Options of an endpoint call: the transport's, plus how to tell that a write whose answer was lost took effect. */
export interface CallOptions<T = unknown> extends RequestOptions {
  /**
   * Check the platform for this write's effect after an attempt whose outcome is unknown (5xx, timeout,
   * lost connection), or after a repeat fails for good: return the result to use when it landed,
   * undefined when it did not (it is then repeated). Makes a write safe to retry.
   */
  settle?: (error: PlatformError) => Promise<T | undefined>;
}

/** Call one endpoint: check inputs, send with the retry policy, parse the answer. */
export async function call<E extends Endpoint>(http: HttpClient, e: E, args: ArgsOf<E>, options: CallOptions<ResultOf<E>> = {}): Promise<ResultOf<E>> {
  if (e.responseType === 'binary') throw new Error(`${e.method} ${e.path} answers a binary stream: use callStream`);
  const req = prepare(e, args);
  // Secrets the caller sends (passwords, client secrets) are masked too if a server echoes them.
  http.redactor.harvest(req.json);
  const { settle, ...transport } = options;
  return retrying(
    async () => {
      const res = await http.attempt(req, transport);
      return parseResponse(http, e, req, res.status, res.text ?? '');
    },
    http.retryRun(req, transport, settle),
  );
}

/** Call an endpoint whose answer is a stream (CSV export). */
export async function callStream<E extends Endpoint>(
  http: HttpClient,
  e: E,
  args: ArgsOf<E>,
  options?: RequestOptions,
): Promise<{ headers: Record<string, string>; body: Readable }> {
  const req = { ...prepare(e, args), stream: true };
  http.redactor.harvest(req.json);
  const res = await http.send(req, options);
  if (!res.body) throw new Error(`${e.method} ${e.path}: expected a streamed body`);
  return { headers: res.headers, body: res.body };
}

/** A method per endpoint of a table. */
export type BoundEndpoints<T extends Record<string, Endpoint>> = {
  [K in keyof T]: Record<never, never> extends ArgsOf<T[K]>
    ? (args?: ArgsOf<T[K]>, options?: CallOptions<ResultOf<T[K]>>) => Promise<ResultOf<T[K]>>
    : (args: ArgsOf<T[K]>, options?: CallOptions<ResultOf<T[K]>>) => Promise<ResultOf<T[K]>>;
};

/** Turn an endpoint table into methods bound to a transport. */
export function bind<T extends Record<string, Endpoint>>(http: HttpClient, table: T): BoundEndpoints<T> {
  const out: Record<string, unknown> = {};
  for (const [name, e] of Object.entries(table)) {
    out[name] = (args: ArgsOf<Endpoint>, options?: CallOptions) => call(http, e, args ?? {}, options);
  }
  return out as BoundEndpoints<T>;
}

/** One item of a cursor list's page. */
export type CursorItemOf<E extends Endpoint> = ResultOf<E> extends { items: (infer T)[] } ? T : never;

type QueryOf<E extends Endpoint> = ArgsOf<E> extends { query?: infer Q } ? NonNullable<Q> : Record<never, never>;

/** Arguments of an iterator: the list's own arguments, minus the cursor (the iterator owns it). */
export type IterateArgs<E extends Endpoint> = Omit<ArgsOf<E>, 'query'> & { query?: Omit<QueryOf<E>, 'after'> };

/** An iterator over every item of a cursor list endpoint, across pages. */
export function cursorIterator<E extends Endpoint>(http: HttpClient, e: E) {
  return (args: IterateArgs<E> = {} as IterateArgs<E>, options?: RequestOptions): AsyncGenerator<CursorItemOf<E>, void, undefined> =>
    iterateCursor<CursorItemOf<E>>(async (after) => {
      const query = { ...(args.query as Record<string, unknown> | undefined), after };
      const page = await call(http, e, { ...args, query } as unknown as ArgsOf<E>, options);
      return page as unknown as CursorPageResult<CursorItemOf<E>>;
    });
}
