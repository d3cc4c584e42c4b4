/**
 * The bundle as a GitHub Actions step runs it (`node dist/index.js <command>` with GITHUB_ACTIONS=true):
 * workflow commands on stdout, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, masks, signals. Also the sweep and
 * the event mapping over GitHub's own example payloads.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InputError } from '../src/client/index.js';
import { DEMO_MODEL, startGitHubStandin, type GitHubStandin } from '../packages/emulator/src/index.js';
import { branchForPr, branchForQueue } from '../src/branch-names.js';
import { pullRequestFromPayload } from '../src/github/event.js';
import { composeComment } from '../src/pr/comment/ledger.js';
import { runActionCommand } from '../src/commands/index.js';
import { emulatorFixture, type EmulatorFixture } from './support/emulator.js';
import { pullRequestEvent } from './support/payloads.js';

let fx: EmulatorFixture;
let gh: GitHubStandin;
let caFile: string;
const TOKEN = 'ghs_actions_mode_token_0123';

beforeAll(async () => {
  fx = await emulatorFixture({ clock: { scale: 200 } });
  gh = await startGitHubStandin();
  caFile = join(mkdtempSync(join(tmpdir(), 'dmci-ca-')), 'ca.pem');
  writeFileSync(caFile, `${fx.em.ca}\n${gh.ca}`);
});
afterAll(async () => {
  await fx.close();
  await gh.close();
});

interface Step {
  code: number | null;
  stdout: string;
  stderr: string;
  outputs: Record<string, string>;
  summary: string;
}

/** Run the bundle like a composite step, in `cwd` (the checkout; this repository by default); `onStdout` may signal the child. */
function step(command: string, env: Record<string, string>, onStdout?: (text: string, child: ReturnType<typeof spawn>) => void, cwd?: string): Promise<Step> {
  const dir = mkdtempSync(join(tmpdir(), 'dmci-step-'));
  const outputFile = join(dir, 'output');
  const summaryFile = join(dir, 'summary');
  writeFileSync(outputFile, '');
  writeFileSync(summaryFile, '');
  const child = spawn(process.execPath, [resolve('dist/index.js'), command], {
    ...(cwd ? { cwd } : {}),
    env: {
      PATH: process.env.PATH ?? '',
      GITHUB_ACTIONS: 'true',
      GITHUB_OUTPUT: outputFile,
      GITHUB_STEP_SUMMARY: summaryFile,
      GITHUB_REPOSITORY: gh.repository,
      GITHUB_API_URL: gh.url,
      GITHUB_RUN_ID: '99',
      DATAMODEL_CI_API_URL: fx.em.baseUrl,
      DATAMODEL_CI_API_KEY: fx.em.credentials.admin,
      DATAMODEL_CI_CA_CERT: caFile,
      DATAMODEL_CI_DEPLOYMENT_ID: '1',
      DATAMODEL_CI_GITHUB_TOKEN: TOKEN,
      ...env,
    },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
    onStdout?.(stdout, child);
  });
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => {
    child.on('exit', (code) => {
      const outputs: Record<string, string> = {};
      // `name<<delimiter\nvalue\ndelimiter` blocks, as @actions/core writes them.
      const text = readFileSync(outputFile, 'utf8');
      for (const m of text.matchAll(/^([\w-]+)<<(\S+)\n([\s\S]*?)\n\2$/gm)) outputs[m[1] as string] = m[3] as string;
      resolve({ code, stdout, stderr, outputs, summary: readFileSync(summaryFile, 'utf8') });
    });
  });
}

describe('as a GitHub Actions step', () => {
  it('validate: masks the key first, annotates file and line, sets outputs, writes the job summary, exits 1', async () => {
    const repo = mkdtempSync(join(tmpdir(), 'dmci-repo-'));
    const broken = { ...DEMO_MODEL, 'model/cubes/orders.yml': DEMO_MODEL['model/cubes/orders.yml']!.replace('type: sum', 'type: summ') };
    for (const [p, c] of Object.entries(broken)) {
      mkdirSync(dirname(join(repo, 'cube', p)), { recursive: true });
      writeFileSync(join(repo, 'cube', p), c);
    }
    const up = await step('upload-model', { DATAMODEL_CI_BRANCH: 'feature-revenue', DATAMODEL_CI_MODEL_DIR: join(repo, 'cube') });
    expect(up.code).toBe(0);
    expect(up.outputs).toMatchObject({ uploaded: '1', branch: 'feature-revenue', skipped: 'false' });
    // In the checkout, as a workflow runs it: model-dir is relative to the repository.
    const r = await step('validate', { DATAMODEL_CI_BRANCH: 'feature-revenue', DATAMODEL_CI_MODEL_DIR: 'cube' }, undefined, repo);
    expect(r.code).toBe(1);
    expect(r.stdout.split('\n')[0]).toBe(`::add-mask::${fx.em.credentials.admin}`);
    const line = broken['model/cubes/orders.yml'].split('\n').findIndex((l) => l.includes('summ')) + 1;
    expect(r.stdout).toMatch(
      new RegExp(`^::error title=data model,file=cube/model/cubes/orders.yml,line=${line}(,col=\\d+)?::.*"measures\\.total_amount\\.type" must be one of`, 'm'),
    );
    expect(r.outputs).toMatchObject({ valid: 'false', 'error-count': '1', status: 'invalid', branch: 'feature-revenue' });
    expect(r.summary).toContain('### ❌ Data-model preview · 1 error in 1 file');
    const everything = r.stdout.replace(/^::add-mask::.*$/gm, '') + r.stderr + r.summary + JSON.stringify(r.outputs);
    expect(everything).not.toContain(fx.em.credentials.admin);
    expect(everything).not.toContain(TOKEN);
  });

  it('without an API key (a push, a schedule: the secrets are there) the step fails naming the input and the secret; skip only when asked', async () => {
    const failed = await step('dbt-sync-and-wait', { DATAMODEL_CI_API_KEY: '' });
    expect(failed.code).toBe(1);
    expect(failed.outputs).toEqual({});
    expect(failed.stdout).toMatch(
      /^::error::dbt-sync-and-wait: api-key: got nothing, expected an API key: the input api-key is empty on a run that has the repository's secrets/m,
    );
    expect(failed.stdout).toContain('set the repository secret PLATFORM_API_KEY');
    const skipped = await step('dbt-sync-and-wait', { DATAMODEL_CI_API_KEY: '', DATAMODEL_CI_WITHOUT_CREDENTIALS: 'skip' });
    expect(skipped.code).toBe(0);
    expect(skipped.outputs).toMatchObject({ skipped: 'true' });
    expect(skipped.stdout).toMatch(
      /^::notice::Nothing ran: the input api-key is empty and without-credentials is skip\. To run it, set the repository secret PLATFORM_API_KEY/m,
    );
    expect(skipped.summary).toContain('### ⏭️ Data-model preview · skipped: no API key');
  });

  it('dbt-sync-and-wait: SIGINT during the wait cancels the remote run; the step fails', async () => {
    let sent = false;
    const r = await step('dbt-sync-and-wait', { DATAMODEL_CI_REF: 'main', DATAMODEL_CI_TIMEOUT_MINUTES: '30' }, (text, child) => {
      if (!sent && /dbt sync \S+ started/.test(text)) {
        sent = true;
        child.kill('SIGINT');
      }
    });
    expect(sent).toBe(true);
    expect(r.code).toBe(1);
    const id = r.outputs['sync-job-id']!;
    expect(id).toMatch(/^sync-/);
    expect(r.outputs.status).toBe('CANCELLED');
    const run = fx.em.state.deployments[0]!.dbtRuns.find((x) => x.syncJobId === id)!;
    expect(run.cancelledAt).toBeDefined();
    const history = await fx.admin.dbtSync.list({ deploymentId: 1, query: { status: 'CANCELLED', first: 100 } });
    expect(history.items.some((h) => h.syncJobId === id)).toBe(true);
  });

  it('dbt-sync-and-wait: waits to COMPLETED (emulated time runs 200x)', async () => {
    const r = await step('dbt-sync-and-wait', { DATAMODEL_CI_REF: 'main', DATAMODEL_CI_TIMEOUT_MINUTES: '10', DATAMODEL_CI_FIRST_POLL_SECONDS: '0' });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.outputs).toMatchObject({ status: 'COMPLETED', 'timed-out': 'false' });
    expect(r.stdout).toContain('── parse (15.0 s)');
  });
});

describe('cleanup-branch sweep', () => {
  it("deletes only what a ledger of this repository says a run created, and a queue branch of this repository's commit; orphans only under delete-orphans; dry-run deletes nothing", async () => {
    for (const n of [31, 32, 33, 34]) await fx.admin.branches.create({ deploymentId: 1, body: { name: branchForPr('preview-', n) } });
    // Branches merge queue runs left (killed before they removed them): they go with their pull request,
    // their entry's commit being one of this repository's.
    gh.addCommit({ sha: 'f'.repeat(40), message: 'a merge group' });
    for (const n of [31, 33]) await fx.admin.branches.create({ deploymentId: 1, body: { name: branchForQueue('preview-', n, 'f'.repeat(40)) } });
    gh.addPull({ number: 31, headSha: 'a'.repeat(40), headRef: 'x' }); // open
    gh.addPull({ number: 32, headSha: 'b'.repeat(40), headRef: 'y' });
    gh.closePull(32, false); // closed just now: younger than min-age
    gh.addComment(32, composeComment({ deploymentId: '1', ledger: { deploymentId: '1', branch: 'preview-pr-32' } }), 'github-actions[bot]');
    gh.addPull({ number: 33, headSha: 'c'.repeat(40), headRef: 'z' });
    gh.closePull(33, true);
    // 33's comment (by the token the toolkit writes with) names its preview branch: the sweep's evidence.
    gh.addComment(
      33,
      composeComment({ deploymentId: '1', ledger: { deploymentId: '1', branch: 'preview-pr-33', created: 'preview-pr-33' } }),
      'github-actions[bot]',
    );
    // 35 is closed with no comment of the toolkit: its branch is nobody's preview that the toolkit knows of.
    await fx.admin.branches.create({ deploymentId: 1, body: { name: branchForPr('preview-', 35) } });
    gh.addPull({ number: 35, headSha: 'd'.repeat(40), headRef: 'w' });
    gh.closePull(35, false);
    // 34 has no PR at all: its branch goes only once it has not built for min-age, by the platform's times,
    // and the emulated clock here runs 200 times ahead of this machine's (test/checked-writes.test.ts sweeps one).
    const io = (lines: string[]) => ({ out: (l: string) => lines.push(l), err: (l: string) => lines.push(l) });
    const env = {
      DATAMODEL_CI_API_URL: fx.em.baseUrl,
      DATAMODEL_CI_API_KEY: fx.em.credentials.admin,
      DATAMODEL_CI_CA_CERT: `${fx.em.ca}\n${gh.ca}`,
      DATAMODEL_CI_DEPLOYMENT_ID: '1',
      DATAMODEL_CI_GITHUB_TOKEN: TOKEN,
      DATAMODEL_CI_MODE: 'sweep',
      DATAMODEL_CI_MIN_AGE: '0s',
      GITHUB_REPOSITORY: gh.repository,
      GITHUB_API_URL: gh.url,
    };
    const names = () =>
      Object.keys(fx.em.state.deployments[0]!.branches)
        .filter((n) => /^preview-(pr|mq)-3\d/.test(n))
        .sort();
    const dry: string[] = [];
    expect(await runActionCommand('cleanup-branch', ['--json'], { ...io(dry), env: { ...env, DATAMODEL_CI_DRY_RUN: 'true' } })).toBe(0);
    const queued = (n: number) => `preview-mq-${n}-ffffffffffff`;
    expect(names()).toEqual([queued(31), queued(33), 'preview-pr-31', 'preview-pr-32', 'preview-pr-33', 'preview-pr-34', 'preview-pr-35']);
    expect(JSON.parse(dry.at(-1)!).outputs).toMatchObject({ deleted: '0', status: 'dry-run' });
    const young: string[] = [];
    expect(await runActionCommand('cleanup-branch', ['--json'], { ...io(young), env: { ...env, DATAMODEL_CI_MIN_AGE: '1h' } })).toBe(0);
    // min-age holds for a gone PR's branch too (issue 28): it last built less than an hour ago.
    expect(names()).toEqual([queued(31), queued(33), 'preview-pr-31', 'preview-pr-32', 'preview-pr-33', 'preview-pr-34', 'preview-pr-35']);
    const all: string[] = [];
    expect(await runActionCommand('cleanup-branch', ['--json'], { ...io(all), env })).toBe(0);
    // 32's ledger names the branch but does not say a run created it; 34 has no pull request; 35 no comment:
    // orphans (another repository's previews look like that), listed and kept.
    expect(names()).toEqual([queued(31), 'preview-pr-31', 'preview-pr-32', 'preview-pr-34', 'preview-pr-35']);
    const orphans = (JSON.parse(all.at(-1)!) as { outputs: Record<string, string> }).outputs;
    expect(orphans).toMatchObject({ deleted: '2', status: 'swept' });
    // delete-orphans releases them only once idle for min-age by the platform's times, which run ahead of
    // this machine's here: their age is unknown, so they stay (test/checked-writes.test.ts deletes some).
    const released: string[] = [];
    expect(await runActionCommand('cleanup-branch', ['--json'], { ...io(released), env: { ...env, DATAMODEL_CI_DELETE_ORPHANS: 'true' } })).toBe(0);
    expect(names()).toEqual([queued(31), 'preview-pr-31', 'preview-pr-32', 'preview-pr-34', 'preview-pr-35']);
    expect(gh.violations).toEqual([]);
  });
});

describe('event mapping over GitHub’s example payloads', () => {
  const definitions = createRequire(import.meta.url)('@octokit/webhooks-examples') as { name: string; examples: Record<string, unknown>[] }[];
  const examples = definitions.find((d) => d.name === 'pull_request')!.examples;

  it('reads every pull_request example', () => {
    for (const e of examples) {
      const pr = pullRequestFromPayload(e);
      expect(pr.number).toBeGreaterThan(0);
      expect(pr.headSha).toMatch(/^[0-9a-f]{40}$/);
      expect(pr.action).toBe(e.action);
    }
  });

  it('maps opened, synchronize, reopened and closed (merged set by the test) to the same branch', () => {
    for (const action of ['opened', 'synchronize', 'reopened', 'closed']) {
      const pr = pullRequestFromPayload(pullRequestEvent(action, { number: 7, merged: action === 'closed' }));
      expect(branchForPr('preview-', pr.number)).toBe('preview-pr-7');
      expect(pr.merged).toBe(action === 'closed');
      expect(pr.fork).toBe(false);
    }
    expect(pullRequestFromPayload(pullRequestEvent('opened', { fork: true })).fork).toBe(true);
  });

  it('refuses a malformed payload, naming the field', () => {
    expect(() => pullRequestFromPayload({ action: 'opened' })).toThrow(InputError);
    expect(() => pullRequestFromPayload({ action: 'opened', pull_request: { number: 'x' } })).toThrow(
      'event payload.pull_request.number: got "x", expected a positive integer',
    );
    const noSha = pullRequestEvent('opened');
    (noSha.pull_request as { head: { sha: unknown } }).head.sha = 'not-a-sha';
    expect(() => pullRequestFromPayload(noSha)).toThrow('event payload.pull_request.head.sha: got "not-a-sha", expected a commit SHA');
  });
});
