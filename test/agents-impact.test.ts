/**
 * The agents folder and the eval delta in `datamodel-ci diff` and the `impact` action, against the emulator
 * over HTTPS (the GitHub stand-in takes the comment): a branch that removes a view an agent lists is an
 * error in the review the log ends with, in `--json`'s result.agents and the change-set file, in the
 * comment's Agents section, the job summary and the `agents-errors` output, and it fails the step (exit 1);
 * the same folder with the view kept passes. `diff --evals on` names the question the branch newly fails.
 */
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_MODEL, startGitHubStandin, type GitHubStandin } from '../packages/emulator/src/index.js';
import { runCli } from '../src/main.js';
import { MemoryReporter } from '../src/report/reporter.js';
import { enableStaging } from '../src/operations/enable-staging.js';
import { ensureSharedBranch } from '../src/operations/start-dev-branch.js';
import { uploadModel } from '../src/operations/upload-model.js';
import type { OpContext } from '../src/operations/context.js';
import { actionsStep } from './support/actions-step.js';
import { cliIo, control, emulatorFixture, localOf, uploadTree, type EmulatorFixture } from './support/emulator.js';
import { pullRequestEvent, writeEvent } from './support/payloads.js';
import {
  EVALS_ORDERS as ORDERS,
  EVALS_QUESTIONS as QUESTIONS,
  EVALS_ANSWERS as ANSWERS,
  SALES_AGENTS as AGENTS,
  withoutView,
  modelFolder,
} from './support/evals-fixtures.js';

// The eval delta's fixture agent, as test/evals-e2e.test.ts sets it up: production answers both questions right.
const evalsTree = (orders = ORDERS) => ({ ...DEMO_MODEL, 'model/cubes/orders.yml': orders, 'agents/eval_questions/main.yml': QUESTIONS });

let fx: EmulatorFixture;
beforeAll(async () => {
  fx = await emulatorFixture();
  await uploadTree(fx.admin, 1, 'main', evalsTree());
  await control(fx.em, 'evals/answers', { answers: ANSWERS });
}, 120_000);
afterAll(() => fx.close());

const folder = (files: Record<string, string>) => modelFolder(files, 'dmci-agents-impact-');

const ctx = (): OpContext => ({ client: fx.admin, deploymentId: 1, reporter: new MemoryReporter(), dryRun: false, ca: fx.em.ca });

/** A shared branch holding `files` (the checkout `diff` reads too), its staging environment on. */
async function branchWith(name: string, files: Record<string, string>): Promise<string> {
  const dir = folder(files);
  await ensureSharedBranch(ctx(), name, 'main');
  await uploadModel(ctx(), { branch: name, modelDir: dir, local: await localOf(dir), concurrency: 4, commitMessage: name });
  await enableStaging(ctx(), { branch: name, smokeTest: false });
  return dir;
}

/** The environment of a step on pull request `pr` (its head `e…e`), reporting to the GitHub stand-in. */
function stepEnv(gh: GitHubStandin, pr: number, dir: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    DATAMODEL_CI_API_URL: fx.em.baseUrl,
    DATAMODEL_CI_API_KEY: fx.em.credentials.admin,
    DATAMODEL_CI_CA_CERT: `${fx.em.ca}\n${gh.ca}`,
    DATAMODEL_CI_DEPLOYMENT_ID: '1',
    DATAMODEL_CI_GITHUB_TOKEN: 'ghs_agents_impact_token_0123',
    DATAMODEL_CI_MODEL_DIR: dir,
    RUNNER_TEMP: tmpdir(),
    GITHUB_REPOSITORY: gh.repository,
    GITHUB_API_URL: gh.url,
    GITHUB_RUN_ID: String(8000 + pr),
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_EVENT_NAME: 'pull_request',
    GITHUB_EVENT_PATH: writeEvent(pullRequestEvent('opened', { number: pr, headSha: 'e'.repeat(40) })),
    ...extra,
  };
}

let removed: string;
let kept: string;
let changed: string;
beforeAll(async () => {
  changed = await branchWith('preview-pr-83', evalsTree(ORDERS.replace("status = 'cancelled'", "status <> 'cancelled'")));
  removed = await branchWith('preview-pr-81', withoutView({ ...evalsTree(), ...AGENTS }));
  kept = await branchWith('preview-pr-82', { ...evalsTree(), ...AGENTS });
}, 180_000);

describe('the agents folder in diff and the impact action', () => {
  it('diff: a view the branch removes is an error in the review, in --json and the change-set file, and exits 1', async () => {
    const t = cliIo(fx.em);
    const code = await runCli(['diff', '--deployment-id', '1', '--branch', 'preview-pr-81', '--model-dir', removed], t);
    const log = t.stderr.join('\n');
    expect(code, log).toBe(1);
    expect(log).toMatch(/^Agents \(agents\/\): 1 agent, 0 certified queries, 3 eval questions; names checked against the preview's compiled model: 3 errors/m);
    expect(log).toMatch(/^ {2}REMOVED view orders_view breaks agents order-desk; eval questions order_count$/m);
    expect(log).toContain(
      `  ERROR ${removed}/agents/config.yml:8: agent order-desk lists view orders_view in \`accessible_views\`, which this pull request removes`,
    );
    expect(log).toContain('the agents/ folder has 3 errors');

    const j = cliIo(fx.em);
    expect(await runCli(['diff', '--deployment-id', '1', '--branch', 'preview-pr-81', '--model-dir', removed, '--json'], j)).toBe(1);
    const doc = JSON.parse(j.stdout.join('\n'));
    expect(doc.result.agents).toMatchObject({ folder: 'agents', source: 'compiled', counts: { agents: 1 } });
    expect(doc.result.agents.findings.filter((f: { level: string }) => f.level === 'error')).toHaveLength(3);
    expect(doc.result.agents.broken.map((b: { name: string }) => b.name)).toContain('orders_view');
    // The document's errors carry each finding on its line, as plan --json's do.
    expect(doc.errors).toContainEqual({
      message: expect.stringContaining('agent order-desk lists view orders_view'),
      file: `${removed}/agents/config.yml`,
      line: 8,
    });
    const file = JSON.parse(readFileSync(doc.outputs['change-set-file'], 'utf8'));
    expect(file.agents.findings).toEqual(doc.result.agents.findings);
  }, 120_000);

  it('diff: the same folder with the view kept passes, the review says no error', async () => {
    const t = cliIo(fx.em);
    const code = await runCli(['diff', '--deployment-id', '1', '--branch', 'preview-pr-82', '--model-dir', kept], t);
    const log = t.stderr.join('\n');
    expect(code, log).toBe(0);
    expect(log).toMatch(/^Agents \(agents\/\): .*names checked against the preview's compiled model: 0 errors, 0 warnings$/m);
  }, 120_000);

  it('the impact action on a pull request: the Agents section in the comment and, whole, in the job summary; agents-errors; the step fails', async () => {
    const gh = await startGitHubStandin();
    try {
      gh.addPull({ number: 81, headSha: 'e'.repeat(40), headRef: 'drop-orders-view' });
      const env = (dir: string, branch: string) => stepEnv(gh, 81, dir, { DATAMODEL_CI_BRANCH: branch });
      const r = await actionsStep('impact', env(removed, 'preview-pr-81'));
      expect(r.code).toBe(1);
      expect(r.outputs['agents-errors']).toBe('3');
      const comment = gh.comments(81).at(-1)!.body;
      expect(comment).toContain(
        "**Agents** (`agents/`: 1 agent, 0 certified queries, 3 eval questions; names checked against the preview's compiled model): ❌ 3 errors",
      );
      expect(comment).toContain('- view `orders_view`, removed by this pull request, breaks agents `order-desk`; eval questions `order_count`');
      expect(r.summary).toContain('**Agents** (`agents/`');
      expect(r.summary).toContain('agent order\\-desk lists view orders\\_view in');
      expect(r.summary.match(/^- ❌ /gm)).toHaveLength(3);

      const clean = await actionsStep('impact', env(kept, 'preview-pr-82'));
      expect(clean.code).toBe(0);
      expect(clean.outputs['agents-errors']).toBe('0');
      expect(clean.summary).toContain("names checked against the preview's compiled model): ✅ no findings");
      expect(gh.violations).toEqual([]);
    } finally {
      await gh.close();
    }
  }, 180_000);
});

describe('the eval delta in diff', () => {
  it('diff --evals on: the question the branch newly fails, with its reason; --json carries both sides; fail-on-eval-regression exits 1', async () => {
    const dir = changed;
    // The emulator's manual clock moves while the run waits: the evaluation runs finish on it.
    const tick = setInterval(() => fx.em.clock.advance(60_000), 100);
    try {
      const args = ['diff', '--deployment-id', '1', '--branch', 'preview-pr-83', '--model-dir', dir, '--evals', 'on'];
      const t = cliIo(fx.em);
      const code = await runCli(args, t);
      const log = t.stderr.join('\n');
      expect(code, log).toBe(0);
      expect(log).toMatch(/^Agent evals: production \(main\) 2\/2; this change \(preview-pr-83\) 1\/2$/m);
      expect(log).toMatch(/^ {2}NEWLY FAILING cancelled_orders: pass -> fail: Value mismatch$/m);

      const j = cliIo(fx.em);
      expect(await runCli([...args, '--json', '--fail-on-eval-regression'], j), j.stderr.join('\n')).toBe(1);
      const doc = JSON.parse(j.stdout.join('\n'));
      expect(doc.result.evals.newlyFailing).toEqual([{ label: 'cancelled_orders', production: 'pass', preview: 'fail', reason: 'Value mismatch' }]);
      expect(doc.outputs).toMatchObject({ 'eval-accuracy-production': '2/2', 'eval-accuracy-preview': '1/2', 'eval-regressions-count': '1' });
      expect(doc.errors.map((e: { message: string }) => e.message).join('\n')).toContain('1 eval question newly failing (fail-on-eval-regression)');
    } finally {
      clearInterval(tick);
    }
  }, 180_000);

  it('the impact action (evals: on): the eval outputs, and the Agent evals section in the comment and the job summary', async () => {
    const gh = await startGitHubStandin();
    const tick = setInterval(() => fx.em.clock.advance(60_000), 100);
    try {
      gh.addPull({ number: 84, headSha: 'e'.repeat(40), headRef: 'count-not-cancelled' });
      const dir = changed;
      const r = await actionsStep('impact', stepEnv(gh, 84, dir, { DATAMODEL_CI_BRANCH: 'preview-pr-83', DATAMODEL_CI_EVALS: 'on' }));
      // Advisory without fail-on-eval-regression.
      expect(r.code).toBe(0);
      expect(r.outputs).toMatchObject({ 'eval-accuracy-production': '2/2', 'eval-accuracy-preview': '1/2', 'eval-regressions-count': '1' });
      const line = '- ❌ `cancelled_orders` (`pass` on production, `fail` here): Value mismatch';
      expect(gh.comments(84).at(-1)!.body).toContain(line);
      expect(r.summary).toContain('**Agent evals** (production `2/2`, this pull request `1/2`): ⚠️ 1 question newly failing');
      expect(r.summary).toContain(line);
      const gated = await actionsStep(
        'impact',
        stepEnv(gh, 84, dir, { DATAMODEL_CI_BRANCH: 'preview-pr-83', DATAMODEL_CI_EVALS: 'on', DATAMODEL_CI_FAIL_ON_EVAL_REGRESSION: 'true' }),
      );
      expect(gated.code).toBe(1);
    } finally {
      clearInterval(tick);
      await gh.close();
    }
  }, 180_000);

  it('the pr action (evals: on): its job summary carries the Agent evals section, not only the comment', async () => {
    const gh = await startGitHubStandin();
    const tick = setInterval(() => fx.em.clock.advance(60_000), 100);
    try {
      gh.addPull({ number: 85, headSha: 'e'.repeat(40), headRef: 'count-not-cancelled-pr' });
      const r = await actionsStep('pr', stepEnv(gh, 85, changed, { DATAMODEL_CI_EVALS: 'on' }));
      expect(r.code).toBe(0);
      expect(r.outputs).toMatchObject({ 'eval-accuracy-production': '2/2', 'eval-accuracy-preview': '1/2', 'eval-regressions-count': '1' });
      expect(r.summary).toContain('**Agent evals** (production `2/2`, this pull request `1/2`): ⚠️ 1 question newly failing');
      expect(r.summary).toContain('- ❌ `cancelled_orders` (`pass` on production, `fail` here): Value mismatch');
    } finally {
      clearInterval(tick);
      await gh.close();
    }
  }, 180_000);
});
