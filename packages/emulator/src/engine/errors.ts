/** Refusals of the data API, with the statuses and bodies Cube's gateway sends. */

/** A body like `{ "error": "…" }`, and `type: "UserError"` for the compiler's own query errors. */
export interface ApiErrorBody {
  error: string;
  type?: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ApiErrorBody,
  ) {
    super(body.error);
  }
}

/** A query the gateway rejects itself (its format, its values): 400. */
export const userError = (message: string) => new ApiError(400, { error: message });

/** `Invalid query format: …`, the gateway's wording for a query that fails its schema. */
export const formatError = (detail: string) => userError(`Invalid query format: ${detail}`);

/** An error the gateway does not expect (a plain `Error`): 500 with its text, `Error: …`. */
export const internalError = (message: string) => new ApiError(500, { error: `Error: ${message}` });

/**
 * What the gateway answers for an error thrown while building or running a query: the compiler's
 * `UserError` (an unknown member) is 400 with its type; anything else 500 with the error as text.
 */
export function asApiError(e: unknown): ApiError {
  if (e instanceof ApiError) return e;
  if (e instanceof Error && (e as { type?: unknown }).type === 'UserError') return new ApiError(400, { type: 'UserError', error: e.message });
  return new ApiError(500, { error: String(e) });
}

/**
 * Profile `unknown-member-500`: a tenant whose gateway answers an unknown cube or member (the compiler's
 * `not found for path`) as an internal error, 500 with the error as text, instead of 400 `UserError`.
 */
export function unknownMemberAs500(e: ApiError): ApiError {
  if (e.status !== 400 || e.body.type !== 'UserError' || !/ not found for path '/.test(e.body.error)) return e;
  return new ApiError(500, { error: `Error: ${e.body.error}` });
}
