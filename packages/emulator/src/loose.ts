/**
 * Profile `loose-answers`: a handler's answer in the other forms a real service may send where the
 * vendor's file leaves the form open: a write accepted with 202, a delete answered 204 with no body,
 * numeric ids as text, dates as HTTP dates (RFC 9110), a field nobody documented.
 */
import type { Endpoint } from '@datamodel-ci/platform-api';

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const ID_KEY = /^(id|[a-z][A-Za-z]*Id)$/;

function loosen(value: unknown, key: string | undefined): unknown {
  if (Array.isArray(value)) return value.map((v) => loosen(v, undefined));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, loosen(v, k)]));
  }
  if (typeof value === 'number' && Number.isInteger(value) && key && ID_KEY.test(key)) return String(value);
  if (typeof value === 'string' && ISO_DATE_TIME.test(value)) return new Date(value).toUTCString();
  return value;
}

/** Is a response schema a map (`file-hashes`)? Its keys are data: an extra field would be a bad entry, not an unknown field. */
function isMap(schema: unknown): boolean {
  let def = (schema as { _zod?: { def?: Record<string, unknown> } })?._zod?.def;
  for (let i = 0; i < 4 && def; i++) {
    if (def.type === 'record') return true;
    if (def.type !== 'pipe') return false;
    def = (def.out as { _zod?: { def?: Record<string, unknown> } })?._zod?.def;
  }
  return false;
}

/** The answer as a loose tenant sends it: `undefined` payload means no body. */
export function looseAnswer(e: Endpoint, status: number, payload: unknown): { status: number; payload: unknown } {
  if (status !== 200) return { status, payload };
  if (e.method === 'DELETE') return { status: 204, payload: undefined };
  const body = loosen(payload, undefined);
  const object = body && typeof body === 'object' && !Array.isArray(body) && !isMap(e.response);
  const extra = object ? { ...body, requestTrace: { region: 'us-east-1', node: 'api-3' } } : body;
  return { status: e.method === 'GET' ? 200 : 202, payload: extra };
}

/** `Retry-After` as an HTTP date this many seconds ahead. */
export function retryAfterDate(seconds: number, now = Date.now()): string {
  return new Date(now + seconds * 1000).toUTCString();
}
