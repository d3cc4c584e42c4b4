import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { allEndpoints } from '../src/client/client.js';
import { pathParams } from '@datamodel-ci/platform-api';
import { handlers } from '../packages/emulator/src/handlers.js';
import { EVALUATION_PATH } from '../packages/emulator/src/evals/routes.js';
import { EVALUATION_OPERATIONS } from '../packages/emulator/src/evals/spec.js';
import { ROOT } from '../packages/platform-api/scripts/generate.js';
import { SPEC_ENDPOINTS_FILE, type SpecEndpoint } from '../packages/platform-api/scripts/vendor-data.js';
import { routeKey, specEndpoints } from './support/spec-endpoints.js';

const client = allEndpoints();
const clientKeys = new Set(client.map((e) => routeKey(e.method, e.path)));

describe('route table', () => {
  it('has a client method for every endpoint of spec sections 4.1 to 4.15', () => {
    expect(specEndpoints.length).toBeGreaterThan(100);
    const missing = specEndpoints.filter((s) => !clientKeys.has(routeKey(s.method, s.path)));
    expect(missing.map((m) => `${m.section} ${m.id}`)).toEqual([]);
  });

  it('lists no operation twice and gives every one an id, a section and matching path parameters', () => {
    const keys = client.map((e) => routeKey(e.method, e.path));
    expect(keys.filter((k, i) => keys.indexOf(k) !== i)).toEqual([]);
    const ids = client.map((e) => e.id);
    expect(ids.filter((k, i) => ids.indexOf(k) !== i)).toEqual([]);
    for (const e of client) {
      expect(e.section, e.id).toMatch(/^4\.(1[0-5]|[1-9])$/);
      const names = pathParams(e.path);
      if (names.length) {
        expect(e.params, `${e.id} declares no params for ${e.path}`).toBeDefined();
        const shape = (e.params as unknown as { shape?: Record<string, unknown> }).shape ?? {};
        expect(Object.keys(shape).sort(), e.id).toEqual([...names].sort());
      }
    }
  });

  it('the emulator has a handler for every endpoint of the route table', () => {
    // The evaluation endpoints are served before the router, by evals/routes.ts (server.ts), whose path they match.
    const evals = client.filter((e) => EVALUATION_OPERATIONS.includes(e.id));
    expect(evals.map((e) => e.id).sort()).toEqual([...EVALUATION_OPERATIONS].sort());
    for (const e of evals) expect(EVALUATION_PATH.test(e.path.replace(/\{[^}]+\}/g, '1')), e.path).toBe(true);
    expect(client.filter((e) => typeof handlers[e.id] !== 'function' && !EVALUATION_OPERATIONS.includes(e.id)).map((e) => e.id)).toEqual([]);
  });

  it('the overlay list of spec operations covers every full path written in spec section 4', () => {
    // Guard against the overlay's `spec: false` marks drifting from the spec: every absolute path the
    // spec text of section 4 spells out (committed by `npm run refresh-contract -- --spec FILE`) must be
    // an operation the overlay says the spec names, under a method the spec writes with it.
    const written = (JSON.parse(readFileSync(join(ROOT, SPEC_ENDPOINTS_FILE), 'utf8')) as { endpoints: SpecEndpoint[] }).endpoints;
    expect(written.length).toBeGreaterThan(40);
    const listed = new Set(specEndpoints.map((s) => routeKey('X', s.path).slice(2)));
    const unknown = written.map((w) => routeKey('X', w.path).slice(2)).filter((p) => !listed.has(p));
    expect(unknown).toEqual([]);
    const withMethod = new Set(specEndpoints.map((s) => routeKey(s.method, s.path)));
    const wrongMethod = written.flatMap((w) => w.methods.map((m) => routeKey(m, w.path))).filter((k) => !withMethod.has(k));
    expect(wrongMethod).toEqual([]);
  });
});
