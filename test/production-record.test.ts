/**
 * Where the close leaves the last validation record (issue 37): a GitHub deployment of the merge commit to
 * `datamodel-ci-production-<id>`, its payload the record, read back by a later job through GitHub's REST
 * API (the stand-in, checked against GitHub's description); the newest wins, and a payload this version
 * cannot read is said, not taken.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGitHubStandin, type GitHubStandin } from '../packages/emulator/src/github/standin.js';
import { createGitHubApi } from '../src/github/octokit.js';
import { makeRecord } from '../src/operations/validation-record.js';
import { productionEnvironment, readProductionRecord, writeProductionRecord } from '../src/pr/production-record.js';

let gh: GitHubStandin;
beforeAll(async () => {
  gh = await startGitHubStandin();
});
afterAll(() => gh.close());

const api = () => createGitHubApi({ token: 'ghs_record_token_0123456789', repository: gh.repository, apiUrl: gh.url, ca: gh.ca });
const record = (commit: string, hash: string) =>
  makeRecord({
    deploymentId: 7,
    branch: 'preview-pr-3',
    commit,
    files: { 'model/cubes/orders.yml': { hash }, 'cube.js': { hash: 'c'.repeat(40) } },
    status: { buildJobId: 12, updatedAt: '2026-12-06T10:00:00.000Z', filesHash: 'f'.repeat(40) },
    cubeVersion: '1.7.43',
    layer: { digest: 'd'.repeat(40), members: 9 },
  });

describe('the production record', () => {
  it('is none before a close wrote one', async () => {
    expect(await readProductionRecord(api(), 7)).toBeUndefined();
  });

  it('is written as a production deployment of the merge commit and read back whole; the newest wins', async () => {
    const first = record('a'.repeat(40), '1'.repeat(40));
    await writeProductionRecord(api(), { ref: 'a'.repeat(40), record: first, proof: { status: 'proven', files: [], members: [] } });
    const second = record('b'.repeat(40), '2'.repeat(40));
    await writeProductionRecord(api(), { ref: 'b'.repeat(40), record: second, proof: { status: 'differs', files: [], members: [], reason: 'x' } });
    const read = await readProductionRecord(api(), 7);
    expect(read).toMatchObject({ record: second, proof: { status: 'differs', reason: 'x' }, ref: 'b'.repeat(40) });
    const deployments = gh.deployments().filter((d) => d.environment === productionEnvironment(7));
    expect(deployments).toHaveLength(2);
    expect(deployments.at(-1)).toMatchObject({ productionEnvironment: true, transientEnvironment: false });
    expect(gh.violations).toEqual([]);
  });

  it('a payload this version cannot read is said, never taken for a record', async () => {
    await api().createDeployment({
      ref: 'c'.repeat(40),
      environment: productionEnvironment(8),
      description: 'someone else',
      payload: { other: 1 },
      production: true,
    });
    expect(await readProductionRecord(api(), 8)).toMatchObject({ problem: expect.stringContaining('carries no validation record') });
  });
});
