/**
 * A DELETE with an empty body, sent with `Content-Length: 0`. Some frontends answer a bodyless write
 * without the header with 411 Length Required (the vendor's CLI sends it for that reason), but undici
 * drops the header for DELETE, so this one request shape goes through node:https instead.
 */
import { request, type Agent } from 'node:https';

export interface EmptyDeleteResponse {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export function deleteWithEmptyBody(url: URL, headers: Record<string, string>, agent: Agent, signal: AbortSignal): Promise<EmptyDeleteResponse> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'DELETE', headers: { ...headers, 'content-length': '0' }, agent, signal }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ statusCode: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}
