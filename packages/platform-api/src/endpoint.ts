import type { z } from 'zod';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Who may call an endpoint; the emulator enforces it and the docs list it. */
export interface AccessRule {
  /** Only a user with the admin role. */
  admin?: boolean;
  /** Permissions the principal must hold. */
  permissions?: Permission[];
  /** SCIM token instead of an API key. */
  scim?: boolean;
  /** No credential: the request itself carries one (a single-use session id). */
  public?: boolean;
}

export type Permission = 'SchemaRead' | 'SchemaUpdate' | 'SchemaUpdateDevBranches' | 'DeploymentRead' | 'AuditLogManage';

/**
 * One operation of the platform API, described once and used by the client (typed call, input
 * checks, response parsing), the emulator (routing, validation) and the OpenAPI document.
 */
export interface Endpoint {
  /** Operation id: the vendor's where it has one. */
  readonly id: string;
  readonly method: HttpMethod;
  /** Path template with `{name}` placeholders. */
  readonly path: string;
  /** Spec section that lists it (`4.1` … `4.15`). */
  readonly section: string;
  readonly summary: string;
  /** Path parameters (an object schema whose keys match the placeholders). */
  readonly params?: z.ZodType;
  readonly query?: z.ZodType;
  readonly body?: z.ZodType;
  /** `json` (default) or `multipart` for file upload. */
  readonly bodyType?: 'json' | 'multipart';
  /** Parsed answer (ignored for `empty`; the text itself for `csv` when not streamed). */
  readonly response: z.ZodType;
  /** `json` (default), `csv` (text, or streamed), `binary` (streamed only) or `empty` (204). */
  readonly responseType?: 'json' | 'csv' | 'binary' | 'empty';
  /** Success status (default 200). */
  readonly status?: number;
  /** A POST the spec declares idempotent (retried like GET). */
  readonly idempotent?: boolean;
  readonly access?: AccessRule;
  /** List style, for the pagination helpers. */
  readonly pagination?: 'offset' | 'cursor';
}

/** Keep the literal types of a definition. */
export function endpoint<const E extends Endpoint>(e: E): E {
  return e;
}

type Input<S> = S extends z.ZodType ? z.input<S> : never;
type Output<S> = S extends z.ZodType ? z.output<S> : never;
type Empty = Record<never, never>;

type ParamsPart<E extends Endpoint> = E['params'] extends z.ZodType ? Input<E['params']> : Empty;
type QueryPart<E extends Endpoint> = E['query'] extends z.ZodType
  ? Empty extends Input<E['query']>
    ? { query?: Input<E['query']> }
    : { query: Input<E['query']> }
  : Empty;
type BodyPart<E extends Endpoint> = E['body'] extends z.ZodType
  ? undefined extends Input<E['body']>
    ? { body?: Input<E['body']> }
    : { body: Input<E['body']> }
  : Empty;

/** What a caller passes: path parameters at the top level, plus `query` and `body`. */
export type ArgsOf<E extends Endpoint> = ParamsPart<E> & QueryPart<E> & BodyPart<E>;
/** What a call returns: the parsed response. */
export type ResultOf<E extends Endpoint> = Output<E['response']>;

/** Placeholders of a path template, in order. */
export function pathParams(template: string): string[] {
  return [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string);
}
