/**
 * The committed inputs of the contract (packages/platform-api/vendor/): the vendor file's facts
 * without its prose, and the endpoints spec section 4 writes out.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../packages/platform-api/scripts/generate.js';
import { SPEC_ENDPOINTS_FILE, VENDOR_FILE, specEndpoints, specFacts, vendorFacts } from '../packages/platform-api/scripts/vendor-data.js';

const read = (rel: string) => readFileSync(join(ROOT, rel), 'utf8');

describe('vendor facts', () => {
  it('drop prose keywords and keep properties that are named like them', () => {
    const doc = {
      info: { title: 'T', version: '1', description: 'long prose' },
      paths: {
        '/x': {
          get: {
            summary: 'prose',
            'x-mint': { content: 'prose' },
            operationId: 'getX',
            parameters: [{ name: 'q', in: 'query', description: 'prose', schema: { type: 'string', example: 'a' } }],
            responses: { '200': { description: 'OK', content: { 'application/json': { schema: { $ref: '#/components/schemas/X' } } } } },
          },
        },
      },
      components: {
        schemas: {
          X: {
            type: 'object',
            title: 'X',
            required: ['description'],
            properties: { description: { type: 'string', description: 'prose' }, summary: { type: 'string' } },
            default: { description: 'a value, not prose' },
          },
        },
      },
    };
    const facts = vendorFacts(doc, 'source text');
    expect(facts).toEqual({
      'x-derived-from': { sha256: expect.stringMatching(/^[0-9a-f]{64}$/), bytes: 11 },
      info: { version: '1' },
      paths: {
        '/x': {
          get: {
            operationId: 'getX',
            parameters: [{ name: 'q', in: 'query', schema: { type: 'string' } }],
            responses: { '200': { content: { 'application/json': { schema: { $ref: '#/components/schemas/X' } } } } },
          },
        },
      },
      components: {
        schemas: {
          X: {
            type: 'object',
            required: ['description'],
            properties: { description: { type: 'string' }, summary: { type: 'string' } },
            default: { description: 'a value, not prose' },
          },
        },
      },
    });
  });

  it('the committed file holds facts only: deriving it again changes nothing', () => {
    const committed = JSON.parse(read(VENDOR_FILE)) as Record<string, unknown>;
    const { ['x-derived-from']: from, ...rest } = committed;
    expect(from).toMatchObject({ sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(vendorFacts(rest, '')).toEqual({ ...rest, 'x-derived-from': expect.anything() });
    expect(Object.keys((committed as { paths: object }).paths).length).toBeGreaterThan(100);
  });
});

describe('spec endpoints', () => {
  const spec = [
    '## 3. States',
    '`GET /api/v1/not-in-section-4`',
    '## 4. Endpoints',
    '### 4.1 `GET /api/v1/deployments`',
    '### 4.15 Further operations',
    '| `GET`, `PUT`, `DELETE /build/api/v1/deployments/{deploymentId}/data-model/files` | x |',
    '| `POST .../data-model/files/rename` | relative: not a path |',
    '| `/api/v1/github/status`, `/installations` | no method |',
    '## 5. Authentication',
  ].join('\n');

  it('lists every absolute path of section 4 with its subsection and the methods written with it', () => {
    expect(specEndpoints(spec)).toEqual([
      { section: '4.1', methods: ['GET'], path: '/api/v1/deployments' },
      { section: '4.15', methods: ['GET', 'PUT', 'DELETE'], path: '/build/api/v1/deployments/{deploymentId}/data-model/files' },
      { section: '4.15', methods: [], path: '/api/v1/github/status' },
    ]);
  });

  it('refuses a text without section 4', () => {
    expect(() => specEndpoints('# nothing here')).toThrow(/4\. Endpoints/);
  });

  it('the committed list has the shape refresh-contract writes', () => {
    const committed = JSON.parse(read(SPEC_ENDPOINTS_FILE)) as ReturnType<typeof specFacts>;
    expect(committed.endpoints.length).toBeGreaterThan(40);
    for (const e of committed.endpoints)
      expect(e).toEqual({ section: expect.stringMatching(/^4\.\d+$/), methods: expect.any(Array), path: expect.stringMatching(/^\//) });
  });
});
