/**
 * The emulator's OpenAPI 3.1 document (spec section 1 rule 6, section 9), generated from the route
 * table: the same zod schemas the client checks with and the emulator validates with, turned into
 * JSON Schema 2020-12 by zod's own `z.toJSONSchema`.
 */
import { routeTable } from '@datamodel-ci/platform-api';
import { pathParams, type Endpoint } from '@datamodel-ci/platform-api';
import { z } from 'zod';
import { evaluationSpecPaths } from './evals/spec.js';

type Json = Record<string, unknown>;

const ERROR_REF = { $ref: '#/components/responses/Error' };

/** JSON Schema of one zod schema; `Int`/`Bool` path and query primitives collapse to their wire type. */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Json {
  const out = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'any',
    override(ctx) {
      // `Int` and `Bool` are unions of the value and its text, tagged `.meta({ type })`: on the wire
      // they are one integer or one boolean.
      const type = z.globalRegistry.get(ctx.zodSchema)?.type;
      if (type === 'integer' || type === 'boolean') {
        const js = ctx.jsonSchema as Json;
        const description = js.description;
        for (const k of Object.keys(js)) delete js[k];
        js.type = type;
        if (description !== undefined) js.description = description;
      }
    },
  }) as Json;
  delete out.$schema;
  return out;
}

/** Move `$defs` of an embedded schema into `components.schemas` (a `#/$defs/...` ref would resolve against the document). */
function hoistDefs(schema: Json, prefix: string, components: Record<string, Json>): Json {
  const defs = schema.$defs as Record<string, Json> | undefined;
  if (!defs) return schema;
  delete schema.$defs;
  const names: Record<string, string> = {};
  for (const name of Object.keys(defs)) names[name] = `${prefix}_${name}`.replace(/[^A-Za-z0-9._-]/g, '_');
  const rewrite = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(rewrite);
    if (v && typeof v === 'object') {
      const o: Json = {};
      for (const [k, x] of Object.entries(v as Json)) {
        if (k === '$ref' && typeof x === 'string' && x.startsWith('#/$defs/')) {
          o[k] = `#/components/schemas/${names[x.slice('#/$defs/'.length)] ?? 'missing'}`;
        } else o[k] = rewrite(x);
      }
      return o;
    }
    return v;
  };
  for (const [name, def] of Object.entries(defs)) components[names[name] as string] = rewrite(def) as Json;
  return rewrite(schema) as Json;
}

function parameters(e: Endpoint, components: Record<string, Json>): Json[] {
  const out: Json[] = [];
  if (e.params) {
    const js = hoistDefs(jsonSchema(e.params, 'input'), `${e.id}_params`, components);
    const props = (js.properties ?? {}) as Record<string, Json>;
    for (const name of pathParams(e.path)) {
      out.push({ name, in: 'path', required: true, schema: props[name] ?? { type: 'string' } });
    }
  }
  if (e.query) {
    const js = hoistDefs(jsonSchema(e.query, 'input'), `${e.id}_query`, components);
    const props = (js.properties ?? {}) as Record<string, Json>;
    const required = new Set((js.required ?? []) as string[]);
    for (const [name, schema] of Object.entries(props)) {
      const p: Json = { name, in: 'query', required: required.has(name), schema };
      if (schema.type === 'array') {
        p.style = 'form';
        p.explode = true;
      }
      out.push(p);
    }
  }
  return out;
}

function requestBody(e: Endpoint, components: Record<string, Json>): Json | undefined {
  if (!e.body) return undefined;
  const required = !e.body.safeParse(undefined).success;
  const schema = hoistDefs(jsonSchema(e.body, 'input'), `${e.id}_body`, components);
  if (e.bodyType === 'multipart') {
    const props = { ...((schema.properties ?? {}) as Record<string, Json>) };
    props.file = { type: 'string', format: 'binary', contentMediaType: 'application/octet-stream' };
    return {
      required,
      content: { 'multipart/form-data': { schema: { ...schema, type: 'object', properties: props } } },
    };
  }
  return { required, content: { 'application/json': { schema } } };
}

function responses(e: Endpoint, components: Record<string, Json>): Json {
  const status = String(e.status ?? (e.responseType === 'empty' ? 204 : 200));
  let ok: Json;
  switch (e.responseType) {
    case 'empty':
      ok = { description: 'No content' };
      break;
    case 'csv':
      ok = { description: 'CSV text', content: { 'text/csv': { schema: { type: 'string' } } } };
      break;
    case 'binary':
      ok = {
        description: 'File bytes',
        content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary', contentMediaType: 'application/octet-stream' } } },
      };
      break;
    default:
      ok = {
        description: 'Success',
        content: { 'application/json': { schema: hoistDefs(jsonSchema(e.response, 'output'), `${e.id}_response`, components) } },
      };
  }
  return { [status]: ok, '400': ERROR_REF, '401': ERROR_REF, '403': ERROR_REF, '404': ERROR_REF };
}

/**
 * The OpenAPI 3.1.0 document of every endpoint of the route table (one operation each), and the
 * evaluation endpoints unless `evaluations` is false (the tenant has none: profile `no-evaluations`).
 */
export function buildOpenApiDocument(origin?: string, options: { evaluations?: boolean } = {}): Json {
  const components: Record<string, Json> = {
    Error: { type: 'object', properties: { error: { type: 'string' } }, required: ['error'] },
  };
  const paths: Record<string, Json> = {};
  for (const [area, table] of Object.entries(routeTable)) {
    // The evaluation endpoints come from ./evals/spec.ts, and only where the tenant has them.
    if (area === 'evaluations') continue;
    for (const e of Object.values(table) as Endpoint[]) {
      const op: Json = {
        operationId: e.id,
        summary: e.summary,
        tags: [area],
        'x-spec-section': e.section,
      };
      if (e.access) op['x-access'] = e.access;
      const params = parameters(e, components);
      if (params.length) op.parameters = params;
      const body = requestBody(e, components);
      if (body) op.requestBody = body;
      op.responses = responses(e, components);
      const item = (paths[e.path] ??= {});
      item[e.method.toLowerCase()] = op;
    }
  }
  if (options.evaluations !== false) Object.assign(paths, evaluationSpecPaths());
  return {
    openapi: '3.1.0',
    info: {
      title: 'Platform API (datamodel-ci emulator)',
      version: '1.0.0',
      description: 'Generated from the route table of the datamodel-ci client; served by its emulator.',
    },
    servers: [origin ? { url: origin, description: 'this emulator' } : { url: '/' }],
    tags: [...Object.keys(routeTable).filter((a) => a !== 'evaluations'), ...(options.evaluations !== false ? ['evaluations'] : [])].map((name) => ({ name })),
    security: [{ bearerAuth: [] }, { apiKeyAuth: [] }],
    paths,
    components: {
      schemas: components,
      responses: {
        Error: {
          description: 'An error: `{ error: <message> }` (spec section 7).',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
        },
      },
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API key>' },
        apiKeyAuth: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'Authorization: Api-Key <SCIM token> (SCIM API)' },
      },
    },
  };
}
