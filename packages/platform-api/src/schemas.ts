/**
 * Shared building blocks and the records of spec section 2. Every record is a loose object: unknown
 * fields are kept, a missing required field is an error naming its path. Types come from here
 * (`z.infer`), never written twice.
 */
import { z } from 'zod';

// ---------------------------------------------------------------------------------------------
// Primitives for path and query values: a caller passes numbers and booleans, a server receives
// strings; both parse to the same output.

/** An integer, or its decimal text (path and query values). */
export const Int = z
  .union([z.number().int(), z.string().regex(/^-?\d+$/, 'expected an integer')])
  .transform((v) => Number(v))
  .meta({ type: 'integer' });

/** A positive integer (ids, page sizes). */
export const PosInt = Int.refine((n) => n >= 1, 'expected an integer of at least 1');

/** A non-negative integer (offsets). */
export const NonNegInt = Int.refine((n) => n >= 0, 'expected an integer of at least 0');

/** A boolean, or `true`/`false` text (query values). */
export const Bool = z
  .union([z.boolean(), z.enum(['true', 'false'])])
  .transform((v) => v === true || v === 'true')
  .meta({ type: 'boolean' });

/** A non-empty string (path values). */
export const Name = z.string().min(1, 'expected a non-empty string');

/** An id that the platform gives as a number in one place and a string in another. */
export const IdLike = z.union([z.number().int(), z.string()]);

/** Any JSON object, kept as is. */
export const AnyObject = z.record(z.string(), z.unknown());

/** A record known only by name: any object, fields kept. */
export const OpaqueRecord = z.looseObject({});

export const Timestamp = z.string();

// ---------------------------------------------------------------------------------------------
// Path parameter sets.

export const DeploymentParams = z.object({ deploymentId: PosInt });
export const IdParams = z.object({ id: PosInt });

// ---------------------------------------------------------------------------------------------
// Envelopes (spec section 4).

/** 2.4 PageInfo. */
export const PageInfo = z.looseObject({
  hasNextPage: z.boolean(),
  hasPreviousPage: z.boolean(),
  startCursor: z.string().nullish(),
  endCursor: z.string().nullish(),
});
export type PageInfo = z.infer<typeof PageInfo>;

/** Offset-style `pagination: { offset, limit, total }`. */
export const Pagination = z.looseObject({
  offset: z.number().int(),
  limit: z.number().int(),
  total: z.number().int(),
});
export type Pagination = z.infer<typeof Pagination>;

/** Query of offset-style lists (defaults 0 and 20 are the server's). */
export const OffsetQuery = z.object({
  offset: NonNegInt.optional(),
  limit: NonNegInt.optional(),
});

/** Query of cursor-style lists. */
export const CursorQuery = z.object({
  first: PosInt.optional(),
  after: z.string().optional(),
});

/**
 * Cursor list `{ items, pageInfo }`. The deprecated `data` / `count` are tolerated: when a server
 * sends only the legacy `data` array, it is read as `items`.
 */
export function cursorPage<T extends z.ZodType>(item: T) {
  return z.preprocess(
    (v) => {
      if (v && typeof v === 'object' && !Array.isArray(v)) {
        const o = v as Record<string, unknown>;
        if (o.items === undefined && Array.isArray(o.data)) return { ...o, items: o.data };
      }
      return v;
    },
    z.looseObject({
      items: z.array(item),
      pageInfo: PageInfo.nullish(),
      data: z.unknown().optional(),
      count: z.number().nullish(),
      pagination: z.unknown().optional(),
    }),
  );
}

/** `{ data: T }`. */
export function dataOf<T extends z.ZodType>(inner: T) {
  return z.looseObject({ data: inner });
}

/** The `{ success }` answer of build-API writes (`DataModelWriteResponse`). */
export const WriteResponse = z.looseObject({ success: z.boolean() });
export type WriteResponse = z.infer<typeof WriteResponse>;

/** Error body of the control plane (spec 7.1). */
export const ErrorBody = z.looseObject({ error: z.string() });

// ---------------------------------------------------------------------------------------------
// 2.1–2.3 Notifications.

export const DashboardFilterOperator = z.enum([
  'equals',
  'not_equals',
  'greater_than',
  'greater_than_or_equal',
  'less_than',
  'less_than_or_equal',
  'contains',
  'not_contains',
  'starts_with',
  'not_starts_with',
  'ends_with',
  'not_ends_with',
  'is_null',
  'is_not_null',
  'is_empty',
  'is_not_empty',
  'between',
  'custom',
]);

export const DashboardFilter = z.looseObject({
  member: z.string(),
  operator: DashboardFilterOperator.nullish(),
  value: z.union([z.string(), z.number(), z.boolean(), z.array(z.unknown())]).nullish(),
  caseSensitive: z.unknown().optional(),
  startInclusive: z.unknown().optional(),
  endInclusive: z.unknown().optional(),
});
export type DashboardFilter = z.infer<typeof DashboardFilter>;

export const DashboardTimeGrain = z.looseObject({ member: z.string(), grain: z.string() });
export type DashboardTimeGrain = z.infer<typeof DashboardTimeGrain>;

export const Notification = z.looseObject({
  id: z.number().int(),
  dashboardId: z.number().int(),
  deploymentId: z.number().int(),
  cronExpression: z.string(),
  timezone: z.string(),
  isEnabled: z.boolean(),
  humanReadableSchedule: z.string(),
  notificationEnabled: z.boolean(),
  notificationFormat: z.string(),
  notificationAiSummary: z.boolean(),
  filters: z.array(DashboardFilter).nullish(),
  timeGrains: z.array(DashboardTimeGrain).nullish(),
});
export type Notification = z.infer<typeof Notification>;

// ---------------------------------------------------------------------------------------------
// 2.5 Deployments, 2.6 environments, 2.7 metadata token.

/** 2.5: the spec gives `id` as a string; the vendor file as an integer. Both are accepted. */
export const DeploymentListItem = z.looseObject({
  id: IdLike,
  name: z.string(),
  created_at: Timestamp.optional(),
  deploymentUrl: z.string().optional(),
});
export type DeploymentListItem = z.infer<typeof DeploymentListItem>;

export const EnvironmentType = z.enum(['production', 'staging', 'development']);

/** One entry of the vendor's `api_credentials` array. */
export const ApiCredential = z.looseObject({
  type: z.string(),
  url: z.string().nullish(),
  host: z.string().nullish(),
  port: z.number().int().nullish(),
  database: z.string().nullish(),
  version: z.number().int().optional(),
});

/** The spec's object form: `api_credentials.rest.url`, `api_credentials.sql.host|port`. */
export const ApiCredentialsObject = z.looseObject({
  rest: z.looseObject({ url: z.string() }).partial().optional(),
  sql: z.looseObject({ host: z.string(), port: z.number().int() }).partial().optional(),
});

/** 2.6 Environment. `api_credentials` is an object in the spec and an array in the vendor file: both accepted. */
export const Environment = z.looseObject({
  id: IdLike,
  name: z.string().optional(),
  type: z.string(),
  branch: z.string().nullish(),
  user: z.string().nullish(),
  api_credentials: z.union([ApiCredentialsObject, z.array(ApiCredential)]).optional(),
});
export type Environment = z.infer<typeof Environment>;

/** The REST URL of an environment, whichever form its credentials take. */
export function environmentRestUrl(env: Environment): string | undefined {
  const creds = env.api_credentials;
  if (!creds) return undefined;
  if (Array.isArray(creds)) return creds.find((c) => c.type === 'rest')?.url ?? undefined;
  return creds.rest?.url;
}

export const MetadataToken = z.looseObject({
  token: z.string(),
  created_at: Timestamp,
  expires_at: Timestamp,
});
export type MetadataToken = z.infer<typeof MetadataToken>;

// ---------------------------------------------------------------------------------------------
// 2.8 Branch, 2.9 version, 2.10 usage-analytics token, 2.11 SCIM group.

export const Branch = z.looseObject({
  id: z.number().int(),
  name: z.string(),
  parentBranch: z.string().nullish(),
  lastHash: z.string().nullish(),
  isStagingEnvironmentEnabled: z.boolean().nullish(),
});
export type Branch = z.infer<typeof Branch>;

export const DeploymentVersion = z.looseObject({
  releaseChannelVersion: z.string(),
  version: z.string(),
  releaseChannel: z.string(),
  isLatestInChannel: z.boolean(),
  isCurrent: z.boolean(),
});
export type DeploymentVersion = z.infer<typeof DeploymentVersion>;

export const UsageAnalyticsToken = z.looseObject({
  apiUrl: z.string(),
  deploymentId: z.number().int(),
  token: z.string(),
  expiresAt: z.string().nullish(),
});
export type UsageAnalyticsToken = z.infer<typeof UsageAnalyticsToken>;

export const SCIM_GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
export const SCIM_USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const SCIM_LIST_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';

export const ScimGroup = z.looseObject({
  schemas: z.array(z.string()),
  displayName: z.string(),
  id: z.string(),
  members: z.array(z.looseObject({ value: z.string(), display: z.string().optional() })).optional(),
  meta: z
    .looseObject({
      resourceType: z.string().optional(),
      created: z.string().optional(),
      lastModified: z.string().optional(),
      location: z.string().optional(),
    })
    .optional(),
});
export type ScimGroup = z.infer<typeof ScimGroup>;
