/**
 * End to end as GitHub runs it: examples/workflows/drift.yml played by the harness with the committed
 * dist/, on a schedule and on demand, the emulator as the platform and the GitHub stand-in granting the
 * token exactly the job's permissions (contents: read, issues: write, deployments: read). In sync the job
 * is green and opens nothing; an upload from outside the repository's flow fails it and opens the one
 * issue; the next run updates it; production put back closes it.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_MODEL, startEmulator, startGitHubStandin, type Emulator, type GitHubStandin } from '../packages/emulator/src/index.js';
import { PlatformClient } from '../src/client/index.js';
import { parseDriftMarker } from '../src/pr/drift-issue.js';
import { runJob, workflowTriggers, type JobRunResult } from './harness/runner.js';
import { uploadTree } from './support/emulator.js';

const REPO = resolve('.');
const WORKFLOW = join(REPO, 'examples', 'workflows', 'drift.yml');
const EXTRA = 'cubes:\n  - name: hotfix\n    sql_table: public.orders\n    measures:\n      - name: count\n        type: count\n';

let em: Emulator;
let gh: GitHubStandin;
let client: PlatformClient;
let caFile: string;
const userRepo = mkdtempSync(join(tmpdir(), 'dmci-drift-repo-'));

beforeAll(async () => {
  em = await startEmulator({ seed: 'demo', clock: { mode: 'manual' }, buildMs: 0, warmupMs: 0 });
  gh = await startGitHubStandin({ permissions: { contents: 'read', issues: 'write', deployments: 'read' } });
  caFile = join(mkdtempSync(join(tmpdir(), 'dmci-drift-ca-')), 'ca.pem');
  writeFileSync(caFile, `${em.ca}\n${gh.ca}`);
  client = new PlatformClient({ baseUrl: em.baseUrl, apiKey: em.credentials.admin, ca: em.ca });
  for (const [p, c] of Object.entries(DEMO_MODEL)) {
    mkdirSync(dirname(join(userRepo, 'analytics', p)), { recursive: true });
    writeFileSync(join(userRepo, 'analytics', p), c);
  }
  await uploadTree(client, 1, 'main', DEMO_MODEL);
});
afterAll(async () => {
  await client.close();
  await em.close();
  await gh.close();
});

async function watch(eventName: 'schedule' | 'workflow_dispatch'): Promise<JobRunResult> {
  const event = eventName === 'schedule' ? { schedule: '23 */6 * * *' } : { inputs: {} };
  expect(workflowTriggers(WORKFLOW, eventName, event).runs).toBe(true);
  return runJob({
    workflowFile: WORKFLOW,
    jobId: 'drift',
    repoDir: REPO,
    checkoutFrom: userRepo,
    eventName,
    event,
    github: { api_url: gh.url, repository: gh.repository, token: 'ghs_drift_e2e_0123456789', run_id: '6060', sha: 'b'.repeat(40) },
    secrets: { PLATFORM_API_KEY: em.credentials.admin },
    vars: { PLATFORM_API_URL: em.baseUrl, PLATFORM_DEPLOYMENT_ID: '1' },
    env: { NODE_EXTRA_CA_CERTS: caFile },
  });
}

const issues = () => gh.issues().filter((i) => parseDriftMarker(i.body)?.deploymentId === 1);

describe('drift.yml: the scheduled watch', () => {
  it('in sync: green, status in-sync, no issue', async () => {
    const r = await watch('schedule');
    expect(r.conclusion, r.log.join('\n')).toBe('success');
    expect(r.stepOutputs.drift).toMatchObject({ status: 'in-sync', 'drift-files': '0', 'drift-members': '0', 'issue-number': '' });
    expect(r.summary).toContain('Production matches the model in git');
    expect(issues()).toEqual([]);
    expect(gh.violations).toEqual([]);
  }, 120_000);

  it('an upload from outside the flow: red, the issue opened with the file and the member; the next run updates it; put back, it closes', async () => {
    await uploadTree(client, 1, 'main', { ...DEMO_MODEL, 'model/cubes/hotfix.yml': EXTRA });
    const first = await watch('schedule');
    expect(first.conclusion).toBe('failure');
    expect(first.stepOutputs.drift).toMatchObject({ status: 'drift', 'drift-files': '1', 'drift-members': '1' });
    const [issue] = issues();
    expect(issue).toMatchObject({ state: 'open', user: 'github-actions[bot]' });
    expect(issue!.body).toContain('`model/cubes/hotfix.yml`');
    expect(issue!.body).toContain('`hotfix.count`');
    expect(first.stepOutputs.drift!['issue-number']).toBe(String(issue!.number));
    expect(first.annotations.some((a) => a.level === 'error' && a.message.includes('production differs'))).toBe(true);
    const again = await watch('workflow_dispatch');
    expect(again.conclusion).toBe('failure');
    expect(issues().map((i) => [i.number, i.state])).toEqual([[issue!.number, 'open']]);
    await uploadTree(client, 1, 'main', DEMO_MODEL);
    const back = await watch('schedule');
    expect(back.conclusion, back.log.join('\n')).toBe('success');
    expect(issues().map((i) => [i.number, i.state])).toEqual([[issue!.number, 'closed']]);
    expect(gh.violations).toEqual([]);
  }, 180_000);
});
