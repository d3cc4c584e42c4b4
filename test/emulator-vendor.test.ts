/**
 * Every emulator answer of the build API and dbt sync validates against the vendor file's response
 * schema for that operation, so what works against the emulator works against the real service.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient, encodeMultipart, type HttpMethod } from '../src/client/index.js';
import { startEmulator, type Emulator } from '../packages/emulator/src/index.js';
import { vendorOperation, vendorValidate } from './support/vendor.js';

let em: Emulator;
let http: HttpClient;
const sha1 = (s: string) => createHash('sha1').update(s).digest('hex');
const checked: string[] = [];

beforeAll(async () => {
  em = await startEmulator({ seed: 'demo', clock: { mode: 'manual' } });
  http = new HttpClient({ baseUrl: em.baseUrl, apiKey: em.credentials.admin, ca: em.ca });
});
afterAll(async () => {
  await http.close();
  await em.close();
});

/** Send, then check the JSON answer against the vendor's schema of that operation's 200 response. */
async function check(method: HttpMethod, path: string, json?: unknown, body?: { contentType: string; data: Buffer }): Promise<any> {
  const res = await http.send({ method, path, json, body });
  const pathOnly = path.split('?')[0]!;
  const op = vendorOperation(method, pathOnly);
  expect(op, `${method} ${pathOnly} is not in the vendor file`).toBeDefined();
  const schema = op!.responses?.['200']?.content?.['application/json']?.schema;
  const parsed = res.text ? JSON.parse(res.text) : undefined;
  if (schema && Object.keys(schema).length > 0) {
    expect(vendorValidate(schema, parsed), `${op!.operationId}: ${res.text?.slice(0, 300)}`).toEqual([]);
  }
  checked.push(op!.operationId!);
  return parsed;
}

describe('emulator answers match the vendor description', () => {
  it('build API, a whole preview flow', async () => {
    const B = '/build/api/v1/deployments/1';
    await check('GET', `${B}/branches?first=50`);
    await check('POST', `${B}/branches`, { name: 'vendor-pr-1', from: 'main' });
    const dev = await check('POST', `${B}/dev-mode`, { branchName: 'vendor-pr-1' });
    const devName = dev.branchName as string;
    await check('GET', `${B}/data-model/file-hashes?branchName=${devName}`);
    await check('GET', `${B}/data-model/files?branchName=${devName}&withContent=true`);
    await check('PUT', `${B}/data-model/files`, { branchName: devName, files: [{ path: 'model/cubes/v.yml', content: 'cubes: []\n' }] });
    await check('POST', `${B}/data-model/files/rename`, { branchName: devName, files: [{ path: 'model/cubes/v.yml', newPath: 'model/cubes/w.yml' }] });
    await check('DELETE', `${B}/data-model/files`, { branchName: devName, files: [{ path: 'model/cubes/w.yml' }] });
    const tx = await check('POST', `${B}/data-model/upload/start?branchName=${devName}`);
    await check(
      'POST',
      `${B}/data-model/upload/file?branchName=${devName}`,
      undefined,
      encodeMultipart({ transaction: JSON.stringify(tx.transaction), fileName: 'model/cubes/u.yml' }, [
        { field: 'file', fileName: 'u.yml', data: Buffer.from('cubes: []\n') },
      ]),
    );
    const hashes = (await http.send({ method: 'GET', path: `${B}/data-model/file-hashes?branchName=${devName}` })).text!;
    await check('POST', `${B}/data-model/upload/finish?branchName=${devName}`, {
      transaction: tx.transaction,
      files: { ...JSON.parse(hashes), 'model/cubes/u.yml': { hash: sha1('cubes: []\n') } },
      autoRemoveFiles: true,
    });
    await check('GET', `${B}/data-model/validate?devMode=true`);
    await check('POST', `${B}/commit`, { message: 'vendor check' });
    await check('POST', `${B}/merge`, { branchName: devName, deleteBranch: true });
    await check('POST', `${B}/pull`, { branchName: 'vendor-pr-1' });
    await check('PUT', `${B}/branches/staging-environment`, { enabled: true, branchName: 'vendor-pr-1' });
    await check('GET', `${B}/data-model/validate?branchName=vendor-pr-1`);
    await check('DELETE', `${B}/dev-mode`);
    await check('POST', `${B}/merge-to-default`, { branchName: 'vendor-pr-1', message: 'Merge', removeBranchAfterMerge: false });
    await check('DELETE', `${B}/branches?branchName=vendor-pr-1`);
    await check('POST', '/build/api/v1/deployments', {
      name: 'vendor-new',
      cloudProvider: 'aws',
      isManaged: true,
      region: 'us-east-1',
      targetPlatform: 'aws',
      creationStep: 'project',
    });
    await check('POST', `${B}/github/connect`, { installationId: 1, name: 'acme/model' });
  });

  it('dbt sync: start, status, logs, cancel, history, result, generated files', async () => {
    const D = '/api/v1/deployments/1/dbt-sync';
    const run = await check('POST', D, { ref: 'main', branchName: 'vendor-dbt-1' });
    em.clock.advance(5_000);
    await check('GET', `${D}/${run.syncJobId}`);
    em.clock.advance(9_000);
    await check('GET', `${D}/${run.syncJobId}/logs`);
    em.clock.advance(60_000);
    await check('GET', `${D}/${run.syncJobId}`);
    await check('GET', `${D}/${run.syncJobId}/result`);
    await check('GET', `${D}/${run.syncJobId}/generated-files`);
    const other = await check('POST', D, { ref: 'develop' });
    em.clock.advance(1_000);
    await check('DELETE', `${D}/${other.syncJobId}`);
    em.clock.advance(5_000);
    await check('GET', `${D}/${other.syncJobId}`);
    await check('GET', `${D}?first=100`);
    await check('GET', `${D}?status=CANCELLED&first=5`);
  });

  it('covered every build-API and dbt-sync operation', () => {
    const expected = [
      'listBranches',
      'createBranch',
      'removeBranch',
      'setBranchStagingEnvironment',
      'startDevMode',
      'stopDevMode',
      'listFiles',
      'updateFiles',
      'removeFiles',
      'renameFiles',
      'startUpload',
      'uploadFile',
      'finishUpload',
      'fileHashes',
      'validateDataModel',
      'commitChanges',
      'pull',
      'mergeIntoParentBranch',
      'mergeToDefaultBranch',
      'createDeployment',
      'connect',
      'startDbtSync',
      'listDbtSyncs',
      'getDbtSyncStatus',
      'getDbtSyncResult',
      'getDbtSyncLogs',
      'cancelDbtSync',
      'getDbtSyncGeneratedFiles',
    ];
    expect(expected.filter((id) => !checked.includes(id))).toEqual([]);
  });
});
