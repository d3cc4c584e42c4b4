/** What the stand-in hands each of its services for one request, and the answers they share. */
import type { ServerResponse } from 'node:http';
import { json, type RecordedRequest } from '../https-server.js';
import { errorBody } from './shapes.js';
import type { Caller } from './tokens.js';

/** One request, matched to an operation of GitHub's REST description and allowed for its caller. */
export interface Exchange {
  req: RecordedRequest;
  res: ServerResponse;
  operationId: string;
  /** Path parameters, decoded. */
  params: Record<string, string>;
  /** `owner/repo` as the path spells it. */
  fullName: string;
  caller: Caller;
  /** API root, for the URLs in answers. */
  base: string;
}

/** Serves some operations: answers and returns true, or returns false for an operation not its own. */
export type Route = (x: Exchange) => boolean;

export function notFound(res: ServerResponse): void {
  json(res, 404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest', status: '404' });
}

/** A 422 that is not a malformed request (a ref that does not exist): no violation. */
export function unprocessable(res: ServerResponse, message: string, docs?: string): void {
  json(res, 422, errorBody(422, message, docs));
}

/** The request's JSON body as an object (the description check has already vouched for its shape). */
export function bodyOf<T>(req: RecordedRequest): Partial<T> {
  const body = req.json;
  return body !== null && typeof body === 'object' && !Array.isArray(body) ? body : {};
}
