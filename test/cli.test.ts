import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/main.js';
import type { Io } from '../src/io.js';
import { parseArgs } from '../src/commands/args.js';
import { VERSION } from '../src/version.js';
import { json, startTestServer, type TestServer } from './support/https-server.js';

const KEY = 'cli-key-0123456789';
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer((_q, r) =>
    json(r, 200, { data: { deployments: [{ id: '1', name: 'prod' }] }, pagination: { offset: 0, limit: 20, total: 1 } }),
  );
});
afterAll(() => server.close());

function io(env: NodeJS.ProcessEnv = {}): Io & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { stdout, stderr, out: (l) => stdout.push(l), err: (l) => stderr.push(l), env };
}

describe('cli', () => {
  it('keeps VERSION equal to package.json', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    expect(VERSION).toBe(pkg.version);
  });

  it('exits 2 on an unknown command, a missing setting or a bad flag, naming what is wrong', async () => {
    let t = io();
    expect(await runCli(['frobnicate'], t)).toBe(2);
    expect(t.stderr.join('\n')).toContain('unknown command "frobnicate"');
    t = io();
    expect(await runCli(['check'], t)).toBe(2);
    expect(t.stderr.join('\n')).toContain("api-url: got nothing, expected the platform's https:// address (input api-url, --api-url or DATAMODEL_CI_API_URL)");
    t = io({ DATAMODEL_CI_API_URL: 'http://insecure.example', DATAMODEL_CI_API_KEY: KEY });
    expect(await runCli(['check'], t)).toBe(2);
    expect(t.stderr.join('\n')).toContain('api-url: got "http://insecure.example", expected an https:// URL');
    t = io();
    expect(await runCli(['check', '--nope'], t)).toBe(2);
    expect(t.stderr.join('\n')).toContain('unknown flag --nope');
    t = io({ DATAMODEL_CI_API_URL: server.baseUrl, DATAMODEL_CI_API_KEY: KEY, DATAMODEL_CI_REQUEST_TIMEOUT: '-1' });
    expect(await runCli(['check'], t)).toBe(2);
    expect(t.stderr.join('\n')).toContain('request-timeout: got "-1", expected a positive number');
  });

  it('checks the connection from DATAMODEL_CI_* variables and never prints the key', async () => {
    const t = io({ DATAMODEL_CI_API_URL: server.baseUrl, DATAMODEL_CI_API_KEY: KEY, DATAMODEL_CI_CA_CERT: server.ca });
    expect(await runCli(['check', '--json'], t)).toBe(0);
    expect(JSON.parse(t.stdout[0]!)).toEqual({ ok: true, deployments: [{ id: '1', name: 'prod' }] });
    expect(t.stdout.join('') + t.stderr.join('')).not.toContain(KEY);
  });

  it('in GitHub Actions, masks the key before anything else is printed', async () => {
    const t = io({ GITHUB_ACTIONS: 'true', DATAMODEL_CI_API_URL: server.baseUrl, DATAMODEL_CI_API_KEY: KEY, DATAMODEL_CI_CA_CERT: server.ca });
    expect(await runCli(['check'], t)).toBe(0);
    expect(t.stdout[0]).toBe(`::add-mask::${KEY}`);
  });

  it('sends a raw request with `api` and reports the platform error with exit 1', async () => {
    server.handle((_q, r) => json(r, 404, { error: 'no such deployment' }));
    const t = io({ DATAMODEL_CI_API_URL: server.baseUrl, DATAMODEL_CI_API_KEY: KEY, DATAMODEL_CI_CA_CERT: server.ca });
    expect(await runCli(['api', 'GET', '/api/v1/deployments/99/versions'], t)).toBe(1);
    expect(t.stderr.join('\n')).toBe('datamodel-ci api: GET /api/v1/deployments/99/versions -> 404: no such deployment');
    expect(await runCli(['api', 'GET', 'relative'], io())).toBe(2);
  });

  it('parses flags strictly', () => {
    expect(parseArgs(['a', '--json', '--api-url=https://x', '--timeout', '5', '--', '--raw'], { boolean: ['json'], string: ['api-url', 'timeout'] })).toEqual({
      positionals: ['a', '--raw'],
      flags: { json: true, 'api-url': 'https://x', timeout: '5' },
    });
    expect(() => parseArgs(['--timeout'], { string: ['timeout'] })).toThrow('--timeout: expected a value');
    expect(() => parseArgs(['--json=maybe'], { boolean: ['json'] })).toThrow('--json: got "maybe", expected true or false');
    // A switch: bare, =value, or a following true|false (older docs wrote `--dry-run true`); any other word stays a positional.
    expect(parseArgs(['--dry-run', '--json=false'], { boolean: ['dry-run', 'json'] }).flags).toEqual({ 'dry-run': true, json: false });
    expect(parseArgs(['--dry-run', 'false', '--json', 'true'], { boolean: ['dry-run', 'json'] }).flags).toEqual({ 'dry-run': false, json: true });
    expect(parseArgs(['--dry-run', 'main'], { boolean: ['dry-run'] })).toEqual({ flags: { 'dry-run': true }, positionals: ['main'] });
  });

  it('answers an unknown flag with the flags near it (a typo, a missing part), else the short list or --help', async () => {
    const spec = { boolean: ['dry-run', 'json'], string: ['deployment-id', 'api-url'] };
    expect(() => parseArgs(['--dryrun'], spec)).toThrow('unknown flag --dryrun (did you mean --dry-run?)');
    expect(() => parseArgs(['--deployment=1'], spec)).toThrow('unknown flag --deployment (did you mean --deployment-id?)');
    expect(() => parseArgs(['--api_url', 'x'], spec)).toThrow('unknown flag --api_url (did you mean --api-url?)');
    expect(() => parseArgs(['--zzz'], spec)).toThrow('unknown flag --zzz (known: --dry-run, --json, --deployment-id, --api-url)');
    // A command's whole table: the near flag, not its fifty.
    const t = io();
    expect(await runCli(['validate', '--deploymentid', '1'], t)).toBe(2);
    expect(t.stderr).toEqual(['error: validate: unknown flag --deploymentid (did you mean --deployment-id?)']);
    const u = io();
    expect(await runCli(['check', '--apiurl', 'https://x'], u)).toBe(2);
    expect(u.stderr).toEqual(['datamodel-ci check: unknown flag --apiurl (did you mean --api-url?)', 'Run "datamodel-ci check --help" for its flags.']);
  });
});
