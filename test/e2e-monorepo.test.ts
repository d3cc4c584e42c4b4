/**
 * End to end for a monorepo, as GitHub runs it: examples/workflows/monorepo.yml (two models, analytics/ and
 * finance/, each its own deployment of the emulator's demo seed) played by the harness with the committed
 * dist/, the GitHub stand-in listing each pull request's changed files.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_MODEL, FINANCE_MODEL, startEmulator, startGitHubStandin, type Emulator, type GitHubStandin } from '../packages/emulator/src/index.js';
import { PlatformClient, collect } from '../src/client/index.js';
import { parseComment } from '../src/pr/comment/ledger.js';
import { runJob, workflowTriggers, type JobRunResult } from './harness/runner.js';
import { pullRequestEvent } from './support/payloads.js';

const REPO = resolve('.');
const WORKFLOW = join(REPO, 'examples', 'workflows', 'monorepo.yml');
const PR = 21;
const PAYMENTS = 'model/cubes/payments.yml';
const CUSTOMERS = 'model/cubes/customers.yml';
/** finance/: an average payment. */
const AVERAGE = FINANCE_MODEL[PAYMENTS]!.replace(
  '    dimensions:\n',
  '      - name: average_amount\n        type: avg\n        sql: amount\n    dimensions:\n',
);
/** analytics/: when a customer signed up. */
const SIGNED_UP = DEMO_MODEL[CUSTOMERS]!.replace(
  '      - name: country\n',
  '      - name: signed_up_at\n        sql: signed_up_at\n        type: time\n      - name: country\n',
);

let em: Emulator;
let gh: GitHubStandin;
let client: PlatformClient;
let caFile: string;

function checkout(analytics: Record<string, string>, finance: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'dmci-mono-checkout-'));
  const write = (dir: string, files: Record<string, string>) => {
    for (const [p, c] of Object.entries(files)) {
      mkdirSync(dirname(join(root, dir, p)), { recursive: true });
      writeFileSync(join(root, dir, p), c);
    }
  };
  write('analytics', { ...DEMO_MODEL, ...analytics });
  write('finance', { ...FINANCE_MODEL, ...finance });
  writeFileSync(join(root, 'README.md'), '# two data models\n');
  return root;
}

async function play(action: string, headSha: string, files: string[], tree: string, extra: { merged?: boolean; pr?: number } = {}): Promise<JobRunResult> {
  const { pr = PR, ...flags } = extra;
  const event = pullRequestEvent(action, { number: pr, headSha, title: 'Payments and sign-ups', ...flags });
  (event.pull_request as Record<string, unknown>).changed_files = files.length;
  expect(workflowTriggers(WORKFLOW, 'pull_request', event).runs).toBe(true);
  return runJob({
    workflowFile: WORKFLOW,
    jobId: 'preview',
    repoDir: REPO,
    checkoutFrom: tree,
    eventName: 'pull_request',
    event,
    github: { api_url: gh.url, repository: gh.repository, token: 'ghs_mono_token_0123456789', run_id: String(990 + pr) },
    secrets: { PLATFORM_API_KEY: em.credentials.admin },
    vars: { PLATFORM_API_URL: em.baseUrl, ANALYTICS_DEPLOYMENT_ID: '1', FINANCE_DEPLOYMENT_ID: '3' },
    env: { NODE_EXTRA_CA_CERTS: caFile },
  });
}

const ours = (r: JobRunResult) => r.steps.find((s) => s.uses?.startsWith('your-org/datamodel-ci'))!;
const branchesOf = async (deploymentId: number) => (await collect(client.branches.iterate({ deploymentId }))).map((b) => b.name);
const checks = (sha: string) =>
  Object.fromEntries(
    gh
      .checkRuns()
      .filter((c) => c.headSha === sha)
      .map((c) => [c.name, c.conclusion]),
  );
const body = () => gh.comments(PR)[0]!.body.replace(/<!--[\s\S]*?-->\n?/g, '');
const sha = (n: number) => `${n}`.repeat(40);

beforeAll(async () => {
  em = await startEmulator({ seed: 'demo', clock: { scale: 100 } });
  gh = await startGitHubStandin();
  caFile = join(mkdtempSync(join(tmpdir(), 'dmci-mono-ca-')), 'ca.pem');
  writeFileSync(caFile, `${em.ca}\n${gh.ca}`);
  client = new PlatformClient({ baseUrl: em.baseUrl, apiKey: em.credentials.admin, ca: em.ca });
});
afterAll(async () => {
  expect(gh.violations).toEqual([]);
  await client.close();
  await em.close();
  await gh.close();
});

describe('monorepo.yml: two models, two deployments, one comment', () => {
  it('a pull request touching finance/ only: one comment, finance previewed, analytics skipped with a line', async () => {
    const files = [`finance/${PAYMENTS}`];
    gh.addPull({ number: PR, headSha: sha(1), headRef: 'payments', title: 'Payments and sign-ups', files });
    const r = await play('opened', sha(1), files, checkout({}, { [PAYMENTS]: AVERAGE }));
    expect(r.conclusion, r.log.join('\n')).toBe('success');
    expect(gh.comments(PR)).toHaveLength(1);
    const text = body();
    expect(text).toContain('### ✅ Data-model previews · 2 models: 1 ready, 1 not previewed');
    expect(text).toContain('#### ⏭️ `analytics/` (deployment 1) · not previewed');
    expect(text).toContain('The pull request changes no file under `analytics/`: nothing to preview.');
    expect(text).toContain('#### ✅ `finance/` (deployment 3) · ready');
    expect(text).toContain('payments.average_amount');
    // A check per facet beside each validation: the untouched model's all neutral (docs/checks.md).
    expect(checks(sha(1))).toEqual({
      'datamodel-ci / validation (analytics)': 'neutral',
      'datamodel-ci / impact (analytics)': 'neutral',
      'datamodel-ci / cost (analytics)': 'neutral',
      'datamodel-ci / validation (finance)': 'success',
      'datamodel-ci / impact (finance)': 'success',
      'datamodel-ci / cost (finance)': 'success',
    });
    expect(r.summary).toContain('### ✅ `finance/` (deployment 3) · ready');
    expect(await branchesOf(3)).toContain('preview-pr-21');
    expect(await branchesOf(1)).not.toContain('preview-pr-21');
    expect(gh.deployments().map((d) => d.environment)).toEqual(['preview-pr-21-finance']);
    const out = ours(r).outputs;
    expect(out).toMatchObject({ valid: 'true', status: 'valid', skipped: 'false', branch: 'preview-pr-21' });
    expect(JSON.parse(out.previews!)).toMatchObject({
      analytics: { deploymentId: 1, status: 'untouched' },
      finance: { deploymentId: 3, status: 'valid', valid: true, branch: 'preview-pr-21' },
    });
  });

  it('a push touching both: two previews in the same comment', async () => {
    const files = [`finance/${PAYMENTS}`, `analytics/${CUSTOMERS}`];
    gh.setHead(PR, sha(2));
    gh.setFiles(PR, files);
    const r = await play('synchronize', sha(2), files, checkout({ [CUSTOMERS]: SIGNED_UP }, { [PAYMENTS]: AVERAGE }));
    expect(r.conclusion, r.log.join('\n')).toBe('success');
    expect(gh.comments(PR)).toHaveLength(1);
    const text = body();
    expect(text).toContain('### ✅ Data-model previews · 2 models: 2 ready');
    expect(text).toContain('#### ✅ `analytics/` (deployment 1) · ready');
    expect(text).toContain('#### ✅ `finance/` (deployment 3) · ready');
    expect(text).toContain('customers.signed_up_at');
    expect(checks(sha(2))).toEqual({
      'datamodel-ci / validation (analytics)': 'success',
      'datamodel-ci / impact (analytics)': 'success',
      'datamodel-ci / cost (analytics)': 'success',
      'datamodel-ci / validation (finance)': 'success',
      'datamodel-ci / impact (finance)': 'success',
      'datamodel-ci / cost (finance)': 'success',
    });
    expect(await branchesOf(1)).toContain('preview-pr-21');
    const ledger = parseComment(gh.comments(PR)[0]!.body).ledger!;
    expect(ledger.models?.map((m) => [m.key, m.deploymentId, m.branch, m.state])).toEqual([
      ['analytics', '1', 'preview-pr-21', 'open'],
      ['finance', '3', 'preview-pr-21', 'open'],
    ]);
  });

  it('merged: each model merged into its deploy branch and cleaned up; the closing comment shows each', async () => {
    gh.closePull(PR, true);
    const r = await play('closed', sha(2), [`finance/${PAYMENTS}`, `analytics/${CUSTOMERS}`], checkout({ [CUSTOMERS]: SIGNED_UP }, { [PAYMENTS]: AVERAGE }), {
      merged: true,
    });
    expect(r.conclusion, r.log.join('\n')).toBe('success');
    expect(ours(r).outputs).toMatchObject({ merged: 'true', status: 'cleaned', deleted: '2' });
    expect(gh.comments(PR)).toHaveLength(1);
    const text = body();
    expect(text).toContain('### 🔀 Data-model previews · 2 models: 2 merged');
    expect(text).toContain('#### 🔀 `analytics/` (deployment 1) · merged into `main`');
    expect(text).toContain('#### 🔀 `finance/` (deployment 3) · merged into `main`');
    expect(await branchesOf(1)).not.toContain('preview-pr-21');
    expect(await branchesOf(3)).not.toContain('preview-pr-21');
    expect(Object.keys(await client.dataModel.fileHashes({ deploymentId: 3, query: { branchName: 'main' } }))).toContain(PAYMENTS);
  });

  it('a pull request touching no model folder: no preview, no comment, a neutral check per model', async () => {
    gh.addPull({ number: 22, headSha: sha(3), headRef: 'docs', files: ['README.md'] });
    const r = await play('opened', sha(3), ['README.md'], checkout({}, {}), { pr: 22 });
    expect(r.conclusion).toBe('success');
    expect(ours(r).outputs).toMatchObject({ skipped: 'true', status: 'untouched' });
    expect(checks(sha(3))).toEqual({
      'datamodel-ci / validation (analytics)': 'neutral',
      'datamodel-ci / impact (analytics)': 'neutral',
      'datamodel-ci / cost (analytics)': 'neutral',
      'datamodel-ci / validation (finance)': 'neutral',
      'datamodel-ci / impact (finance)': 'neutral',
      'datamodel-ci / cost (finance)': 'neutral',
    });
    expect(r.annotations.filter((a) => a.level === 'notice').map((a) => a.message)).toHaveLength(2);
    expect(gh.comments(22)).toEqual([]);
  });
});
