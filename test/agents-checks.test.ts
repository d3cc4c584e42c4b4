/**
 * The agents folder's findings on the `datamodel-ci / validation` check wherever a run writes it, against the
 * emulator over HTTPS and the GitHub stand-in: the standalone `validate` step (after `start-dev-branch` and
 * `upload-model`, as validation-gate.yml runs them) and a merge-queue run check the folder against the
 * model files; an agent listing a view the model does not have is an annotation on its line that fails the
 * check and the step (the `agents-errors` output counts it, the job summary lists it); a clean folder does
 * not. The `pr` action's job summary carries its Agents section whole.
 */
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_MODEL, startGitHubStandin, type GitHubStandin } from '../packages/emulator/src/index.js';
import { runActionCommand } from '../src/commands/index.js';
import { actionsStep } from './support/actions-step.js';
import { emulatorFixture, type EmulatorFixture } from './support/emulator.js';
import { mergeGroupEvent, pullRequestEvent, writeEvent } from './support/payloads.js';
import { SALES_AGENTS as AGENTS, withoutView, modelFolder } from './support/evals-fixtures.js';

const CHECK = 'datamodel-ci / validation';

let fx: EmulatorFixture;
let gh: GitHubStandin;
beforeAll(async () => {
  fx = await emulatorFixture();
  gh = await startGitHubStandin();
}, 120_000);
afterAll(async () => {
  await gh.close();
  await fx.close();
});

const folder = (files: Record<string, string>) => modelFolder(files, 'dmci-agents-checks-');

const sha = (pr: number) => `${'d'.repeat(38)}${pr}`;

/** The environment of a step of pull request `pr`, or (`event`) of another event. */
function env(pr: number, dir: string, event?: { name: string; payload: Record<string, unknown> }): NodeJS.ProcessEnv {
  return {
    DATAMODEL_CI_API_URL: fx.em.baseUrl,
    DATAMODEL_CI_API_KEY: fx.em.credentials.admin,
    DATAMODEL_CI_CA_CERT: `${fx.em.ca}\n${gh.ca}`,
    DATAMODEL_CI_DEPLOYMENT_ID: '1',
    DATAMODEL_CI_GITHUB_TOKEN: 'ghs_agents_checks_token_0123',
    DATAMODEL_CI_MODEL_DIR: dir,
    RUNNER_TEMP: tmpdir(),
    GITHUB_REPOSITORY: gh.repository,
    GITHUB_API_URL: gh.url,
    GITHUB_RUN_ID: String(9000 + pr),
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_EVENT_NAME: event?.name ?? 'pull_request',
    GITHUB_EVENT_PATH: writeEvent(event?.payload ?? pullRequestEvent('opened', { number: pr, headSha: sha(pr) })),
  };
}

/** The terminal run of an action (its log), in this process. */
async function run(command: 'start-dev-branch' | 'upload-model' | 'pr', e: NodeJS.ProcessEnv): Promise<{ code: number; log: string }> {
  const lines: string[] = [];
  const code = await runActionCommand(command, [], { out: (l) => lines.push(l), err: (l) => lines.push(l), env: { ...e, GITHUB_ACTIONS: '' } });
  return { code, log: lines.join('\n') };
}

const checkOf = (head: string) => gh.checkRuns().filter((c) => c.name === CHECK && c.headSha === head);

/** validation-gate.yml's steps: start the branch, upload the model, then `validate` as a workflow step. */
async function gate(pr: number, files: Record<string, string>) {
  gh.addPull({ number: pr, headSha: sha(pr), headRef: `agents-${pr}` });
  const dir = folder(files);
  for (const step of ['start-dev-branch', 'upload-model'] as const) {
    const r = await run(step, env(pr, dir));
    expect(r.code, r.log).toBe(0);
  }
  return { dir, step: await actionsStep('validate', env(pr, dir)) };
}

describe('validate', () => {
  it('an agent listing a view the model does not have: an annotation on its line, the check and the step fail, the summary lists it', async () => {
    const { dir, step } = await gate(91, withoutView({ ...DEMO_MODEL, ...AGENTS }));
    expect(step.code).toBe(1);
    expect(step.outputs).toMatchObject({ valid: 'true', 'error-count': '0', 'agents-errors': '2' });
    const [check, ...again] = checkOf(sha(91));
    expect(again).toEqual([]);
    expect(check).toMatchObject({ conclusion: 'failure' });
    expect(check!.output.title).toMatch(/: 2 errors in agents\/$/);
    expect(check!.annotations.map((a) => `${a.path}:${a.startLine}:${a.level}:${a.title}`)).toEqual([
      `${dir}/agents/config.yml:8:failure:agents`,
      `${dir}/agents/eval_questions/sales.yml:5:failure:agents`,
    ]);
    expect(step.summary).toContain(
      "**Agents** (`agents/`: 1 agent, 0 certified queries, 1 eval question; names checked against the pull request's model files): ❌ 2 errors",
    );
    expect(step.summary.match(/^- ❌ `/gm)).toHaveLength(2);
    expect(gh.comments(91).at(-1)!.body).toContain('**Agents**');
  }, 120_000);

  it('the same folder with the view: the check passes, agents-errors is 0', async () => {
    const { step } = await gate(92, { ...DEMO_MODEL, ...AGENTS });
    expect(step.code).toBe(0);
    expect(step.outputs).toMatchObject({ valid: 'true', 'agents-errors': '0' });
    const [check] = checkOf(sha(92));
    expect(check).toMatchObject({ conclusion: 'success' });
    expect(check!.annotations).toEqual([]);
    expect(step.summary).toContain('✅ no findings');
  }, 120_000);
});

describe('a merge-queue run', () => {
  async function queued(pr: number, files: Record<string, string>) {
    gh.addPull({ number: pr, headSha: sha(pr), headRef: `queued-${pr}` });
    const group = gh.enqueue(pr);
    const dir = folder(files);
    const r = await run('pr', {
      ...env(pr, dir, { name: 'merge_group', payload: mergeGroupEvent(group, pullRequestEvent('opened').repository as Record<string, unknown>) }),
      DATAMODEL_CI_PREVIEW_UNTOUCHED: 'true',
    });
    return { ...r, dir, group };
  }

  it("the agents' errors are annotations on the group's validation check and fail it", async () => {
    const r = await queued(93, withoutView({ ...DEMO_MODEL, ...AGENTS }));
    expect(r.code, r.log).toBe(1);
    expect(r.log).toContain('2 errors in agents/');
    expect(r.log).toMatch(/^agents-errors=2$/m);
    const [check] = checkOf(r.group.headSha);
    expect(check).toMatchObject({ conclusion: 'failure' });
    expect(check!.annotations.map((a) => `${a.path}:${a.startLine}:${a.title}`)).toEqual([
      `${r.dir}/agents/config.yml:8:agents`,
      `${r.dir}/agents/eval_questions/sales.yml:5:agents`,
    ]);
  }, 120_000);

  it('a clean folder: the check passes', async () => {
    const r = await queued(94, { ...DEMO_MODEL, ...AGENTS });
    expect(r.code, r.log).toBe(0);
    expect(r.log).toMatch(/^agents-errors=0$/m);
    expect(checkOf(r.group.headSha)[0]).toMatchObject({ conclusion: 'success' });
  }, 120_000);
});

describe("the pr action's job summary", () => {
  it('carries the Agents section whole: every finding, more than the comment shows', async () => {
    gh.addPull({ number: 95, headSha: sha(95), headRef: 'many-findings' });
    // Twelve agents each listing the removed view: an error on each agent's line and one per agent on the view's definition.
    const agents = Array.from({ length: 12 }, (_, i) => `  - name: desk-${i}\n    space: sales\n    accessible_views:\n      - orders_view\n`).join('');
    const dir = folder(withoutView({ ...DEMO_MODEL, 'agents/config.yml': `spaces:\n  - name: sales\nagents:\n${agents}` }));
    const step = await actionsStep('pr', env(95, dir));
    expect(step.code).toBe(1);
    expect(step.outputs['agents-errors']).toBe('24');
    const comment = gh.comments(95).at(-1)!.body;
    expect(comment).toContain('…and 14 more findings: the job summary lists them all.');
    expect(step.summary.match(/^- ❌ `/gm)).toHaveLength(24);
    expect(step.summary).not.toContain('more findings');
  }, 120_000);
});
