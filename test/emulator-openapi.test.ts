/** The emulator's OpenAPI 3.1 document (spec section 1 rule 6, section 9), served by `GET /api/v1/spec`. */
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { PlatformClient, allEndpoints, routeTable } from '../src/client/index.js';
import { EVALUATION_OPERATIONS } from '../packages/emulator/src/evals/spec.js';
import { buildOpenApiDocument } from '../packages/emulator/src/openapi.js';
import { startEmulator, type Emulator } from '../packages/emulator/src/index.js';

type Json = Record<string, any>;

let em: Emulator;
let client: PlatformClient;
let doc: Json;

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

function operations(d: Json): Json[] {
  return Object.values(d.paths as Record<string, Json>).flatMap((item) => METHODS.filter((m) => item[m]).map((m) => item[m] as Json));
}

function operation(d: Json, id: string): Json {
  const op = operations(d).find((o) => o.operationId === id);
  if (!op) throw new Error(`no operation ${id}`);
  return op;
}

/** Whether a JSON schema admits a value of `type` (directly or through anyOf/oneOf). */
function admits(schema: Json | undefined, type: string): boolean {
  if (!schema) return false;
  const t = schema.type;
  if (t === type || (Array.isArray(t) && t.includes(type))) return true;
  return [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])].some((s: Json) => admits(s, type));
}

beforeAll(async () => {
  em = await startEmulator({ seed: 'demo', clock: { mode: 'manual' } });
  client = new PlatformClient({ baseUrl: em.baseUrl, apiKey: em.credentials.admin, ca: em.ca });
  doc = await client.app.spec();
});

afterAll(async () => {
  await client?.close();
  await em?.close();
});

describe('GET /api/v1/spec', () => {
  it('is an OpenAPI 3.1 document that validates', async () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info).toMatchObject({ title: 'Platform API (datamodel-ci emulator)', version: '1.0.0' });
    expect(doc.servers[0].url).toBe(em.baseUrl);
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('the validator is not a rubber stamp: a broken copy fails', async () => {
    const broken = structuredClone(doc);
    delete broken.info;
    (Object.values(broken.paths)[0] as Json).get = { responses: 'nope' };
    const result = await new Validator().validate(broken);
    expect(result.valid).toBe(false);
  });

  it('has one operation per endpoint of the route table, keyed by its id', () => {
    const ids = operations(doc).map((o) => o.operationId as string);
    expect(new Set(ids).size).toBe(ids.length);
    // The evaluation endpoints are in the route table and in the emulator's own evals/spec.ts (same ids).
    expect([...ids].sort()).toEqual(
      allEndpoints()
        .map((e) => e.id)
        .sort(),
    );
    expect(EVALUATION_OPERATIONS.every((id) => ids.includes(id))).toBe(true);
    for (const e of allEndpoints().filter((x) => !EVALUATION_OPERATIONS.includes(x.id))) {
      const op = doc.paths[e.path]?.[e.method.toLowerCase()];
      expect(op?.operationId, `${e.method} ${e.path}`).toBe(e.id);
      expect(op.summary).toBe(e.summary);
    }
  });

  it('tags each operation with its area and declares both security schemes', () => {
    for (const [area, table] of Object.entries(routeTable)) {
      for (const e of Object.values(table)) expect(operation(doc, e.id).tags).toEqual([area]);
    }
    expect(doc.components.securitySchemes).toEqual({
      bearerAuth: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
      apiKeyAuth: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'Authorization' }),
    });
    expect(doc.components.schemas.Error).toMatchObject({ properties: { error: { type: 'string' } }, required: ['error'] });
  });

  it('the dbt-sync start body has `ref` as a string property', () => {
    const op = operation(doc, routeTable.dbtSync.start.id);
    const schema = op.requestBody.content['application/json'].schema;
    expect(schema.type).toBe('object');
    expect(admits(schema.properties.ref, 'string')).toBe(true);
  });

  it('integer path and query parameters are `type: integer`, booleans `type: boolean`', () => {
    const folders = operation(doc, 'getFolderAncestors').parameters as Json[];
    expect(folders.filter((p) => p.in === 'path')).toEqual([
      { name: 'deploymentId', in: 'path', required: true, schema: { type: 'integer' } },
      { name: 'folderId', in: 'path', required: true, schema: { type: 'integer' } },
    ]);
    // Every path parameter built on the `Int` primitive, in every operation.
    let checked = 0;
    for (const e of allEndpoints()) {
      const shape = ((e.params as unknown as { shape?: Record<string, z.ZodType> }) ?? {}).shape ?? {};
      for (const [name, schema] of Object.entries(shape)) {
        if (z.globalRegistry.get(schema)?.type !== 'integer') continue;
        const p = (operation(doc, e.id).parameters as Json[]).find((x) => x.in === 'path' && x.name === name);
        expect(p?.schema, `${e.id} ${name}`).toEqual({ type: 'integer' });
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(50);
    const comments = operation(doc, 'listDashboardComments').parameters as Json[];
    expect(comments.find((p) => p.name === 'includeResolved')).toEqual({ name: 'includeResolved', in: 'query', required: false, schema: { type: 'boolean' } });
    const branches = operation(doc, 'branches').parameters as Json[];
    expect(branches.find((p) => p.name === 'installationId')).toMatchObject({ in: 'query', required: true, schema: { type: 'integer' } });
  });

  it('maps response kinds: 204 without content, CSV, binary, multipart upload, shared errors', () => {
    const del = operation(doc, 'deleteGroup').responses;
    expect(del['204']).toEqual({ description: expect.any(String) });
    expect(del['404']).toEqual({ $ref: '#/components/responses/Error' });
    const csv = allEndpoints().find((e) => e.responseType === 'csv');
    if (csv) expect(Object.keys(operation(doc, csv.id).responses['200'].content)).toEqual(['text/csv']);
    expect(Object.keys(operation(doc, 'downloadExport').responses['200'].content)).toEqual(['application/octet-stream']);
    expect(operation(doc, 'startPreview').responses['202']).toBeDefined();
    const upload = allEndpoints().find((e) => e.bodyType === 'multipart');
    if (upload) {
      const body = operation(doc, upload.id).requestBody.content['multipart/form-data'].schema;
      expect(body.properties.file).toMatchObject({ type: 'string', format: 'binary' });
    }
    expect(JSON.stringify(doc)).not.toContain('"$schema"');
  });

  it('is the same document the module builds', () => {
    expect(doc).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument(em.baseUrl))));
  });
});
