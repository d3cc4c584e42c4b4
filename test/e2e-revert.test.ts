/**
 * End to end as GitHub runs it: examples/workflows/revert.yml dispatched by hand, run by the harness step
 * by step with bash and the committed dist/, the emulator as the platform and the GitHub stand-in holding
 * the last validation record (a GitHub deployment a merged close wrote), with GITHUB_TOKEN granted only
 * what the workflow asks for (contents and deployments: read). A dry run merges nothing; "confirm" puts
 * production back to the recorded files, proven; a cancelled run (the runner's SIGINT) deletes the branch
 * it made and leaves production as it was.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { isDevBranch } from '@datamodel-ci/platform-api';
import { PlatformClient, collect } from '../src/client/index.js';
import { createGitHubApi } from '../src/github/octokit.js';
import { manifestOf, walked, type Manifest } from '../src/operations/upload-transaction.js';
import { makeRecord, recordManifest, type ValidationRecord } from '../src/operations/validation-record.js';
import { writeProductionRecord } from '../src/pr/production-record.js';
import { DEMO_MODEL, startEmulator, startGitHubStandin, type Emulator, type GitHubStandin } from '../packages/emulator/src/index.js';
import { runJob, type JobRunResult } from './harness/runner.js';
import { control, localOf, uploadTree } from './support/emulator.js';

const REPO = resolve('.');
const WORKFLOW = join(REPO, 'examples', 'workflows', 'revert.yml');
const TOKEN = 'ghs_e2e_revert_token_0123456789';
const CLOSER = 'ghp_the_close_that_wrote_the_record_0123';
const EXTRA = 'cubes:\n  - name: extra\n    sql_table: public.orders\n    measures:\n      - name: count\n        type: count\n';
const DRIFTED = {
  ...DEMO_MODEL,
  'model/cubes/orders.yml': DEMO_MODEL['model/cubes/orders.yml']!.replace('type: sum', 'type: avg'),
  'model/cubes/extra.yml': EXTRA,
};

let em: Emulator;
let gh: GitHubStandin;
let client: PlatformClient;
let caFile: string;
let record: ValidationRecord;
const userRepo = mkdtempSync(join(tmpdir(), 'dmci-revert-repo-'));

beforeAll(async () => {
  // A clock only the test moves: builds are instant until a test makes them take an hour.
  em = await startEmulator({ seed: 'demo', clock: { mode: 'manual' }, buildMs: 0, warmupMs: 0 });
  // GITHUB_TOKEN as the workflow grants it: writes to GitHub would be refused.
  const job = (parse(readFileSync(WORKFLOW, 'utf8')) as { jobs: { revert: { permissions: Record<string, 'read' | 'write'> } } }).jobs.revert;
  gh = await startGitHubStandin({ permissions: job.permissions });
  gh.addToken(CLOSER, { kind: 'pat', login: 'release-bot' });
  caFile = join(mkdtempSync(join(tmpdir(), 'dmci-revert-ca-')), 'ca.pem');
  writeFileSync(caFile, `${em.ca}\n${gh.ca}`);
  client = new PlatformClient({ baseUrl: em.baseUrl, apiKey: em.credentials.admin, ca: em.ca });
  for (const [p, c] of Object.entries(DEMO_MODEL)) {
    mkdirSync(dirname(join(userRepo, 'analytics', p)), { recursive: true });
    writeFileSync(join(userRepo, 'analytics', p), c);
  }
  // The last merged pull request's close: production proven equal to this model, recorded on GitHub.
  record = makeRecord({
    deploymentId: 1,
    branch: 'preview-pr-41',
    commit: '41'.repeat(20),
    files: manifestOf(await localOf(join(userRepo, 'analytics'))),
    status: { buildJobId: 3, updatedAt: '2026-12-01T10:00:00.000Z' },
  });
  const github = createGitHubApi({ token: CLOSER, repository: gh.repository, apiUrl: gh.url, ca: gh.ca });
  await writeProductionRecord(github, { ref: 'e1'.repeat(20), record, proof: { status: 'proven', files: [], members: [] } });
});
afterAll(async () => {
  await client.close();
  await em.close();
  await gh.close();
});

async function dispatch(inputs: { commit: string; confirm: boolean }, signal?: AbortSignal): Promise<JobRunResult> {
  return runJob({
    workflowFile: WORKFLOW,
    jobId: 'revert',
    repoDir: REPO,
    checkoutFrom: userRepo,
    event: { inputs },
    eventName: 'workflow_dispatch',
    github: { api_url: gh.url, repository: gh.repository, token: TOKEN, run_id: '9001' },
    secrets: { PLATFORM_API_KEY: em.credentials.admin },
    vars: { PLATFORM_API_URL: em.baseUrl, PLATFORM_DEPLOYMENT_ID: '1' },
    env: { NODE_EXTRA_CA_CERTS: caFile },
    inputs,
    ...(signal ? { signal, cancelGraceMs: 5_000 } : {}),
  });
}

const production = async (): Promise<Manifest> => walked(await client.dataModel.fileHashes({ deploymentId: 1, query: { branchName: 'main' } }));
const leftovers = async () => [
  ...(await collect(client.branches.iterate({ deploymentId: 1, query: { first: 100 } })))
    .map((b) => b.name)
    .filter((n) => n.includes('revert') || isDevBranch(n)),
  ...Object.keys(em.state.deployments[0]!.devSessions),
];
const log = (r: JobRunResult) => r.log.join('\n');

describe('revert.yml: put production back by hand', () => {
  it('1. dispatched without confirm: validates and shows what it would change, merges nothing, deletes its branch', async () => {
    await uploadTree(client, 1, 'main', DRIFTED);
    const drifted = await production();
    const r = await dispatch({ commit: '', confirm: false });
    expect(r.conclusion, log(r)).toBe('success');
    expect(r.stepOutputs.revert).toMatchObject({
      status: 'validated',
      merged: 'false',
      valid: 'true',
      commit: record.commit,
      branch: 'preview-revert-4141414',
    });
    expect(log(r)).toContain('- extra.count');
    expect(log(r)).toContain('~ orders.total_amount (measure avg → measure sum)');
    expect(r.summary).toContain('validated, not merged');
    expect(await production()).toEqual(drifted);
    expect(await leftovers()).toEqual([]);
    expect(gh.violations).toEqual([]);
  }, 120_000);

  it('2. dispatched with confirm: production holds exactly the recorded files again, proven, nothing left behind', async () => {
    const r = await dispatch({ commit: '', confirm: true });
    expect(r.conclusion, log(r)).toBe('success');
    expect(r.stepOutputs.revert).toMatchObject({ status: 'merged', merged: 'true', 'production-proof': 'proven' });
    expect(await production()).toEqual(walked(recordManifest(record)));
    expect(r.summary).toContain('proven: production = the restored model');
    expect(await leftovers()).toEqual([]);
  }, 120_000);

  it('3. cancelled while its branch builds: the branch it made is deleted, production untouched', async () => {
    // Builds now take an emulated hour on a clock that does not move: the revert waits until cancelled.
    await control(em, 'tenant', { buildMs: 3_600_000 });
    const controller = new AbortController();
    const watch = setInterval(() => {
      const b = em.state.deployments[0]!.branches['preview-revert-4141414'];
      // The model has landed on the branch (its view is back): cancel while the revert waits for its build.
      if (b && 'model/views/orders_view.yml' in b.head && !('model/cubes/extra.yml' in b.head)) controller.abort();
    }, 20);
    // Production changed out of band again: the view's file removed, a cube added.
    await uploadTree(client, 1, 'main', Object.fromEntries(Object.entries(DRIFTED).filter(([p]) => p !== 'model/views/orders_view.yml')));
    const drifted = await production();
    const r = await dispatch({ commit: '', confirm: true }, controller.signal).finally(() => clearInterval(watch));
    await control(em, 'tenant', { buildMs: 0 });
    expect(controller.signal.aborted, log(r)).toBe(true);
    expect(r.conclusion).toBe('cancelled');
    expect(log(r)).toContain('deleted branch preview-revert-4141414');
    expect(await leftovers()).toEqual([]);
    expect(await production()).toEqual(drifted);
  }, 120_000);
});
