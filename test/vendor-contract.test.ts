/**
 * Every request body the client sends for the build API and dbt sync validates against the request
 * schema of the vendor's published OpenAPI file; every query parameter it sends is one the vendor declares.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlatformClient } from '../src/client/index.js';
import { json, startTestServer, type RecordedRequest, type TestServer } from './support/https-server.js';
import { vendorOperation, vendorValidate } from './support/vendor.js';

let server: TestServer;
let c: PlatformClient;

beforeAll(async () => {
  server = await startTestServer((_q, r) => json(r, 200, {}));
  c = new PlatformClient({ baseUrl: server.baseUrl, apiKey: 'test-key-123456', ca: server.ca });
});
afterAll(async () => {
  await c.close();
  await server.close();
});

/** Each call of the build API and dbt sync that sends a body or a query, with realistic values. */
const calls: [string, (c: PlatformClient) => Promise<unknown>][] = [
  ['createBranch', (c) => c.branches.create({ deploymentId: 1, body: { name: 'preview/pr-1', from: 'main' } })],
  ['removeBranch', (c) => c.branches.remove({ deploymentId: 1, query: { branchName: 'preview/pr-1', removeOnUpstream: true } })],
  ['listBranches', (c) => c.branches.list({ deploymentId: 1, query: { first: 50, after: 'abc' } })],
  ['setStaging(name)', (c) => c.branches.setStagingEnvironment({ deploymentId: 1, body: { enabled: true, branchName: 'preview/pr-1' } })],
  ['setStaging(id)', (c) => c.branches.setStagingEnvironment({ deploymentId: 1, body: { enabled: false, branchId: 7 } })],
  ['startDevMode', (c) => c.branches.startDevMode({ deploymentId: 1, body: { branchName: 'preview/pr-1' } })],
  ['startDevMode(no body)', (c) => c.branches.startDevMode({ deploymentId: 1 })],
  ['commit', (c) => c.branches.commit({ deploymentId: 1, body: { message: 'PR #1', exitDevMode: false } })],
  ['pull', (c) => c.branches.pull({ deploymentId: 1, body: { branchName: 'preview/pr-1' } })],
  ['merge', (c) => c.branches.merge({ deploymentId: 1, body: { branchName: 'dev-abc', deleteBranch: true, message: 'm' } })],
  [
    'mergeToDefault',
    (c) => c.branches.mergeToDefault({ deploymentId: 1, body: { branchName: 'preview/pr-1', message: 'Merge PR #1', removeBranchAfterMerge: false } }),
  ],
  [
    'updateFiles',
    (c) => c.dataModel.updateFiles({ deploymentId: 1, body: { branchName: 'dev-abc', files: [{ path: 'model/cubes/a.yml', content: 'cubes: []\n' }] } }),
  ],
  ['removeFiles', (c) => c.dataModel.removeFiles({ deploymentId: 1, body: { branchName: 'dev-abc', files: [{ path: 'model/cubes/a.yml' }] } })],
  ['renameFiles', (c) => c.dataModel.renameFiles({ deploymentId: 1, body: { branchName: 'dev-abc', files: [{ path: 'a.yml', newPath: 'b.yml' }] } })],
  ['listFiles', (c) => c.dataModel.listFiles({ deploymentId: 1, query: { branchName: 'main', withContent: true, first: 10 } })],
  ['startUpload', (c) => c.dataModel.startUpload({ deploymentId: 1, query: { branchName: 'dev-abc' } })],
  [
    'uploadFile',
    (c) =>
      c.dataModel.uploadFile({
        deploymentId: 1,
        query: { branchName: 'dev-abc' },
        body: { transaction: 't-1', fileName: 'model/cubes/a.yml', file: Buffer.from('cubes: []\n') },
      }),
  ],
  [
    'finishUpload',
    (c) =>
      c.dataModel.finishUpload({
        deploymentId: 1,
        query: { branchName: 'dev-abc' },
        body: {
          transaction: { id: 't-1' },
          files: { 'model/cubes/a.yml': { hash: 'da39a3ee5e6b4b0d3255bfef95601890afd80709' } },
          autoRemoveFiles: true,
          commitMessage: 'PR #1',
        },
      }),
  ],
  ['fileHashes', (c) => c.dataModel.fileHashes({ deploymentId: 1, query: { branchName: 'dev-abc' } })],
  ['validate', (c) => c.dataModel.validate({ deploymentId: 1, query: { branchName: 'preview/pr-1' } })],
  ['validate(devMode)', (c) => c.dataModel.validate({ deploymentId: 1, query: { devMode: true } })],
  ['startDbtSync', (c) => c.dbtSync.start({ deploymentId: 1, body: { ref: 'main', branchName: 'dbt/nightly', source: 'git' } })],
  ['startDbtSync(no body)', (c) => c.dbtSync.start({ deploymentId: 1 })],
  ['listDbtSyncs', (c) => c.dbtSync.list({ deploymentId: 1, query: { status: 'RUNNING', trigger: 'api', first: 100, after: 'x' } })],
];

function multipartFields(req: RecordedRequest): Record<string, string> {
  const type = String(req.headers['content-type']);
  const boundary = /boundary=(.+)$/.exec(type)?.[1];
  const out: Record<string, string> = {};
  if (!boundary) return out;
  for (const part of req.body.toString('latin1').split(`--${boundary}`)) {
    const m = /name="([^"]+)"(; filename="[^"]*")?\r\n(?:[^\r\n]+\r\n)*\r\n([\s\S]*)\r\n$/.exec(part);
    if (m && !m[2]) out[m[1] as string] = m[3] as string;
  }
  return out;
}

describe('requests match the vendor description', () => {
  it.each(calls)('%s', async (_name, send) => {
    server.requests.length = 0;
    await send(c).catch(() => undefined); // the answer's shape is not under test here
    const req = server.requests[0]!;
    const op = vendorOperation(req.method, req.path);
    expect(op, `${req.method} ${req.path} is not in the vendor file`).toBeDefined();
    const declared = new Set((op!.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name));
    expect([...req.query.keys()].filter((k) => !declared.has(k))).toEqual([]);
    const content = op!.requestBody?.content ?? {};
    if (req.body.length === 0) return;
    const type = String(req.headers['content-type']);
    if (type.startsWith('multipart/form-data')) {
      const schema = content['multipart/form-data']?.schema;
      expect(schema).toBeDefined();
      const fields = multipartFields(req);
      expect(fields.fileName).toBe('model/cubes/a.yml');
      expect(req.body.toString('utf8')).toContain('cubes: []');
      expect(vendorValidate(schema, fields)).toEqual([]);
    } else {
      const schema = content['application/json']?.schema;
      expect(schema, `${op!.operationId} takes no JSON body`).toBeDefined();
      expect(vendorValidate(schema, req.json)).toEqual([]);
    }
  });
});
