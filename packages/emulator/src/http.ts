/** Request and response plumbing of the emulator's HTTPS server: bodies in, JSON out. */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Endpoint } from '@datamodel-ci/platform-api';
import { HttpError } from './context.js';

export async function readBody(req: IncomingMessage, limit = 64 * 1024 * 1024): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new HttpError(413, `request body over ${limit} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** The body as the endpoint takes it: multipart fields (files as bytes), JSON, or nothing. */
export async function parseBody(endpoint: Endpoint, req: IncomingMessage, raw: Buffer): Promise<unknown> {
  const type = String(req.headers['content-type'] ?? '');
  if (endpoint.bodyType === 'multipart') {
    if (!type.startsWith('multipart/form-data')) {
      throw new HttpError(400, `body: got content type "${type}", expected multipart/form-data`);
    }
    const form = await new Response(raw, { headers: { 'content-type': type } }).formData().catch(() => {
      throw new HttpError(400, 'body: malformed multipart/form-data');
    });
    const out: Record<string, unknown> = {};
    for (const [k, v] of form.entries()) {
      out[k] = typeof v === 'string' ? v : Buffer.from(await v.arrayBuffer());
    }
    return out;
  }
  if (raw.length === 0) return undefined;
  if (!type.includes('json')) throw new HttpError(400, `body: got content type "${type}", expected application/json`);
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch (e) {
    throw new HttpError(400, `body: malformed JSON (${(e as Error).message})`);
  }
}

export function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  if (status === 204 || body === undefined) {
    res.writeHead(status, headers);
    res.end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), ...headers });
  res.end(text);
}

/** A body that is not JSON (HTML, CSV, bytes), as is. */
export function sendText(
  res: ServerResponse,
  status: number,
  body: string | Buffer,
  contentType: string | undefined,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent || res.destroyed) return;
  const typed = contentType ? { 'content-type': contentType } : {};
  res.writeHead(status, { ...typed, 'content-length': String(Buffer.byteLength(body)), ...headers });
  res.end(body);
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** A write that states no body length at all: some real frontends (Google's) refuse it. */
export function lacksLength(method: string, headers: IncomingHttpHeaders): boolean {
  return WRITES.has(method) && headers['content-length'] === undefined && headers['transfer-encoding'] === undefined;
}
