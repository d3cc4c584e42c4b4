/** SCIM 2.0 provisioning of groups and users (spec 2.11, 4.11; RFC 7643/7644 where the spec is silent). */
import { z } from 'zod';
import { endpoint } from '../endpoint.js';
import { Name, NonNegInt, PosInt, SCIM_GROUP_SCHEMA, ScimGroup } from '../schemas.js';

const SCIM = '/api/scim/v2';
const ACCESS = { scim: true } as const;

/** SCIM ids are strings. */
export const ScimIdParams = z.object({ id: Name });

/** List query (RFC 7644 3.4.2): `startIndex` is 1-based, `count` may be 0 (totals only). */
export const ScimListQuery = z.object({
  startIndex: PosInt.optional(),
  count: NonNegInt.optional(),
  filter: z.string().min(1).optional(),
});

export const ScimMeta = z.looseObject({
  resourceType: z.string().optional(),
  created: z.string().optional(),
  lastModified: z.string().optional(),
  location: z.string().optional(),
  version: z.string().optional(),
});

/** A SCIM core user (RFC 7643 4.1): `id` and `userName` are always present. */
export const ScimUser = z.looseObject({
  schemas: z.array(z.string()).optional(),
  id: z.string(),
  userName: z.string(),
  externalId: z.string().nullish(),
  displayName: z.string().nullish(),
  active: z.boolean().nullish(),
  name: z
    .looseObject({
      formatted: z.string().nullish(),
      givenName: z.string().nullish(),
      familyName: z.string().nullish(),
    })
    .nullish(),
  emails: z
    .array(z.looseObject({ value: z.string(), type: z.string().nullish(), primary: z.boolean().nullish() }))
    .nullish(),
  groups: z.array(z.looseObject({ value: z.string(), display: z.string().nullish() })).nullish(),
  meta: ScimMeta.nullish(),
});
export type ScimUser = z.infer<typeof ScimUser>;

/** The standard ListResponse (RFC 7644 3.4.2); a page without `Resources` is read as empty. */
export function scimListResponse<T extends z.ZodType>(item: T) {
  return z.looseObject({
    schemas: z.array(z.string()).optional(),
    totalResults: z.number().int(),
    startIndex: z.number().int().optional(),
    itemsPerPage: z.number().int().optional(),
    Resources: z.array(item).default([]),
  });
}

/** 4.11 body: the group schema urn and a display name. */
export const CreateScimGroupInput = z.looseObject({
  schemas: z.array(z.string()).refine((s) => s.includes(SCIM_GROUP_SCHEMA), {
    message: `a list containing ${SCIM_GROUP_SCHEMA}`,
  }),
  displayName: z.string().min(1),
  externalId: z.string().nullish(),
  members: z.array(z.looseObject({ value: z.string(), display: z.string().optional() })).optional(),
});

export const scimEndpoints = {
  createGroup: endpoint({
    id: 'createScimGroup',
    method: 'POST',
    path: `${SCIM}/Groups`,
    section: '4.11',
    summary: 'Provision a group',
    body: CreateScimGroupInput,
    response: ScimGroup,
    status: 201,
    access: ACCESS,
  }),
  listGroups: endpoint({
    id: 'listScimGroups',
    method: 'GET',
    path: `${SCIM}/Groups`,
    section: '4.11',
    summary: 'List groups (SCIM ListResponse)',
    query: ScimListQuery,
    response: scimListResponse(ScimGroup),
    pagination: 'offset',
    access: ACCESS,
  }),
  getGroup: endpoint({
    id: 'getScimGroup',
    method: 'GET',
    path: `${SCIM}/Groups/{id}`,
    section: '4.11',
    summary: 'One group',
    params: ScimIdParams,
    response: ScimGroup,
    access: ACCESS,
  }),
  deleteGroup: endpoint({
    id: 'deleteScimGroup',
    method: 'DELETE',
    path: `${SCIM}/Groups/{id}`,
    section: '4.11',
    summary: 'Delete a group',
    params: ScimIdParams,
    response: z.unknown(),
    responseType: 'empty',
    status: 204,
    access: ACCESS,
  }),
  listUsers: endpoint({
    id: 'listScimUsers',
    method: 'GET',
    path: `${SCIM}/Users`,
    section: '4.11',
    summary: 'List users (SCIM ListResponse)',
    query: ScimListQuery,
    response: scimListResponse(ScimUser),
    pagination: 'offset',
    access: ACCESS,
  }),
  getUser: endpoint({
    id: 'getScimUser',
    method: 'GET',
    path: `${SCIM}/Users/{id}`,
    section: '4.11',
    summary: 'One user',
    params: ScimIdParams,
    response: ScimUser,
    access: ACCESS,
  }),
} as const;
