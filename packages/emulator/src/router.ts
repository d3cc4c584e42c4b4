/**
 * The platform API: requests are routed with the contract's route table, their inputs checked with
 * its zod schemas, the caller authenticated and authorized, and the handler's answer checked against
 * the endpoint's response schema.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { allEndpoints, formatPath, InputError, parseInput, pathParams, type Endpoint } from '@datamodel-ci/platform-api';
import { z } from 'zod';
import { authenticate, authorize } from './auth.js';
import type { Clock } from './clock.js';
import { HttpError, isReply, profileOn, type Controls, type Ctx, type HandlerTable, type Principal } from './context.js';
import type { Engine } from './engine/index.js';
import { parseBody, readBody, send, sendText } from './http.js';
import { looseAnswer } from './loose.js';
import type { State } from './state.js';

/** Request bytes of one endpoint: the request as sent (before TLS), and the file parts of multipart bodies. */
export interface ByteTally {
  wire: number;
  files: number;
}

interface Route {
  endpoint: Endpoint;
  regex: RegExp;
  names: string[];
}

function compileRoutes(endpoints: Endpoint[]): Route[] {
  return endpoints.map((endpoint) => {
    const names = pathParams(endpoint.path);
    const pattern = endpoint.path
      .replace(/\/+$/, '')
      .split(/\{[^}]+\}/)
      .map((s) => s.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))
      .join('([^/]+)');
    return { endpoint, names, regex: new RegExp(`^${pattern}/?$`) };
  });
}

/** Keys of an object schema whose values are arrays (a single `?k=v` must still read as `[v]`). */
function arrayKeys(schema: z.ZodType | undefined): Set<string> {
  const out = new Set<string>();
  const shape = (schema as unknown as { shape?: Record<string, z.ZodType> } | undefined)?.shape;
  for (const [key, field] of Object.entries(shape ?? {})) {
    let t: unknown = field;
    for (let i = 0; i < 4 && !(t instanceof z.ZodArray) && typeof (t as { unwrap?: unknown }).unwrap === 'function'; i++) {
      t = (t as { unwrap(): unknown }).unwrap();
    }
    if (t instanceof z.ZodArray) out.add(key);
  }
  return out;
}

function queryObject(params: URLSearchParams, arrays: Set<string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of new Set(params.keys())) {
    const all = params.getAll(key);
    out[key] = all.length > 1 || arrays.has(key) ? all : all[0];
  }
  return out;
}

/** What the real host serves for an unknown route under the API prefixes: its web app, 200. */
const WEB_APP_PAGE = '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>Cube Cloud</title></head><body><div id="root"></div></body></html>\n';
const API_PREFIX = /^\/(?:build\/)?api\//;

/** The caller of a public endpoint: no key, no role, no permission. */
function anonymous(): Principal {
  return {
    key: { id: 'anonymous', key: '', userId: 0, kind: 'api', label: 'anonymous' },
    user: {
      id: 0,
      email: '',
      username: 'anonymous',
      firstName: '',
      lastName: '',
      isAdmin: false,
      permissions: [],
      active: true,
      createdAt: '',
      groupIds: [],
      settings: {},
    },
  };
}

export interface PlatformApi {
  state: State;
  clock: Clock;
  controls: Controls;
  engine: Engine;
  handlers: HandlerTable;
  /** Check every success answer against the endpoint's response schema. */
  checkResponses: boolean;
  /** Requests served, by endpoint id. */
  counts: Record<string, number>;
  bytes: Record<string, ByteTally>;
  /** Origin the emulator answers on, known once it listens. */
  origin(): string;
  /** Called after a request that may have changed the state. */
  changed(): void;
}

/** A request handler of the platform API. */
export function platformApi(api: PlatformApi): (req: IncomingMessage, res: ServerResponse, method: string, url: URL) => Promise<void> {
  const routes = compileRoutes(allEndpoints());
  const { state, clock, controls, engine, counts, bytes } = api;

  return async (req, res, method, url) => {
    const path = url.pathname;
    const candidates = routes.filter((r) => r.regex.test(path));
    if (candidates.length === 0) {
      if (API_PREFIX.test(path)) return sendText(res, 200, WEB_APP_PAGE, 'text/html; charset=utf-8');
      throw new HttpError(404, `no such endpoint: ${method} ${path}`);
    }
    const route = candidates.find((r) => r.endpoint.method === method);
    if (!route) {
      throw new HttpError(405, `${method} is not allowed on ${path}; allowed: ${candidates.map((c) => c.endpoint.method).join(', ')}`);
    }
    const e = route.endpoint;
    counts[e.id] = (counts[e.id] ?? 0) + 1;
    const raw = await readBody(req);
    const tally = (bytes[e.id] ??= { wire: 0, files: 0 });
    tally.wire += Buffer.byteLength(`${method} ${req.url ?? '/'} HTTP/${req.httpVersion}\r\n\r\n`) + raw.length;
    for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
      tally.wire += Buffer.byteLength(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}\r\n`);
    }

    const principal: Principal = e.access?.public ? anonymous() : authenticate(state, clock, e, req.headers.authorization);
    const m = route.regex.exec(path) as RegExpExecArray;
    const rawParams: Record<string, unknown> = {};
    route.names.forEach((n, i) => (rawParams[n] = decodeURIComponent(m[i + 1] as string)));

    let params: Record<string, unknown> = rawParams;
    let query: Record<string, unknown> = {};
    let body: unknown;
    try {
      if (e.params) params = parseInput(e.params, rawParams, '') as Record<string, unknown>;
      if (e.query) query = parseInput(e.query, queryObject(url.searchParams, arrayKeys(e.query)), 'query') as Record<string, unknown>;
      const parsedBody = await parseBody(e, req, raw);
      if (e.bodyType === 'multipart') {
        for (const v of Object.values(parsedBody as Record<string, unknown>)) if (Buffer.isBuffer(v)) tally.files += v.length;
      }
      if (e.body) body = parseInput(e.body, parsedBody, 'body');
      else body = parsedBody;
    } catch (error) {
      if (error instanceof InputError) throw new HttpError(400, error.message);
      throw error;
    }

    const deployment = authorize(state, e, principal, params);
    const handler = api.handlers[e.id];
    if (!handler) throw new HttpError(501, `the emulator does not implement ${e.id} (${e.method} ${e.path})`);
    const ctx: Ctx = { endpoint: e, state, clock, controls, engine, principal, params, query, body, origin: api.origin(), deployment };
    const result = await handler(ctx);
    if (method !== 'GET') api.changed();

    let status = e.status ?? 200;
    let payload: unknown = result;
    let headers: Record<string, string> = {};
    if (isReply(result)) {
      status = result.status ?? status;
      headers = result.headers ?? {};
      if (result.raw !== undefined) return sendText(res, status, result.raw, headers['content-type'], headers);
      payload = result.body;
    }
    if (e.responseType === 'empty') return send(res, status === 200 ? 204 : status, undefined, headers);
    if (api.checkResponses && status >= 200 && status < 300) {
      const check = e.response.safeParse(payload);
      if (!check.success) {
        const issues = check.error.issues.slice(0, 3).map((i) => `${formatPath('', i.path)}: ${i.message}`);
        throw new HttpError(500, `emulator bug: the answer of ${e.id} does not match its schema: ${issues.join('; ')}`);
      }
    }
    if (profileOn(api, 'loose-answers')) ({ status, payload } = looseAnswer(e, status, payload));
    send(res, status, payload, headers);
  };
}
