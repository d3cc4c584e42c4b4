/**
 * End to end as GitHub runs it: the example workflows of the README (examples/workflows/*.yml), run by
 * the harness step by step with bash, the committed dist/, real event payloads, the emulator as the
 * platform and the GitHub REST stand-in.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { parseComment } from '../src/pr/comment/ledger.js';
import { DEMO_MODEL, startEmulator, startGitHubStandin, type Emulator, type GitHubStandin } from '../packages/emulator/src/index.js';
import { PlatformClient, collect } from '../src/client/index.js';
import { runAction, runJob, type ActionRunResult, type JobRunResult } from './harness/runner.js';
import { pullRequestEvent } from './support/payloads.js';

const REPO = resolve('.');
const WF = (name: string) => (name.startsWith('/') ? name : join(REPO, 'examples', 'workflows', name));

/** A copy of an example workflow with more `with:` inputs on one step (a setting the example leaves at its default). */
function withInputs(name: string, jobId: string, stepId: string, inputs: Record<string, string>): string {
  const doc = parseDocument(readFileSync(WF(name), 'utf8'));
  const steps = doc.getIn(['jobs', jobId, 'steps']) as { items: { get(k: string): unknown; setIn(path: string[], v: string): void }[] };
  const step = steps.items.find((s) => s.get('id') === stepId)!;
  for (const [k, v] of Object.entries(inputs)) step.setIn(['with', k], v);
  const file = join(mkdtempSync(join(tmpdir(), 'dmci-e2e-wf-')), name);
  writeFileSync(file, doc.toString());
  return file;
}
const TOKEN = 'ghs_e2e_token_0123456789abcdef';

let em: Emulator;
let gh: GitHubStandin;
let client: PlatformClient;
let caFile: string;
/** The user's repository the checkout stand-in copies (the model lives in analytics/). */
const userRepo = mkdtempSync(join(tmpdir(), 'dmci-user-repo-'));
/** Everything any run printed or wrote, for the secrets scan. */
const captured: string[] = [];
/** Secrets of emulators a single test starts (the last test looks for them too). */
const minted: string[] = [];

function setModel(files: Record<string, string | null>): void {
  for (const [p, c] of Object.entries(files)) {
    const abs = join(userRepo, 'analytics', p);
    if (c === null) rmSync(abs, { force: true });
    else {
      mkdirSync(dirname(abs), { recursive: true });
      writeFileSync(abs, c);
    }
  }
}

beforeAll(async () => {
  // Emulated time runs 100x, so a 42 s dbt sync takes under half a second.
  em = await startEmulator({ seed: 'demo', clock: { scale: 100 } });
  gh = await startGitHubStandin();
  caFile = join(mkdtempSync(join(tmpdir(), 'dmci-e2e-ca-')), 'ca.pem');
  writeFileSync(caFile, `${em.ca}\n${gh.ca}`);
  client = new PlatformClient({ baseUrl: em.baseUrl, apiKey: em.credentials.admin, ca: em.ca });
  setModel(DEMO_MODEL);
  writeFileSync(join(userRepo, 'README.md'), '# a data team repository\n');
});
afterAll(async () => {
  await client.close();
  await em.close();
  await gh.close();
});

function record(r: JobRunResult | ActionRunResult): void {
  captured.push(r.log.join('\n'), r.summary, JSON.stringify(r.annotations), JSON.stringify('stepOutputs' in r ? r.stepOutputs : r.outputs), r.debug.join('\n'));
}

interface JobOptions {
  event?: Record<string, unknown>;
  eventName?: string;
  secrets?: Record<string, string> | null;
  inputs?: Record<string, unknown>;
  signal?: AbortSignal;
  onStepStart?: (s: { uses?: string }) => void | Promise<void>;
}

async function job(workflow: string, jobId: string, o: JobOptions = {}): Promise<JobRunResult> {
  const r = await runJob({
    workflowFile: WF(workflow),
    jobId,
    repoDir: REPO,
    checkoutFrom: userRepo,
    event: o.event ?? {},
    eventName: o.eventName ?? 'pull_request',
    github: { api_url: gh.url, repository: gh.repository, token: TOKEN, run_id: '777' },
    secrets: o.secrets === null ? {} : (o.secrets ?? { PLATFORM_API_KEY: em.credentials.admin }),
    vars: { PLATFORM_API_URL: em.baseUrl, PLATFORM_DEPLOYMENT_ID: '1' },
    env: { NODE_EXTRA_CA_CERTS: caFile },
    ...(o.inputs ? { inputs: o.inputs } : {}),
    ...(o.signal ? { signal: o.signal, cancelGraceMs: 3_000 } : {}),
    ...(o.onStepStart ? { onStepStart: o.onStepStart } : {}),
  });
  record(r);
  return r;
}

const ours = (r: JobRunResult) => r.steps.find((s) => s.uses?.startsWith('your-org/datamodel-ci'))!;
const sha = (pr: number, n: number) => `${pr.toString(16)}f${n}`.padEnd(40, '0');
const comments = (pr: number) => gh.comments(pr);
const branches = async () => (await collect(client.branches.iterate({ deploymentId: 1 }))).map((b) => b.name);

describe('preview.yml: one pull request’s life', () => {
  const PR = 2;
  it('1. opened: branch, upload, validation, staging; one comment with the URL and "valid"; outputs; summary', async () => {
    gh.addPull({ number: PR, headSha: sha(PR, 1), headRef: 'changes', baseRef: 'master', title: 'Update the README with new information.' });
    const r = await job('preview.yml', 'preview', { event: pullRequestEvent('opened', { number: PR, headSha: sha(PR, 1) }) });
    expect(r.conclusion, r.log.join('\n')).toBe('success');
    const out = ours(r).outputs;
    expect(out).toMatchObject({ branch: 'preview-pr-2', valid: 'true', 'error-count': '0', skipped: 'false' });
    expect(out['staging-url']).toBe(`${em.deployments[0]!.deploymentUrl}/dev-mode/preview-pr-2/cubejs-api/v1`);
    expect(comments(PR)).toHaveLength(1);
    expect(comments(PR)[0]!.body).toContain('✅ valid');
    expect(comments(PR)[0]!.body).toContain('/dev-mode/preview-pr-2/cubejs-api/v1');
    expect(r.summary).toContain('### ✅ Data-model preview · ready');
    expect(await branches()).toContain('preview-pr-2');
    expect(gh.violations).toEqual([]);
  });

  it('2. a push with a broken model: the step fails, the check run points at the file and line, the comment is updated in place', async () => {
    gh.setHead(PR, sha(PR, 2));
    const broken = DEMO_MODEL['model/cubes/orders.yml']!.replace('type: sum', 'type: summ');
    setModel({ 'model/cubes/orders.yml': broken });
    const before = comments(PR)[0]!;
    const r = await job('preview.yml', 'preview', { event: pullRequestEvent('synchronize', { number: PR, headSha: sha(PR, 2) }) });
    expect(r.conclusion).toBe('failure');
    const line = broken.split('\n').findIndex((l) => l.includes('summ')) + 1;
    const check = gh
      .checkRuns()
      .filter((c) => c.name === 'datamodel-ci / validation')
      .at(-1)!;
    expect(check).toMatchObject({ headSha: sha(PR, 2), conclusion: 'failure' });
    expect(check.annotations[0]).toMatchObject({ path: 'analytics/model/cubes/orders.yml', startLine: line, title: 'data model' });
    expect(check.annotations[0]!.message).toContain('"measures.total_amount.type" must be one of');
    expect(comments(PR)).toHaveLength(1);
    expect(comments(PR)[0]!.id).toBe(before.id);
    expect(comments(PR)[0]!.body).toContain('### ❌ Data-model preview · 1 error in 1 file');
    expect(ours(r).outputs).toMatchObject({ valid: 'false', 'error-count': '1' });
  });

  it('3. a push fixing it passes; still one comment', async () => {
    gh.setHead(PR, sha(PR, 3));
    setModel({
      'model/cubes/orders.yml': DEMO_MODEL['model/cubes/orders.yml']!,
      'model/cubes/payments.yml': 'cubes:\n  - name: payments\n    sql_table: public.payments\n    measures:\n      - name: count\n        type: count\n',
    });
    const r = await job('preview.yml', 'preview', { event: pullRequestEvent('synchronize', { number: PR, headSha: sha(PR, 3) }) });
    expect(r.conclusion, r.log.join('\n')).toBe('success');
    expect(ours(r).outputs).toMatchObject({ valid: 'true', uploaded: '2' });
    expect(comments(PR)).toHaveLength(1);
    expect(comments(PR)[0]!.body).toContain('### ✅ Data-model preview · ready');
  });

  it('4. the same event run twice (a rerun): no second branch, no second comment, same result', async () => {
    const event = pullRequestEvent('synchronize', { number: PR, headSha: sha(PR, 3) });
    const r = await job('preview.yml', 'preview', { event });
    expect(r.conclusion).toBe('success');
    expect(ours(r).outputs).toMatchObject({ valid: 'true', uploaded: '0', deleted: '0', branch: 'preview-pr-2' });
    expect((await branches()).filter((b) => b.startsWith('preview-pr-2'))).toEqual(['preview-pr-2']);
    expect(comments(PR)).toHaveLength(1);
  });

  it('5. two runs overlapping, the older one finishing last: the comment shows the newer head SHA', async () => {
    let releaseOlder!: () => void;
    const olderMayGo = new Promise<void>((r) => (releaseOlder = r));
    gh.setHead(PR, sha(PR, 4));
    setModel({ 'model/cubes/older.yml': 'cubes: []\n' });
    const older = job('preview.yml', 'preview', {
      event: pullRequestEvent('synchronize', { number: PR, headSha: sha(PR, 4) }),
      // Hold the older run just before its datamodel-ci step until the newer run is done.
      onStepStart: async (s) => {
        if (s.uses?.startsWith('your-org/datamodel-ci')) await olderMayGo;
      },
    });
    await new Promise((r) => setTimeout(r, 300));
    gh.setHead(PR, sha(PR, 5));
    setModel({ 'model/cubes/older.yml': null, 'model/cubes/newer.yml': 'cubes: []\n' });
    const newer = await job('preview.yml', 'preview', { event: pullRequestEvent('synchronize', { number: PR, headSha: sha(PR, 5) }) });
    expect(newer.conclusion).toBe('success');
    releaseOlder();
    const o = await older;
    expect(ours(o).outputs.skipped).toBe('true');
    expect(comments(PR)).toHaveLength(1);
    expect(parseComment(comments(PR)[0]!.body).ledger?.headSha).toBe(sha(PR, 5));
    const shared = await client.dataModel.fileHashes({ deploymentId: 1, query: { branchName: 'preview-pr-2' } });
    expect(shared['model/cubes/newer.yml']).toBeDefined();
  });

  it('6. closed and merged: merged into the deploy branch, staging off, shared and dev branches gone, the comment says merged', async () => {
    gh.closePull(PR, true);
    const r = await job('preview.yml', 'preview', { event: pullRequestEvent('closed', { number: PR, headSha: sha(PR, 5), merged: true }) });
    expect(r.conclusion, r.log.join('\n')).toBe('success');
    expect(ours(r).outputs).toMatchObject({ merged: 'true' });
    const main = await client.dataModel.fileHashes({ deploymentId: 1, query: { branchName: 'main' } });
    expect(main['model/cubes/payments.yml']).toBeDefined();
    expect(main['model/cubes/newer.yml']).toBeDefined();
    expect((await branches()).filter((b) => b.startsWith('preview-pr-2') || b.startsWith('dev-'))).toEqual([]);
    const staging = await client.deployments.environments({ deploymentId: 1, query: { type: 'staging' } });
    expect(staging.items.filter((e) => e.name === 'preview-pr-2')).toEqual([]);
    expect(comments(PR)).toHaveLength(1);
    expect(comments(PR)[0]!.body).toContain('### 🔀 Data-model preview · merged into `main`');
  });
});

describe('closing without merging', () => {
  it('7. closed unmerged: cleaned up; closing a PR whose preview was never created succeeds', async () => {
    gh.addPull({ number: 3, headSha: sha(3, 1), headRef: 'three' });
    expect((await job('preview.yml', 'preview', { event: pullRequestEvent('opened', { number: 3, headSha: sha(3, 1) }) })).conclusion).toBe('success');
    gh.closePull(3, false);
    const closed = await job('preview.yml', 'preview', { event: pullRequestEvent('closed', { number: 3, headSha: sha(3, 1), merged: false }) });
    expect(closed.conclusion).toBe('success');
    expect(ours(closed).outputs).toMatchObject({ merged: 'false', deleted: '1' });
    expect(await branches()).not.toContain('preview-pr-3');
    gh.addPull({ number: 4, headSha: sha(4, 1), headRef: 'four' });
    gh.closePull(4, false);
    const never = await job('preview.yml', 'preview', { event: pullRequestEvent('closed', { number: 4, headSha: sha(4, 1), merged: false }) });
    expect(never.conclusion).toBe('success');
    expect(ours(never).outputs).toMatchObject({ deleted: '0', status: 'cleaned' });
  });
});

describe('cleanup.yml: the scheduled sweeper', () => {
  it('8. deletes what a ledger says a run created; an orphan (no PR here) only on demand with delete-orphans; dry-run deletes nothing', async () => {
    for (const n of [51, 52, 53]) await client.branches.create({ deploymentId: 1, body: { name: `preview-pr-${n}` } });
    gh.addPull({ number: 51, headSha: sha(51, 1), headRef: 'open' });
    gh.addPull({ number: 52, headSha: sha(52, 1), headRef: 'closed' });
    gh.closePull(52, false);
    // 53 has no pull request in this repository (another repository's preview looks like that), idle two days.
    em.state.deployments[0]!.branches['preview-pr-53']!.createdAt = new Date(Date.now() - 2 * 86_400_000).toISOString();
    const nightly = await job('cleanup.yml', 'sweep', { eventName: 'schedule', event: { schedule: '41 3 * * *' } });
    expect(nightly.conclusion, nightly.log.join('\n')).toBe('success');
    expect(await branches()).toEqual(expect.arrayContaining(['preview-pr-51', 'preview-pr-52', 'preview-pr-53']));
    expect(nightly.summary).toMatch(/preview-pr-53.*orphan/);
    const inputs = { 'dry-run': true, 'delete-orphans': true };
    const dry = await job('cleanup.yml', 'sweep', { eventName: 'workflow_dispatch', event: { inputs }, inputs });
    expect(dry.conclusion, dry.log.join('\n')).toBe('success');
    expect(await branches()).toEqual(expect.arrayContaining(['preview-pr-51', 'preview-pr-52', 'preview-pr-53']));
    expect(dry.summary).toContain('would delete');
    const real = { 'dry-run': false, 'delete-orphans': true };
    const released = await job('cleanup.yml', 'sweep', { eventName: 'workflow_dispatch', event: { inputs: real }, inputs: real });
    expect(released.conclusion, released.log.join('\n')).toBe('success');
    const left = await branches();
    expect(left).toContain('preview-pr-51');
    expect(left).not.toContain('preview-pr-53');
    // Closed just now: younger than min-age (24h), kept until a later sweep.
    expect(left).toContain('preview-pr-52');
  });
});

describe('dbt-sync.yml: the scheduled sync', () => {
  // The first status read comes after first-poll-seconds (20 by default); the emulated sync ends in under a second.
  const quickDbt = withInputs('dbt-sync.yml', 'sync', 'sync', { 'first-poll-seconds': '1' });

  it('9a. waits to COMPLETED', async () => {
    const r = await job(quickDbt, 'sync', { eventName: 'schedule', event: { schedule: '17 4 * * *' } });
    expect(r.conclusion, r.log.join('\n')).toBe('success');
    expect(r.stepOutputs.sync).toMatchObject({ status: 'COMPLETED', 'timed-out': 'false' });
  });

  it('9b. a forced failure fails the job', async () => {
    em.controls.failNextDbtSync = { phase: 'parse', message: 'dbt parse failed: model stg_orders not found' };
    const r = await job(quickDbt, 'sync', { eventName: 'schedule', event: { schedule: '17 4 * * *' } });
    expect(r.conclusion).toBe('failure');
    expect(r.stepOutputs.sync).toMatchObject({ status: 'FAILED' });
    expect(r.annotations.some((a) => a.level === 'error' && a.message.includes('stg_orders not found'))).toBe(true);
  });

  it('9c. cancelling the job (SIGINT) during the wait leaves the remote run CANCELLED', async () => {
    const controller = new AbortController();
    const started = Date.now();
    const running = job('dbt-sync.yml', 'sync', {
      eventName: 'workflow_dispatch',
      event: { inputs: { ref: 'develop' } },
      inputs: { ref: 'develop' },
      signal: controller.signal,
    });
    // Cancel once the run is known to have started on the platform.
    for (let i = 0; i < 100 && !em.state.deployments[0]!.dbtRuns.some((r) => r.ref === 'develop' && r.startedAt >= started); i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    controller.abort();
    const r = await running;
    expect(r.conclusion).toBe('cancelled');
    const run = em.state.deployments[0]!.dbtRuns.filter((x) => x.ref === 'develop').at(-1)!;
    expect(run.cancelledAt).toBeDefined();
    const history = await client.dbtSync.list({ deploymentId: 1, query: { status: 'CANCELLED', first: 100 } });
    expect(history.items.some((h) => h.syncJobId === run.syncJobId)).toBe(true);
  });
});

describe('forks and secrets', () => {
  it('10. a fork PR without secrets is skipped with a warning, exit 0, and writes no check: the required one stays pending (more: e2e-credentials.test.ts)', async () => {
    gh.addPull({ number: 9, headSha: sha(9, 1), headRef: 'fork', fork: true });
    const r = await job('preview.yml', 'preview', { event: pullRequestEvent('opened', { number: 9, headSha: sha(9, 1), fork: true }), secrets: null });
    expect(r.conclusion).toBe('success');
    expect(ours(r).outputs.skipped).toBe('true');
    expect(r.annotations.some((a) => a.level === 'warning' && /Nothing was validated: pull request #9 comes from a fork.*stays pending/.test(a.message))).toBe(
      true,
    );
    expect(r.summary).toContain('### ⏭️ Data-model preview · skipped: fork PR');
    expect(gh.checkRuns().filter((c) => c.headSha === sha(9, 1))).toEqual([]);
    expect(comments(9)).toEqual([]);
  });

  it('validation-gate.yml: the split actions chained through outputs', async () => {
    gh.addPull({ number: 12, headSha: sha(12, 1), headRef: 'gate' });
    setModel({ 'model/cubes/payments.yml': null, 'model/cubes/newer.yml': null });
    // The change-set file lives in the job's RUNNER_TEMP, which ends with the job: read it when the gate step starts.
    let changeSetText: string | undefined;
    const r = await job('validation-gate.yml', 'gate', {
      event: pullRequestEvent('opened', { number: 12, headSha: sha(12, 1) }),
      onStepStart: (step) => {
        if (step.uses || changeSetText !== undefined) return;
        for (const d of readdirSync(tmpdir()).filter((n) => n.startsWith('harness-runner-temp-'))) {
          const f = join(tmpdir(), d, 'datamodel-ci', 'impact-1-preview-pr-12.json');
          if (existsSync(f)) changeSetText = readFileSync(f, 'utf8');
        }
      },
    });
    expect(r.conclusion, r.log.join('\n')).toBe('success');
    expect(r.stepOutputs.start).toMatchObject({ branch: 'preview-pr-12' });
    expect(r.stepOutputs.validate).toMatchObject({ valid: 'true', 'error-count': '0' });
    // The valid model's staging environment is compared with production: counts, and the whole change set on file.
    const impact = r.stepOutputs.impact!;
    for (const k of ['breaking-count', 'added-count', 'changed-count', 'affected-content-count']) expect(impact[k]).toMatch(/^\d+$/);
    expect(impact['change-set-file']).toMatch(/datamodel-ci\/impact-1-preview-pr-12\.json$/);
    const changeSet = JSON.parse(changeSetText!) as { compared: boolean; head: string; scanned: { report: number } };
    expect(changeSet).toMatchObject({ compared: true, head: 'preview-pr-12', scanned: { report: 4 } });
    expect(comments(12)[0]!.body).toContain('**Semantic layer** (`main` → `preview-pr-12`)');
  });

  it('the impact action with fail-on-breaking: a push that removes a member the report uses fails the step and names what it breaks', async () => {
    setModel({
      'model/cubes/customers.yml': DEMO_MODEL['model/cubes/customers.yml']!.replace('      - name: country\n        sql: country\n        type: string\n', ''),
      'model/views/orders_view.yml': DEMO_MODEL['model/views/orders_view.yml']!.replace('          - country\n', ''),
    });
    const common = { 'api-url': em.baseUrl, 'api-key': em.credentials.admin, 'deployment-id': 1, branch: 'preview-pr-12', 'ca-cert': caFile };
    const github = { api_url: gh.url, repository: gh.repository, token: TOKEN };
    const up = await runAction({
      actionDir: join(REPO, 'actions', 'upload-model'),
      repoDir: REPO,
      inputs: { ...common, 'model-dir': join(userRepo, 'analytics') },
      github,
    });
    record(up);
    expect(up.exitCode, up.log.join('\n')).toBe(0);
    const r = await runAction({
      actionDir: join(REPO, 'actions', 'impact'),
      repoDir: REPO,
      inputs: { ...common, 'model-dir': join(userRepo, 'analytics'), 'fail-on-breaking': true },
      github,
    });
    record(r);
    expect(r.exitCode).toBe(1);
    expect(Number(r.outputs['breaking-count'])).toBeGreaterThanOrEqual(2);
    expect(r.outputs).toMatchObject({ 'affected-content-count': '3', status: 'breaking', branch: 'preview-pr-12' });
    expect(r.log.join('\n')).toMatch(
      /preview-pr-12 makes \d+ breaking changes to the semantic layer \(dimension customers\.country: removed; .*\), used by 3 reports, dashboards and notifications \(report "Revenue by country"; .*\) \(fail-on-breaking is true\)/,
    );
    expect(r.summary).toContain('| Report | Revenue by country | `orders_view.customers_country` in dimensions |');
    setModel({
      'model/cubes/customers.yml': DEMO_MODEL['model/cubes/customers.yml']!,
      'model/views/orders_view.yml': DEMO_MODEL['model/views/orders_view.yml']!,
    });
  });

  it('enable-staging with a smoke test mints a data-API token and masks it', async () => {
    // An emulator on wall-clock time: at 100x the minted 10-minute token would live 6 s, less than a
    // cold first query takes on a loaded machine.
    const wall = await startEmulator({ seed: 'demo' });
    try {
      const ca = join(dirname(caFile), 'wall-ca.pem');
      writeFileSync(ca, `${wall.ca}\n${gh.ca}`);
      const r = await runAction({
        actionDir: join(REPO, 'actions', 'enable-staging'),
        repoDir: REPO,
        inputs: {
          'api-url': wall.baseUrl,
          'api-key': wall.credentials.admin,
          'deployment-id': 1,
          branch: 'feature-revenue',
          'smoke-test': true,
          'ca-cert': ca,
        },
        github: { api_url: gh.url, repository: gh.repository, token: TOKEN },
      });
      record(r);
      expect(r.exitCode, r.log.join('\n')).toBe(0);
      expect(r.log.join('\n')).toMatch(/smoke test: \/meta lists 3 cubes and views; \/load of \S+ returned 1 row/);
      expect(wall.controls.minted.length).toBeGreaterThan(0);
      minted.push(...wall.controls.minted, ...Object.values(wall.credentials));
    } finally {
      await wall.close();
    }
  });

  it('11. no API key, token or minted JWT appears in any captured log, comment, summary or output', () => {
    const secrets = [...Object.values(em.credentials), TOKEN, ...em.controls.minted, ...minted].filter((s) => s.length >= 8);
    expect(secrets.length).toBeGreaterThan(5);
    const everything = [...captured, ...[2, 3, 4, 9, 12].flatMap((n) => comments(n).map((c) => c.body))].join('\n');
    expect(everything.length).toBeGreaterThan(10_000);
    for (const s of secrets) expect(everything.includes(s), `a secret (${s.slice(0, 6)}…) leaked`).toBe(false);
  });
});
