/**
 * The emulator behaves as the vendor's documents say the real service does (issue 10), upload side:
 * uploads to any branch, the multipart `transaction` as JSON text, 411 for bodyless writes without a
 * length, the web app's HTML for unknown API routes, and the wrapped `file-hashes` form.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { connect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BadRequestError, NotAvailableError, PermissionDeniedError, PlatformClient, call, encodeMultipart } from '../src/client/index.js';
import { endpoint } from '@datamodel-ci/platform-api';
import { DEMO_MODEL } from '../packages/emulator/src/index.js';
import { main } from '../packages/emulator/src/main.js';
import { control, emulatorFixture, failure, rawRequest, sha1, snapshot, uploadTree, type EmulatorFixture } from './support/emulator.js';

let fx: EmulatorFixture;
let c: PlatformClient;
const D = 1;
const B = `/build/api/v1/deployments/${D}`;

beforeAll(async () => {
  fx = await emulatorFixture();
  c = fx.admin;
});
afterAll(() => fx.close());

const branch = (name: string) => fx.em.state.deployments[0]!.branches[name]!;
const hashes = (branchName: string) => c.dataModel.fileHashes({ deploymentId: D, query: { branchName } });

async function shared(name: string): Promise<string> {
  await c.branches.create({ deploymentId: D, body: { name, from: 'main' } });
  return name;
}

describe('uploads to any branch (vendor `deploy --branch`)', () => {
  it('uploads to a shared branch named in the query: finish commits, prunes and answers the new commit', async () => {
    const name = await shared('up-shared');
    const tree = { ...DEMO_MODEL, 'model/cubes/extra.yml': 'cubes: []\n' };
    delete (tree as Record<string, string>)['model/views/orders_view.yml'];
    const done = await uploadTree(c, D, name, tree);
    expect(await hashes(name)).toEqual(Object.fromEntries(Object.entries(tree).map(([p, t]) => [p, { hash: sha1(t) }])));
    const b = branch(name);
    expect(b.head).toEqual(b.files);
    expect(done.lastHash).toBe(b.lastHash);
    const listed = (await c.branches.list({ deploymentId: D, query: { first: 100 } })).items.find((x) => x.name === name);
    expect(listed?.lastHash).toBe(done.lastHash);
  });

  it('reads branchName from the JSON body of start and finish (the vendor CLI sends it there)', async () => {
    const name = await shared('up-body');
    const start = JSON.parse((await c.http.send({ method: 'POST', path: `${B}/data-model/upload/start`, json: { branchName: name } })).text!);
    expect(fx.em.state.deployments[0]!.uploads[start.transaction.id]?.branch).toBe(name);
    const text = 'cubes: []\n';
    await c.dataModel.uploadFile({ deploymentId: D, body: { transaction: JSON.stringify(start.transaction), fileName: 'model/cubes/b.yml', file: text } });
    const files = { ...(await hashes(name)), 'model/cubes/b.yml': { hash: sha1(text) } };
    await c.dataModel.finishUpload({ deploymentId: D, body: { transaction: start.transaction, files, branchName: name } });
    expect((await hashes(name))['model/cubes/b.yml']).toEqual({ hash: sha1(text) });
  });

  it('accepts the branch in both query and body when they agree; 400 naming both when they differ, changing nothing', async () => {
    const name = await shared('up-both');
    const ok = await c.http.send({ method: 'POST', path: `${B}/data-model/upload/start?branchName=${name}`, json: { branchName: name } });
    const tx = JSON.parse(ok.text!).transaction as { id: string };
    const before = snapshot(fx.em);
    const differ = (await failure(
      c.http.send({ method: 'POST', path: `${B}/data-model/upload/start?branchName=${name}`, json: { branchName: 'main' } }),
    )) as BadRequestError;
    expect(differ).toBeInstanceOf(BadRequestError);
    expect(differ.platformMessage).toBe(
      `branchName: got "${name}" in the query and "main" in the body, expected one branch (name it once, or the same in both)`,
    );
    const finish = (await failure(
      c.dataModel.finishUpload({
        deploymentId: D,
        query: { branchName: name },
        body: { transaction: tx, files: await hashes(name), branchName: 'feature-revenue' },
      }),
    )) as BadRequestError;
    expect(finish).toBeInstanceOf(BadRequestError);
    expect(finish.platformMessage).toContain('in the query and "feature-revenue" in the body');
    const other = (await failure(
      c.dataModel.finishUpload({ deploymentId: D, body: { transaction: tx, files: await hashes(name), branchName: 'main' } }),
    )) as BadRequestError;
    expect(other.platformMessage).toBe(`branchName: got "main", expected "${name}" (the transaction's branch)`);
    expect(snapshot(fx.em)).toBe(before);
  });

  it('with no branch named: the caller’s dev-mode branch, else the deploy branch', async () => {
    const name = await shared('up-default');
    const dev = (await c.branches.startDevMode({ deploymentId: D, body: { branchName: name } })).branchName!;
    const onDev = await c.dataModel.startUpload({ deploymentId: D });
    expect(fx.em.state.deployments[0]!.uploads[onDev.transaction.id]?.branch).toBe(dev);
    await c.branches.stopDevMode({ deploymentId: D });
    const onMain = await c.dataModel.startUpload({ deploymentId: D });
    expect(fx.em.state.deployments[0]!.uploads[onMain.transaction.id]?.branch).toBe('main');
  });

  it('refuses another credential’s dev branch and an unknown branch, changing nothing', async () => {
    const name = await shared('up-owner');
    const dev = (await c.branches.startDevMode({ deploymentId: D, body: { branchName: name } })).branchName!;
    await c.branches.stopDevMode({ deploymentId: D });
    const before = snapshot(fx.em);
    expect(await failure(fx.member.dataModel.startUpload({ deploymentId: D, query: { branchName: dev } }))).toBeInstanceOf(PermissionDeniedError);
    expect(((await failure(c.dataModel.startUpload({ deploymentId: D, query: { branchName: 'no-such' } }))) as Error).message).toContain(
      'branch "no-such" not found',
    );
    expect(snapshot(fx.em)).toBe(before);
  });

  it('a tenant that refuses direct uploads (option and control route): 400 on a shared or deploy branch, dev branches still take them', async () => {
    await control(fx.em, 'tenant', { directUploads: false });
    try {
      const name = await shared('up-refused');
      const before = snapshot(fx.em);
      for (const target of [name, 'main']) {
        const err = (await failure(c.dataModel.startUpload({ deploymentId: D, query: { branchName: target } }))) as BadRequestError;
        expect(err).toBeInstanceOf(BadRequestError);
        expect(err.platformMessage).toBe(`branch "${target}" is not a dev-mode branch: this tenant accepts uploads on a personal dev-mode branch only`);
      }
      expect(snapshot(fx.em)).toBe(before);
      const dev = (await c.branches.startDevMode({ deploymentId: D, body: { branchName: name } })).branchName!;
      await uploadTree(c, D, dev, { ...DEMO_MODEL, 'model/cubes/d.yml': 'cubes: []\n' });
      expect((await hashes(dev))['model/cubes/d.yml']).toBeDefined();
      await c.branches.stopDevMode({ deploymentId: D });
    } finally {
      expect(await control(fx.em, 'tenant', { directUploads: true })).toMatchObject({ directUploads: true });
    }
    const off = await emulatorFixture({ directUploads: false });
    try {
      const err = (await failure(off.admin.dataModel.startUpload({ deploymentId: D, query: { branchName: 'feature-revenue' } }))) as Error;
      expect(err.message).toContain('is not a dev-mode branch');
    } finally {
      await off.close();
    }
  });

  it('file writes (PUT data-model/files) stay dev-branch only while uploads go anywhere', async () => {
    const name = await shared('up-put');
    const err = (await failure(
      c.dataModel.updateFiles({ deploymentId: D, body: { branchName: name, files: [{ path: 'model/x.yml', content: 'x' }] } }),
    )) as BadRequestError;
    expect(err.platformMessage).toContain('is not a dev-mode branch');
  });
});

describe('multipart transaction field', () => {
  async function started(name: string) {
    await shared(name);
    return (await c.dataModel.startUpload({ deploymentId: D, query: { branchName: name } })).transaction;
  }

  it('a bare id is refused with 400 naming the field, the value and the expected form, changing nothing', async () => {
    const tx = await started('tx-bare');
    const before = snapshot(fx.em);
    for (const bad of [tx.id, '{"id":', '{"name":"x"}']) {
      const err = (await failure(
        c.dataModel.uploadFile({ deploymentId: D, body: { transaction: bad, fileName: 'model/a.yml', file: 'a' } }),
      )) as BadRequestError;
      expect(err).toBeInstanceOf(BadRequestError);
      expect(err.platformMessage).toBe(
        `body.transaction: got ${JSON.stringify(bad)}, expected the JSON text of the transaction object upload/start returned, e.g. {"id":"tx-…"}`,
      );
    }
    expect(snapshot(fx.em)).toBe(before);
  });

  it('the path is `fileName`; the file part’s own filename (the base name, as the vendor sends it) is not used', async () => {
    const tx = await started('tx-filename');
    const form = encodeMultipart({ transaction: JSON.stringify(tx), fileName: 'model/cubes/deep.yml' }, [
      { field: 'file', fileName: 'deep.yml', data: Buffer.from('cubes: []\n') },
    ]);
    await c.http.send({ method: 'POST', path: `${B}/data-model/upload/file`, body: form });
    expect(Object.keys(fx.em.state.deployments[0]!.uploads[tx.id]!.files)).toEqual(['model/cubes/deep.yml']);
  });
});

describe('bodyless writes need a length (411)', () => {
  it('a DELETE with neither Content-Length nor Transfer-Encoding gets 411 and changes nothing; with Content-Length: 0 it works', async () => {
    await c.branches.startDevMode({ deploymentId: D, body: { branchName: 'feature-revenue' } });
    const auth = { authorization: `Bearer ${fx.em.credentials.admin}` };
    const before = snapshot(fx.em);
    const bare = await rawRequest(fx.em, { method: 'DELETE', path: `${B}/dev-mode`, headers: auth });
    expect(bare.status).toBe(411);
    expect(JSON.parse(bare.text)).toEqual({ error: 'Length Required' });
    expect(snapshot(fx.em)).toBe(before);
    const stated = await rawRequest(fx.em, { method: 'DELETE', path: `${B}/dev-mode`, headers: { ...auth, 'content-length': '0' } });
    expect(stated.status).toBe(200);
    expect(fx.em.state.deployments[0]!.devSessions).toEqual({});
  });

  it('a POST without a length on the wire gets 411 too; the client’s bodyless POST and DELETE get through', async () => {
    const wire = await new Promise<string>((resolve, reject) => {
      const { hostname, port } = new URL(fx.em.baseUrl);
      const socket = connect({ host: hostname, port: Number(port), ca: fx.em.ca }, () => {
        socket.end(
          `POST ${B}/data-model/upload/start HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${fx.em.credentials.admin}\r\nConnection: close\r\n\r\n`,
        );
      });
      let text = '';
      socket.on('data', (d: Buffer) => (text += d.toString()));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    expect(wire.split('\r\n')[0]).toBe('HTTP/1.1 411 Length Required');
    await c.dataModel.startUpload({ deploymentId: D, query: { branchName: 'feature-revenue' } });
    await c.branches.stopDevMode({ deploymentId: D });
  });
});

describe('unknown routes under the API prefixes', () => {
  it('answer 200 with the web app’s HTML page, which the client reports as NotAvailableError', async () => {
    for (const path of ['/api/v1/not-on-this-tenant', `${B}/not-on-this-tenant`]) {
      const res = await rawRequest(fx.em, { method: 'GET', path, headers: { authorization: `Bearer ${fx.em.credentials.admin}` } });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.text.trimStart().startsWith('<!DOCTYPE html>')).toBe(true);
    }
    const missing = endpoint({
      id: 'notOnThisTenant',
      method: 'GET',
      path: '/api/v1/not-on-this-tenant',
      section: '4.1',
      summary: 'absent',
      response: z.unknown(),
    });
    expect(await failure(call(c.http, missing, {}))).toBeInstanceOf(NotAvailableError);
  });
});

describe('file-hashes, wrapped', () => {
  it('answers { files: {…} } when wrapFileHashes is on (option or control route), the plain map otherwise', async () => {
    const plain = JSON.parse((await c.http.send({ method: 'GET', path: `${B}/data-model/file-hashes?branchName=main` })).text!);
    expect(plain['cube.js']).toEqual({ hash: sha1(DEMO_MODEL['cube.js']!) });
    await control(fx.em, 'tenant', { wrapFileHashes: true });
    try {
      const wrapped = JSON.parse((await c.http.send({ method: 'GET', path: `${B}/data-model/file-hashes?branchName=main` })).text!);
      expect(wrapped).toEqual({ files: plain });
    } finally {
      await control(fx.em, 'tenant', { wrapFileHashes: false });
    }
    const opt = await emulatorFixture({ wrapFileHashes: true });
    try {
      const res = await opt.admin.http.send({ method: 'GET', path: `${B}/data-model/file-hashes` });
      expect(Object.keys(JSON.parse(res.text!))).toEqual(['files']);
    } finally {
      await opt.close();
    }
  });

  it('the control route refuses a bad setting, naming it and what is expected, and changes nothing', async () => {
    const before = await control(fx.em, 'tenant');
    await expect(control(fx.em, 'tenant', { buildMs: -1 })).rejects.toThrow('buildMs: got -1, expected a non-negative number of ms');
    await expect(control(fx.em, 'tenant', { directUploads: 'no', buildMs: 5 })).rejects.toThrow('directUploads: got "no", expected true or false');
    await expect(control(fx.em, 'tenant', { speed: 1 })).rejects.toThrow('speed: not a tenant setting');
    expect(await control(fx.em, 'tenant')).toEqual(before);
  });
});

describe('the bin’s flags for these behaviours', () => {
  it('--help lists them; bad values exit 2 naming the flag, the value and what is expected', async () => {
    const run = async (args: string[]) => {
      const out: string[] = [];
      const code = await main(args, { out: (l) => out.push(l), err: (l) => out.push(l) });
      return { code, text: out.join('\n') };
    };
    const help = await run(['--help']);
    for (const flag of ['--no-direct-uploads', '--wrap-file-hashes', '--build-ms MS', '--warmup-ms MS', '--dbt-invisible-ms MS', '--older-deployments IDS']) {
      expect(help.text).toContain(flag);
    }
    expect(await run(['--build-ms=-1'])).toEqual({ code: 2, text: 'datamodel-ci-emulator: --build-ms: got "-1", expected a number of at least 0' });
    expect(await run(['--older-deployments', '1,x'])).toEqual({
      code: 2,
      text: 'datamodel-ci-emulator: --older-deployments: got "1,x", expected deployment ids separated by commas, e.g. 1,2',
    });
  });

  it('--no-direct-uploads starts a tenant that refuses uploads to shared branches', async () => {
    const child = spawn(process.execPath, ['packages/emulator/bin/datamodel-ci-emulator.mjs', '--seed', 'demo', '--no-direct-uploads'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exit = new Promise<number | null>((resolve) => child.on('exit', resolve));
    try {
      const line = await new Promise<string>((resolve) => createInterface({ input: child.stdout }).once('line', resolve));
      const info = JSON.parse(line) as { baseUrl: string; caFile: string; credentials: { admin: string } };
      const cli = new PlatformClient({ baseUrl: info.baseUrl, apiKey: info.credentials.admin, ca: info.caFile });
      const err = (await failure(cli.dataModel.startUpload({ deploymentId: 1, query: { branchName: 'feature-revenue' } }))) as BadRequestError;
      expect(err.platformMessage).toContain('is not a dev-mode branch');
      await cli.close();
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exit).toBe(0);
  });
});
