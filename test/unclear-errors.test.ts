/**
 * Errors that used to be unclear (issue 15): a malformed event file, a 502 HTML page, a 307 redirect,
 * a plain 400, and a path in api-url that was silently dropped. Each says what happened, in one line.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { platformPageUrl } from '../src/pr/publish.js';
import { parseBaseUrl } from '../src/client/http.js';
import { json } from './support/https-server.js';
import { client, server, useTestServer } from './support/platform-test-server.js';

useTestServer();
const BUNDLE = resolve(import.meta.dirname, '..', 'dist', 'index.js');

describe('a malformed event file', () => {
  const event = join(mkdtempSync(join(tmpdir(), 'dmci-badevent-')), 'event.json');
  writeFileSync(event, '{"action": "opened", pull_request');
  const bundle = (...args: string[]) =>
    spawnSync(process.execPath, [BUNDLE, ...args], {
      encoding: 'utf8',
      env: {
        PATH: process.env.PATH ?? '',
        GITHUB_EVENT_NAME: 'pull_request',
        GITHUB_EVENT_PATH: event,
        DATAMODEL_CI_API_URL: 'https://tenant.example.com',
        DATAMODEL_CI_API_KEY: 'sk-0123456789abcdef',
        DATAMODEL_CI_DEPLOYMENT_ID: '1',
      },
    });

  it('does not stop `version`', () => {
    const r = bundle('version');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('is named by `pr` in one line, without a stack trace', () => {
    const r = bundle('pr');
    expect(r.status).toBe(2);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.stderr).toMatch(/GITHUB_EVENT_PATH: got ".*event\.json", expected a readable JSON event file/);
  });
});

describe('answers that are not the platform’s', () => {
  it('a 502 HTML page names the page and who answered', async () => {
    server.handle((_q, r) => {
      r.writeHead(502, { 'content-type': 'text/html' });
      r.end('<html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1></body></html>');
    });
    const err = (await client({ retry: { maxAttempts: 1 } })
      .dataModel.validate({ deploymentId: 1 })
      .catch((e: unknown) => e)) as Error;
    expect(err.message).toBe(
      'GET /build/api/v1/deployments/1/data-model/validate -> 502: an HTML page "502 Bad Gateway" instead of the platform\'s JSON: a proxy or gateway in front of the platform answered',
    );
  });

  it('a 307 redirect names where it points', async () => {
    server.handle((_q, r) => {
      r.writeHead(307, { location: 'https://new-tenant.example.com/build/api/v1/deployments/1/data-model/validate' });
      r.end();
    });
    const err = (await client()
      .dataModel.validate({ deploymentId: 1 })
      .catch((e: unknown) => e)) as Error;
    expect(err.message).toBe(
      "GET /build/api/v1/deployments/1/data-model/validate -> 307: redirected to https://new-tenant.example.com/build/api/v1/deployments/1/data-model/validate (redirects are not followed: set api-url to the address the platform's API answers on)",
    );
    expect(server.requests).toHaveLength(1);
  });

  it('a plain 400 is the platform’s own words', async () => {
    server.handle((_q, r) => json(r, 400, { error: 'branchName: must not be empty' }));
    const err = (await client()
      .dataModel.validate({ deploymentId: 1 })
      .catch((e: unknown) => e)) as Error;
    expect(err.message).toBe('GET /build/api/v1/deployments/1/data-model/validate -> 400: branchName: must not be empty');
  });
});

describe('a path in api-url', () => {
  it('prefixes every request, and the preview link', async () => {
    await client({ baseUrl: `${server.baseUrl}/tenant-a/` }).dataModel.validate({ deploymentId: 1 });
    expect(server.requests.at(-1)!.path).toBe('/tenant-a/build/api/v1/deployments/1/data-model/validate');
    expect(platformPageUrl('https://host.example/tenant-a', 4, 'preview-pr-1')).toBe('https://host.example/tenant-a/d/4/schema?branch=preview-pr-1');
  });

  it('refuses a query or fragment, which would be dropped', () => {
    expect(() => parseBaseUrl('https://host.example/?tenant=a')).toThrow(
      /api-url: got "https:\/\/host\.example\/\?tenant=a", expected a URL without \?query or #fragment/,
    );
  });

  it("refuses the web app's page of a deployment (/d/<id>/…), naming the origin and the id; a gateway's prefix stays", () => {
    for (const page of ['https://acme.cubecloud.dev/d/12', 'https://acme.cubecloud.dev/d/12/', 'https://acme.cubecloud.dev/d/12/schema/model']) {
      expect(() => parseBaseUrl(page), page).toThrow(
        `api-url: got "${page}", expected the tenant's origin https://acme.cubecloud.dev: this is the web app's page of deployment 12 (/d/12/…), and the API is not served under it; pass https://acme.cubecloud.dev with deployment-id 12`,
      );
    }
    // Refused in the client too, before any request.
    const sent = server.requests.length;
    expect(() => client({ baseUrl: `${server.baseUrl}/d/3/schema` })).toThrow('deployment-id 3');
    expect(server.requests.length).toBe(sent);
    // Only that page: a gateway's own prefix, even one that starts with a d, is kept.
    for (const prefix of ['https://host.example/d', 'https://host.example/dev/d/1', 'https://host.example/d/main', 'https://host.example/tenant-a/d/1'])
      expect(parseBaseUrl(prefix).href, prefix).toBe(new URL(prefix).href);
  });
});
