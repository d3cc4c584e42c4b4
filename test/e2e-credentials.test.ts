/**
 * A gate that is never green on nothing, as GitHub runs it: the example workflows played by the harness
 * (the committed dist/) with no API key, against the GitHub stand-in, which records check runs and reads
 * required checks as branch protection does. A pull request from this repository fails with the check
 * `failure` naming the input and the secret; `without-credentials: skip` ends green writing no check; a
 * fork's or Dependabot's pull request writes no check and says the required check stays pending.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDocument, type YAMLMap, type YAMLSeq } from 'yaml';
import { DEMO_MODEL, FINANCE_MODEL, startGitHubStandin, type GitHubStandin } from '../packages/emulator/src/index.js';
import { runJob, type JobRunResult } from './harness/runner.js';
import { renderGfm } from './support/gfm.js';
import { pullRequestEvent } from './support/payloads.js';

const REPO = resolve('.');
const WF = (name: string) => join(REPO, 'examples', 'workflows', name);
const CHECK = 'datamodel-ci / validation';
const TOKEN = 'ghs_credentials_token_0123456789';

let gh: GitHubStandin;
let caFile: string;
let tree: string;
const captured: string[] = [];

beforeAll(async () => {
  gh = await startGitHubStandin();
  caFile = join(mkdtempSync(join(tmpdir(), 'dmci-cred-ca-')), 'ca.pem');
  writeFileSync(caFile, gh.ca);
  tree = mkdtempSync(join(tmpdir(), 'dmci-cred-checkout-'));
  for (const [dir, files] of [
    ['analytics', DEMO_MODEL],
    ['finance', FINANCE_MODEL],
  ] as const) {
    for (const [p, c] of Object.entries(files)) {
      mkdirSync(dirname(join(tree, dir, p)), { recursive: true });
      writeFileSync(join(tree, dir, p), c);
    }
  }
});
afterAll(async () => {
  for (const text of captured) expect(text).not.toContain(TOKEN);
  expect(gh.violations).toEqual([]);
  await gh.close();
});

/** A copy of an example workflow whose datamodel-ci step takes more inputs. */
function withInputs(name: string, inputs: Record<string, string>): string {
  const doc = parseDocument(readFileSync(WF(name), 'utf8'));
  const jobs = doc.get('jobs') as YAMLMap;
  const job = jobs.items[0]!.value as YAMLMap;
  const steps = job.get('steps') as YAMLSeq<YAMLMap>;
  const ours = steps.items.find((s) => String(s.get('uses')).startsWith('your-org/datamodel-ci'))!;
  for (const [k, v] of Object.entries(inputs)) ours.setIn(['with', k], v);
  const file = join(mkdtempSync(join(tmpdir(), 'dmci-cred-wf-')), name);
  writeFileSync(file, doc.toString());
  return file;
}

/** A pull_request run with no API key in the secrets (a misspelt or missing secret reads as empty). */
async function play(workflow: string, jobId: string, event: Record<string, unknown>, vars: Record<string, string> = {}): Promise<JobRunResult> {
  const r = await runJob({
    workflowFile: workflow.startsWith('/') ? workflow : WF(workflow),
    jobId,
    repoDir: REPO,
    checkoutFrom: tree,
    eventName: 'pull_request',
    event,
    github: { api_url: gh.url, repository: gh.repository, token: TOKEN, run_id: '5150' },
    secrets: {},
    vars: { PLATFORM_API_URL: 'https://tenant.example.com', PLATFORM_DEPLOYMENT_ID: '1', ...vars },
    env: { NODE_EXTRA_CA_CERTS: caFile },
  });
  captured.push(r.log.join('\n'), r.summary, JSON.stringify(r.annotations));
  return r;
}

const sha = (n: number) => `c0ffee${n}`.padEnd(40, '0');
const ours = (r: JobRunResult) => r.steps.find((s) => s.uses?.startsWith('your-org/datamodel-ci'))!;
const checksOn = (s: string) => gh.checkRuns().filter((c) => c.headSha === s);
/** The job summary as a reader sees it (escapes rendered, the zero-width breaks that stop `#N` links dropped). */
const summaryText = (r: JobRunResult) => renderGfm(r.summary).text.replace(/\u200b/g, '');
const messages = (r: JobRunResult, level: string) =>
  r.annotations
    .filter((a) => a.level === level)
    .map((a) => a.message)
    .join('\n');

/** A pull request Dependabot opened: GitHub sets `github.actor` from the sender. */
function dependabotEvent(number: number, headSha: string): Record<string, unknown> {
  const e = pullRequestEvent('opened', { number, headSha, headRef: 'dependabot/npm_and_yarn/lodash-4.17.21' });
  (e.sender as Record<string, unknown>).login = 'dependabot[bot]';
  ((e.pull_request as Record<string, unknown>).user as Record<string, unknown>).login = 'dependabot[bot]';
  return e;
}

describe('a pull request from this repository without the API key', () => {
  it('fails the step, and the check says failure, naming the input and the secret', async () => {
    gh.addPull({ number: 31, headSha: sha(31), headRef: 'forgot-the-secret' });
    const r = await play('preview.yml', 'preview', pullRequestEvent('opened', { number: 31, headSha: sha(31) }));
    expect(r.conclusion).toBe('failure');
    expect(ours(r).outputs.skipped ?? '').toBe('');
    expect(messages(r, 'error')).toMatch(
      /^pr: api-key: got nothing, expected an API key: the input api-key is empty .*set the repository secret PLATFORM_API_KEY/m,
    );
    const [check, ...more] = checksOn(sha(31));
    expect(more).toEqual([]);
    expect(check).toMatchObject({
      name: CHECK,
      status: 'completed',
      conclusion: 'failure',
      output: expect.objectContaining({ title: 'No API key: the input api-key is empty' }),
    });
    expect(check!.output.summary).toContain('set the repository secret PLATFORM_API_KEY');
    expect(check!.output.summary).toContain('pass it as api-key');
    expect(gh.verdict(sha(31), [CHECK]).result).toBe('fail');
    expect(gh.comments(31)).toEqual([]);
  });

  it('several models: one failure check per model', async () => {
    gh.addPull({ number: 32, headSha: sha(32), headRef: 'mono-no-key' });
    const r = await play('monorepo.yml', 'preview', pullRequestEvent('opened', { number: 32, headSha: sha(32) }), {
      ANALYTICS_DEPLOYMENT_ID: '1',
      FINANCE_DEPLOYMENT_ID: '3',
    });
    expect(r.conclusion).toBe('failure');
    const checks = Object.fromEntries(checksOn(sha(32)).map((c) => [c.name, c.conclusion]));
    expect(checks).toEqual({ [`${CHECK} (analytics)`]: 'failure', [`${CHECK} (finance)`]: 'failure' });
    expect(gh.verdict(sha(32), [`${CHECK} (analytics)`, `${CHECK} (finance)`]).result).toBe('fail');
  });

  it('with without-credentials: skip, ends green with a notice and the summary, and writes no check: the required one stays pending', async () => {
    gh.addPull({ number: 33, headSha: sha(33), headRef: 'skip-asked' });
    const r = await play(withInputs('preview.yml', { 'without-credentials': 'skip' }), 'preview', pullRequestEvent('opened', { number: 33, headSha: sha(33) }));
    expect(r.conclusion).toBe('success');
    expect(ours(r).outputs.skipped).toBe('true');
    const notice = messages(r, 'notice');
    expect(notice).toContain('Nothing was validated: the input api-key is empty and without-credentials is skip.');
    expect(notice).toContain(`No "${CHECK}" check was written, so a required one stays pending`);
    expect(r.summary).toContain('### ⏭️ Data-model preview · skipped: no API key');
    expect(summaryText(r)).toContain(`No "${CHECK}" check was written, so a required one stays pending`);
    expect(checksOn(sha(33))).toEqual([]);
    expect(gh.verdict(sha(33), [CHECK]).result).toBe('pending');
  });

  it('the deprecated fail-without-credentials still decides, with a warning: false skips (no check), true fails a fork too', async () => {
    gh.addPull({ number: 34, headSha: sha(34), headRef: 'old-input' });
    const off = await play(
      withInputs('preview.yml', { 'fail-without-credentials': 'false' }),
      'preview',
      pullRequestEvent('opened', { number: 34, headSha: sha(34) }),
    );
    expect(off.conclusion).toBe('success');
    expect(messages(off, 'warning')).toContain(
      'the input fail-without-credentials is deprecated and decides this run (false); write without-credentials: skip instead',
    );
    expect(checksOn(sha(34))).toEqual([]);
    gh.addPull({ number: 35, headSha: sha(35), headRef: 'fork', fork: true });
    const on = await play(
      withInputs('preview.yml', { 'fail-without-credentials': 'true' }),
      'preview',
      pullRequestEvent('opened', { number: 35, headSha: sha(35), fork: true }),
    );
    expect(on.conclusion).toBe('failure');
    expect(messages(on, 'error')).toContain('comes from a fork');
    expect(messages(on, 'error')).toContain('fail-without-credentials is true');
    expect(checksOn(sha(35))).toEqual([]);
  });
});

describe("a pull request that gets no secrets: a fork's, Dependabot's", () => {
  // The stand-in's token may write checks here: no check proves the run never tried, not that GitHub refused.
  it("a fork's: green with a warning and a summary that say the required check stays pending and how a maintainer validates it; no check", async () => {
    gh.addPull({ number: 36, headSha: sha(36), headRef: 'patch-1', fork: true });
    const r = await play('preview.yml', 'preview', pullRequestEvent('opened', { number: 36, headSha: sha(36), fork: true }));
    expect(r.conclusion).toBe('success');
    expect(ours(r).outputs.skipped).toBe('true');
    const warning = messages(r, 'warning');
    for (const text of [warning, summaryText(r)]) {
      expect(text).toContain('Nothing was validated: pull request #36 comes from a fork');
      expect(text).toContain(`The required check "${CHECK}" stays pending`);
      expect(text).toContain('pushing its commits to a branch of this repository');
      expect(text).toContain('examples/workflows/merge-queue.yml');
      expect(text).toContain('datamodel-ci validate');
    }
    expect(r.summary).toContain('### ⏭️ Data-model preview · skipped: fork PR');
    expect(checksOn(sha(36))).toEqual([]);
    expect(gh.verdict(sha(36), [CHECK]).result).toBe('pending');
    expect(gh.comments(36)).toEqual([]);
  });

  it("Dependabot's (github.actor dependabot[bot]): the same, with what a maintainer can do for one", async () => {
    gh.addPull({ number: 37, headSha: sha(37), headRef: 'dependabot/npm_and_yarn/lodash-4.17.21' });
    const r = await play('preview.yml', 'preview', dependabotEvent(37, sha(37)));
    expect(r.conclusion).toBe('success');
    expect(ours(r).outputs.skipped).toBe('true');
    const warning = messages(r, 'warning');
    for (const text of [warning, summaryText(r)]) {
      expect(text).toContain('Nothing was validated: pull request #37 was started by Dependabot');
      expect(text).toContain('no Actions secrets');
      expect(text).toContain(`The required check "${CHECK}" stays pending`);
      expect(text).toContain('Dependabot secret named PLATFORM_API_KEY');
    }
    expect(r.summary).toContain('### ⏭️ Data-model preview · skipped: Dependabot PR');
    expect(checksOn(sha(37))).toEqual([]);
    expect(gh.verdict(sha(37), [CHECK]).result).toBe('pending');
  });

  it('validation-gate.yml: every step skips for a fork, the job is green, but no check is written, so the required check stays pending', async () => {
    gh.addPull({ number: 38, headSha: sha(38), headRef: 'patch-2', fork: true });
    const r = await play('validation-gate.yml', 'gate', pullRequestEvent('opened', { number: 38, headSha: sha(38), fork: true }));
    expect(r.conclusion).toBe('success');
    expect(r.stepOutputs.validate).toMatchObject({ skipped: 'true' });
    expect(checksOn(sha(38))).toEqual([]);
    expect(gh.verdict(sha(38), [CHECK]).result).toBe('pending');
  });

  it('validation-gate.yml without the key on a pull request from this repository: the first step fails the job', async () => {
    gh.addPull({ number: 39, headSha: sha(39), headRef: 'gate-no-key' });
    const r = await play('validation-gate.yml', 'gate', pullRequestEvent('opened', { number: 39, headSha: sha(39) }));
    expect(r.conclusion).toBe('failure');
    expect(messages(r, 'error')).toContain('start-dev-branch: api-key: got nothing, expected an API key: the input api-key is empty');
  });
});
