/**
 * The eval delta in a `pr` run (`evals: on`) against the emulator, as the GitHub stand-in receives the
 * comment over HTTPS: a PR that changes the SQL of the measure the agent answers with turns a passing
 * question into a failing one, and the comment's Agent evals section names it with its verdict reason;
 * `fail-on-eval-regression` fails the step. A tenant without evaluations gets one line.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runActionCommand } from '../src/commands/index.js';
import { runCli } from '../src/main.js';
import type { Io } from '../src/io.js';
import { DEMO_MODEL, startGitHubStandin, type GitHubStandin } from '../packages/emulator/src/index.js';
import { cliIo, control, emulatorFixture, uploadTree, type EmulatorFixture } from './support/emulator.js';
import { pullRequestEvent, writeEvent } from './support/payloads.js';
import { EVALS_ORDERS as ORDERS, EVALS_QUESTIONS as QUESTIONS, EVALS_ANSWERS as ANSWERS, modelFolder } from './support/evals-fixtures.js';

const tree = (orders = ORDERS) => ({ ...DEMO_MODEL, 'model/cubes/orders.yml': orders, 'agents/eval_questions/main.yml': QUESTIONS });

const folder = (files: Record<string, string>) => modelFolder(files, 'dmci-evals-');

async function pr(f: EmulatorFixture, gh: GitHubStandin, number: number, modelDir: string, extra: NodeJS.ProcessEnv) {
  const lines: string[] = [];
  const event = pullRequestEvent('opened', { number, headSha: 'b'.repeat(39) + String(number % 10) });
  const env: NodeJS.ProcessEnv = {
    GITHUB_ACTIONS: '',
    DATAMODEL_CI_API_URL: f.em.baseUrl,
    DATAMODEL_CI_API_KEY: f.em.credentials.admin,
    DATAMODEL_CI_CA_CERT: `${f.em.ca}\n${gh.ca}`,
    DATAMODEL_CI_DEPLOYMENT_ID: '1',
    DATAMODEL_CI_GITHUB_TOKEN: 'ghs_evals_token_0123',
    DATAMODEL_CI_MODEL_DIR: modelDir,
    DATAMODEL_CI_EVALS: 'on',
    GITHUB_REPOSITORY: gh.repository,
    GITHUB_API_URL: gh.url,
    GITHUB_RUN_ID: String(5000 + number),
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_EVENT_NAME: 'pull_request',
    GITHUB_EVENT_PATH: writeEvent(event),
    ...extra,
  };
  const io: Io = { out: (line) => lines.push(line), err: (line) => lines.push(line), env };
  // The emulator's manual clock moves while the run waits: the evaluation runs finish on it (the wait polls on the client's).
  const tick = setInterval(() => f.em.clock.advance(60_000), 100);
  try {
    const code = await runActionCommand('pr', [], io);
    return { code, log: lines.join('\n') };
  } finally {
    clearInterval(tick);
  }
}

let fx: EmulatorFixture;
beforeAll(async () => {
  fx = await emulatorFixture();
  await uploadTree(fx.admin, 1, 'main', tree());
  await control(fx.em, 'evals/answers', { answers: ANSWERS });
}, 120_000);
afterAll(() => fx.close());

describe('the eval delta in a pull request run', () => {
  it('a PR changing a measure’s SQL: the comment names the newly failing question; fail-on-eval-regression fails the step', async () => {
    const gh = await startGitHubStandin();
    try {
      gh.addPull({ number: 71, headSha: `${'b'.repeat(39)}1`, headRef: 'count-not-cancelled' });
      const dir = folder(tree(ORDERS.replace("status = 'cancelled'", "status <> 'cancelled'")));
      const r = await pr(fx, gh, 71, dir, { DATAMODEL_CI_FAIL_ON_EVAL_REGRESSION: 'true' });
      expect(r.code, r.log).not.toBe(0);
      expect(r.log).toContain('1 eval question newly failing (fail-on-eval-regression)');
      const comment = gh.comments(71).at(-1)!.body;
      expect(comment).toContain('**Agent evals** (production `2/2`, this pull request `1/2`): ❌ 1 question newly failing');
      expect(comment).toContain('- ❌ `cancelled_orders` (`pass` on production, `fail` here): Value mismatch');
      // A check of its own, so branch protection can require it (the job's failure alone gates nothing).
      const evals = gh.checkRuns().filter((c) => c.name === 'datamodel-ci / evals');
      expect(evals.map((c) => [c.conclusion, c.output.title])).toEqual([
        ['failure', '1 eval question newly failing (production 2/2, this pull request 1/2): cancelled_orders (fail-on-eval-regression is true)'],
      ]);
      expect(gh.violations).toEqual([]);
    } finally {
      await gh.close();
    }
  }, 120_000);

  it('no-evaluations: one line in the comment, never a failure', async () => {
    const f = await emulatorFixture({ profiles: ['no-evaluations'] });
    const gh = await startGitHubStandin();
    try {
      gh.addPull({ number: 72, headSha: `${'b'.repeat(39)}2`, headRef: 'no-evals' });
      const r = await pr(f, gh, 72, folder(tree()), { DATAMODEL_CI_FAIL_ON_EVAL_REGRESSION: 'true' });
      expect(r.code, r.log).toBe(0);
      const comment = gh.comments(72).at(-1)!.body;
      expect(comment).toContain('**Agent evals**: this tenant has no evaluations; the eval delta was skipped');
      // Nothing was evaluated: no evals check, neither green nor failing.
      expect(gh.checkRuns().filter((c) => c.name === 'datamodel-ci / evals')).toEqual([]);
    } finally {
      await gh.close();
      await f.close();
    }
  }, 120_000);

  it('plan prints the eval delta in the terminal, and --json carries every question of both sides', async () => {
    const dir = folder(tree(ORDERS.replace("status = 'cancelled'", "status <> 'cancelled'")));
    const t = cliIo(fx.em);
    const tick = setInterval(() => fx.em.clock.advance(60_000), 100);
    try {
      const code = await runCli(['plan', '--deployment-id', '1', '--model-dir', dir, '--evals', 'on'], t);
      const out = t.stdout.join('\n');
      // Advisory without fail-on-eval-regression: the plan succeeds and says what newly fails.
      expect(code, t.stderr.join('\n')).toBe(0);
      expect(out).toMatch(/^Agent evals: production \(main\) 2\/2; this change \(\S+\) 1\/2$/m);
      expect(out).toMatch(/^ {2}NEWLY FAILING cancelled_orders: pass -> fail: Value mismatch$/m);
      const j = cliIo(fx.em);
      expect(await runCli(['plan', '--deployment-id', '1', '--model-dir', dir, '--evals', 'on', '--json'], j), j.stderr.join('\n')).toBe(0);
      const evals = JSON.parse(j.stdout.join('\n')).result.evals;
      expect(evals.production.questions.map((q: { label: string }) => q.label)).toEqual(['orders_by_status', 'cancelled_orders']);
      expect(evals.newlyFailing).toEqual([{ label: 'cancelled_orders', production: 'pass', preview: 'fail', reason: 'Value mismatch' }]);
    } finally {
      clearInterval(tick);
    }
  }, 180_000);

  it('evals-production last-complete and evals-runs 2 (evaluation-flaky): the reused run and the flaky question in the comment, outputs and --json; no failure', async () => {
    await control(fx.em, 'profiles', { profiles: ['evaluation-flaky'] });
    const gh = await startGitHubStandin();
    try {
      gh.addPull({ number: 73, headSha: `${'b'.repeat(39)}3`, headRef: 'flaky-agent' });
      const dir = folder(tree(`${ORDERS}# reviewed\n`));
      const flags = { DATAMODEL_CI_FAIL_ON_EVAL_REGRESSION: 'true', DATAMODEL_CI_EVALS_PRODUCTION: 'last-complete', DATAMODEL_CI_EVALS_RUNS: '2' };
      const r = await pr(fx, gh, 73, dir, flags);
      // The flaky question is a warning: fail-on-eval-regression reads stable regressions only.
      expect(r.code, r.log).toBe(0);
      expect(r.log).toMatch(/^eval-flaky-count=1$/m);
      expect(r.log).toMatch(/^eval-regressions-count=0$/m);
      const comment = gh.comments(73).at(-1)!.body;
      expect(comment).toContain('**Agent evals** (production `2/2`, this pull request `1/2`): ✅ no question newly failing; ⚠️ 1 flaky question');
      expect(comment).toMatch(/- production \(`main`\): its last complete run `\d+`, created `[^`]+`, completed `[^`]+`, reused/);
      expect(comment).toContain('- ⚠️ `orders_by_status` (production: `pass`; here: `pass`, `fail`)');

      const j = cliIo(fx.em);
      const tick = setInterval(() => fx.em.clock.advance(60_000), 100);
      try {
        const argv = [
          'plan',
          '--deployment-id',
          '1',
          '--model-dir',
          dir,
          '--evals',
          'on',
          '--evals-production',
          'last-complete',
          '--evals-runs',
          '2',
          '--json',
        ];
        expect(await runCli(argv, j), j.stderr.join('\n')).toBe(0);
      } finally {
        clearInterval(tick);
      }
      const evals = JSON.parse(j.stdout.join('\n')).result.evals;
      expect(evals.production.reused).toMatchObject({ runId: expect.any(String), createdAt: expect.any(String) });
      expect(evals.preview.runIds).toHaveLength(2);
      expect(evals.flaky).toEqual([{ label: 'orders_by_status', production: ['pass'], preview: ['pass', 'fail'] }]);
    } finally {
      await control(fx.em, 'profiles', { profiles: [] });
      await gh.close();
    }
  }, 180_000);
});
