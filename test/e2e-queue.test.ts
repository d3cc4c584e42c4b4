/**
 * End to end in a merge queue, as GitHub runs it: examples/workflows/preview.yml played by the harness
 * (bash, the committed dist/) for pull_request and merge_group events, the emulator as the platform, the
 * GitHub stand-in's merge queue stacking each entry on the base branch and the entries ahead.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_MODEL, startEmulator, startGitHubStandin, type Emulator, type GitHubStandin } from '../packages/emulator/src/index.js';
import type { MergeGroup } from '../packages/emulator/src/github/standin.js';
import { PlatformClient, collect } from '../src/client/index.js';
import { runJob, workflowTriggers, type JobRunResult } from './harness/runner.js';
import { mergeGroupEvent, pullRequestEvent } from './support/payloads.js';

const REPO = resolve('.');
const PREVIEW = join(REPO, 'examples', 'workflows', 'preview.yml');
const GATE = { file: join(REPO, 'examples', 'workflows', 'merge-queue.yml'), job: 'gate' };
const CHECK = 'datamodel-ci / validation';
const ORDERS = 'model/cubes/orders.yml';
const VIEW = 'model/views/orders_view.yml';

/** PR 11 renames orders.count to orders.order_count (and its view follows): valid alone. */
const RENAME = {
  [ORDERS]: DEMO_MODEL[ORDERS]!.replace('      - name: count\n', '      - name: order_count\n'),
  [VIEW]: DEMO_MODEL[VIEW]!.replace('          - count\n', '          - order_count\n'),
};
/** PR 12 adds a view of orders.count: valid alone, invalid on top of PR 11. */
const STATUS_VIEW = {
  'model/views/status_view.yml':
    'views:\n  - name: status_view\n    cubes:\n      - join_path: orders\n        includes:\n          - count\n          - status\n',
};

let em: Emulator;
let gh: GitHubStandin;
let client: PlatformClient;
let caFile: string;
const captured: string[] = [];

/** A checkout: the demo model in analytics/ with `files` on top. */
function checkout(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'dmci-queue-checkout-'));
  for (const [p, c] of Object.entries({ ...DEMO_MODEL, ...files })) {
    mkdirSync(dirname(join(root, 'analytics', p)), { recursive: true });
    writeFileSync(join(root, 'analytics', p), c);
  }
  writeFileSync(join(root, 'README.md'), '# a data team repository\n');
  return root;
}

async function play(
  eventName: 'pull_request' | 'merge_group',
  event: Record<string, unknown>,
  tree: string,
  secrets = true,
  workflow = { file: PREVIEW, job: 'preview' },
): Promise<JobRunResult> {
  expect(workflowTriggers(workflow.file, eventName, event).runs).toBe(true);
  const r = await runJob({
    workflowFile: workflow.file,
    jobId: workflow.job,
    repoDir: REPO,
    checkoutFrom: tree,
    eventName,
    event,
    github: { api_url: gh.url, repository: gh.repository, token: 'ghs_queue_token_0123456789', run_id: '880' },
    secrets: secrets ? { PLATFORM_API_KEY: em.credentials.admin } : {},
    vars: { PLATFORM_API_URL: em.baseUrl, PLATFORM_DEPLOYMENT_ID: '1' },
    env: { NODE_EXTRA_CA_CERTS: caFile },
  });
  captured.push(r.log.join('\n'), r.summary);
  return r;
}

/** A pull_request event whose `changed_files` agrees with the stand-in's list. */
function prEvent(action: string, pr: number, headSha: string, files: number, extra: { merged?: boolean; mergeCommitSha?: string } = {}) {
  const e = pullRequestEvent(action, { number: pr, headSha, ...extra });
  (e.pull_request as Record<string, unknown>).changed_files = files;
  return e;
}
const queueEvent = (g: MergeGroup) => mergeGroupEvent(g, pullRequestEvent('opened').repository);
const platformBranches = async () => (await collect(client.branches.iterate({ deploymentId: 1 }))).map((b) => b.name);
const ours = (r: JobRunResult) => r.steps.find((s) => s.uses?.startsWith('your-org/datamodel-ci'))!;
const files = (changes: Record<string, string>) => Object.keys(changes).map((p) => `analytics/${p}`);

beforeAll(async () => {
  em = await startEmulator({ seed: 'demo', clock: { scale: 100 } });
  gh = await startGitHubStandin();
  caFile = join(mkdtempSync(join(tmpdir(), 'dmci-queue-ca-')), 'ca.pem');
  writeFileSync(caFile, `${em.ca}\n${gh.ca}`);
  client = new PlatformClient({ baseUrl: em.baseUrl, apiKey: em.credentials.admin, ca: em.ca });
});
afterAll(async () => {
  // No key, no token ever reaches a log or a summary.
  for (const text of captured) {
    expect(text).not.toContain(em.credentials.admin);
    expect(text).not.toContain('ghs_queue_token_0123456789');
  }
  await client.close();
  await em.close();
  await gh.close();
});

describe('the merge queue (preview.yml on merge_group)', () => {
  let first: MergeGroup;
  let second: MergeGroup;
  let comments: Record<number, string>;

  it('two pull requests, each valid alone', async () => {
    gh.addPull({ number: 11, headSha: 'b'.repeat(40), headRef: 'rename-count', title: 'Rename orders.count', files: files(RENAME) });
    gh.addPull({ number: 12, headSha: 'c'.repeat(40), headRef: 'status-view', title: 'A view by status', files: files(STATUS_VIEW) });
    const a = await play('pull_request', prEvent('opened', 11, 'b'.repeat(40), 2), checkout(RENAME));
    const b = await play('pull_request', prEvent('opened', 12, 'c'.repeat(40), 1), checkout(STATUS_VIEW));
    expect([a.conclusion, b.conclusion], [...a.log, ...b.log].join('\n')).toEqual(['success', 'success']);
    expect([ours(a).outputs.valid, ours(b).outputs.valid]).toEqual(['true', 'true']);
    comments = { 11: gh.comments(11)[0]!.body, 12: gh.comments(12)[0]!.body };
  });

  it('queued together: the first entry validates its merge commit and leaves nothing behind', async () => {
    const before = { branches: await platformBranches(), deployments: gh.deployments().length };
    first = gh.enqueue(11);
    second = gh.enqueue(12);
    const r = await play('merge_group', queueEvent(first), checkout(RENAME));
    expect(r.conclusion, r.log.join('\n')).toBe('success');
    expect(ours(r).outputs).toMatchObject({ valid: 'true', status: 'valid', branch: `preview-mq-11-${first.headSha.slice(0, 12)}`, skipped: 'false' });
    const check = gh.checkRuns().find((c) => c.headSha === first.headSha)!;
    expect(check).toMatchObject({ name: CHECK, conclusion: 'success' });
    expect(gh.verdict(first.headSha, [CHECK]).result).toBe('pass');
    // Nothing behind: no branch, no comment written, no GitHub deployment.
    expect(await platformBranches()).toEqual(before.branches);
    expect({ 11: gh.comments(11)[0]!.body, 12: gh.comments(12)[0]!.body }).toEqual(comments);
    expect(gh.deployments()).toHaveLength(before.deployments);
    expect(r.summary).toContain('merge queue: pull request #11');
  });

  it('the second entry holds both changes: invalid together, it fails in the queue with the error on its line', async () => {
    const r = await play('merge_group', queueEvent(second), checkout({ ...RENAME, ...STATUS_VIEW }));
    expect(r.conclusion).toBe('failure');
    expect(ours(r).outputs).toMatchObject({ valid: 'false', status: 'invalid', 'error-count': '1' });
    const check = gh.checkRuns().find((c) => c.headSha === second.headSha)!;
    expect(check).toMatchObject({ name: CHECK, conclusion: 'failure' });
    expect(check.annotations[0]).toMatchObject({ path: 'analytics/model/views/status_view.yml' });
    expect(check.annotations[0]!.message).toMatch(/count/);
    expect(gh.verdict(second.headSha, [CHECK]).result).toBe('fail');
    expect((await platformBranches()).filter((b) => b.includes('mq-'))).toEqual([]);
    expect(gh.comments(12)[0]!.body).toBe(comments[12]);
  });

  it('the queue merges the first: its close says the merge commit was validated in the queue', async () => {
    gh.finishGroup(first.headSha, 'merged');
    gh.finishGroup(second.headSha, 'dequeued');
    const r = await play('pull_request', prEvent('closed', 11, 'b'.repeat(40), 2, { merged: true, mergeCommitSha: first.headSha }), checkout(RENAME));
    expect(r.conclusion, r.log.join('\n')).toBe('success');
    const body = gh.comments(11)[0]!.body;
    expect(body).toContain(`Validated in the merge queue at \`${first.headSha.slice(0, 7)}\``);
    expect(body).toContain('### 🔀 Data-model preview · merged into `main`');
  });

  it('merge-queue.yml (for validation-gate.yml users): an entry that changes no model file is not validated, the check is neutral with the reason', async () => {
    gh.addPull({ number: 13, headSha: 'd'.repeat(40), headRef: 'readme', files: ['README.md'] });
    const g = gh.enqueue(13);
    expect(workflowTriggers(GATE.file, 'pull_request', prEvent('opened', 13, 'd'.repeat(40), 1)).runs).toBe(false);
    const r = await play('merge_group', queueEvent(g), checkout(RENAME), true, GATE);
    expect(r.conclusion).toBe('success');
    expect(ours(r).outputs).toMatchObject({ skipped: 'true', status: 'untouched' });
    const check = gh.checkRuns().find((c) => c.headSha === g.headSha)!;
    expect(check).toMatchObject({ name: CHECK, conclusion: 'neutral', output: expect.objectContaining({ title: 'Not checked: no change under analytics/' }) });
    expect(gh.verdict(g.headSha, [CHECK]).result).toBe('pass');
  });

  it('a pull request run without an API key fails, and its check says failure (never neutral, which would pass)', async () => {
    gh.addPull({ number: 15, headSha: 'f'.repeat(40), headRef: 'no-key-pr', files: files(STATUS_VIEW) });
    const r = await play('pull_request', prEvent('opened', 15, 'f'.repeat(40), 1), checkout(STATUS_VIEW), false);
    expect(r.conclusion).toBe('failure');
    const check = gh.checkRuns().find((c) => c.headSha === 'f'.repeat(40))!;
    expect(check).toMatchObject({ name: CHECK, conclusion: 'failure', output: expect.objectContaining({ title: 'No API key: the input api-key is empty' }) });
    expect(gh.verdict('f'.repeat(40), [CHECK]).result).toBe('fail');
    expect(gh.comments(15)).toEqual([]);
  });

  it('a queue run without an API key fails, its check too: a pass would let the queue merge it', async () => {
    gh.addPull({ number: 14, headSha: 'e'.repeat(40), headRef: 'no-key', files: files(STATUS_VIEW) });
    const g = gh.enqueue(14);
    const r = await play('merge_group', queueEvent(g), checkout(STATUS_VIEW), false);
    expect(r.conclusion).toBe('failure');
    expect(r.annotations.map((a) => a.message).join('\n')).toContain('the input api-key is empty in the merge queue');
    const checks = gh.checkRuns().filter((c) => c.headSha === g.headSha);
    expect(checks).toEqual([
      expect.objectContaining({ name: CHECK, conclusion: 'failure', output: expect.objectContaining({ title: 'No API key: the input api-key is empty' }) }),
    ]);
    expect(checks[0]!.output.summary).toContain(`merge pull request #14 with nothing validated`);
    expect(gh.verdict(g.headSha, [CHECK]).result).toBe('fail');
    expect(gh.violations).toEqual([]);
  });
});
