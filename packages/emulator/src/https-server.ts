/** A real HTTPS server on 127.0.0.1, port 0, that records every request: the client under test talks to it. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { makeLocalTls, type LocalTls } from './tls.js';

export interface RecordedRequest {
  method: string;
  url: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: Buffer;
  /** Body parsed as JSON when it is JSON. */
  json?: unknown;
}

export type Handler = (req: RecordedRequest, res: ServerResponse) => void | Promise<void>;

export interface TestServer {
  baseUrl: string;
  ca: string;
  tls: LocalTls;
  requests: RecordedRequest[];
  /** Replace the handler. */
  handle(handler: Handler): void;
  close(): Promise<void>;
}

let shared: Promise<LocalTls> | undefined;
/** One CA per test file run (generation is cheap, but there is no need to repeat it). */
export function testTls(): Promise<LocalTls> {
  shared ??= makeLocalTls(['127.0.0.1', 'localhost']);
  return shared;
}

/** Send a JSON answer. */
export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

export async function startTestServer(handler: Handler = (_q, r) => json(r, 200, {})): Promise<TestServer> {
  const tls = await testTls();
  let current = handler;
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'https://127.0.0.1');
      const body = Buffer.concat(chunks);
      const rec: RecordedRequest = {
        method: req.method ?? 'GET',
        url: req.url ?? '/',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body,
      };
      if (String(req.headers['content-type'] ?? '').includes('json') && body.length) {
        try {
          rec.json = JSON.parse(body.toString('utf8'));
        } catch {
          // leave undefined
        }
      }
      requests.push(rec);
      Promise.resolve(current(rec, res)).catch((e: unknown) => {
        if (!res.headersSent) json(res, 500, { error: `test handler failed: ${String(e)}` });
      });
    });
  });
  server.on('secureConnection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `https://127.0.0.1:${port}`,
    ca: tls.ca,
    tls,
    requests,
    handle(h) {
      current = h;
    },
    close() {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
