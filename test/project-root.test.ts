/**
 * A repository-fed deployment whose Cube project sits in a folder of the repository (`deployProjectRoot:
 * /analytics`), run as the action runs: the bundle in the checkout, `model-dir` left at `.`. The platform
 * builds only that folder and names files relative to it; the toolkit previews the PR's head branch, places
 * errors on the repository's files, reads the PR's definitions from the same folder, and on merge checks
 * the merge commit. A model elsewhere in the repository (broken on purpose) is never built.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlatformClient } from '../src/client/client.js';
import { shownComment } from './support/shown-comment.js';
import { control } from './support/emulator.js';
import { cube, startLifecycle, type Lifecycle } from './support/lifecycle.js';
import { mergeGroupEvent, pullRequestEvent, writeEvent, type GroupFields } from './support/payloads.js';

const PR = 12;
const HEAD = 'feature/rooted';
const ROOTED = 'analytics/model/cubes/rooted.yml';
const sha = (n: number) => `c0ffee${n}`.padEnd(40, '0');
const BROKEN = cube('rooted', 1).replace('type: count', 'type: cnt');
// A second model in the same repository, not this deployment's: broken, so building it would fail.
const ELSEWHERE = { 'finance/model/cubes/ledger.yml': 'cubes:\n  - name: ledger\n    sql_table: x\n    measures:\n      - name: n\n        type: cnt\n' };

let lc: Lifecycle;
const d = () => lc.em.state.deployments[0]!;
const view = () => shownComment(lc.gh.comments(PR).at(-1)!.body);

/** The repository at a commit: production's project under analytics/, a README, another team's model, and `extra`. */
function repository(extra: Record<string, string>): Record<string, string> {
  const project = Object.fromEntries(
    Object.entries(d().branches.main!.head).map(([p, b64]) => [`analytics/${p}`, Buffer.from(b64, 'base64').toString('utf8')]),
  );
  return { ...project, 'README.md': '# analytics and finance\n', ...ELSEWHERE, ...extra };
}

/** Push `files` to `branch` of the connected repository and write them as the checkout. */
async function push(branch: string, files: Record<string, string>, commit: string): Promise<void> {
  await control(lc.em, 'repository/push', { deploymentId: 1, branch, files, sha: commit });
  rmSync(lc.dir, { recursive: true, force: true });
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(dirname(join(lc.dir, p)), { recursive: true });
    writeFileSync(join(lc.dir, p), text);
  }
}

/** The bundle as a step of the root action, in the checkout, with `model-dir` at its default. */
function step(
  action: string,
  headSha: string,
  extra: { merged?: boolean; mergeCommitSha?: string; pr?: number; headRef?: string; group?: GroupFields } = {},
): Promise<{ code: number; out: string }> {
  const output = join(lc.work, `output-${action}-${headSha.slice(0, 8)}`);
  writeFileSync(output, '');
  const pull = pullRequestEvent(action, {
    number: extra.pr ?? PR,
    headSha,
    headRef: extra.headRef ?? HEAD,
    merged: extra.merged ?? false,
    ...(extra.mergeCommitSha ? { mergeCommitSha: extra.mergeCommitSha } : {}),
  });
  const event = extra.group ? mergeGroupEvent(extra.group, pull.repository as Record<string, unknown>) : pull;
  const child = spawn(process.execPath, [resolve('dist/index.js'), 'pr'], {
    cwd: lc.dir,
    env: {
      PATH: process.env.PATH ?? '',
      GITHUB_ACTIONS: 'true',
      GITHUB_OUTPUT: output,
      GITHUB_REPOSITORY: lc.gh.repository,
      GITHUB_API_URL: lc.gh.url,
      GITHUB_RUN_ID: String(extra.pr ?? PR),
      GITHUB_EVENT_NAME: extra.group ? 'merge_group' : 'pull_request',
      GITHUB_EVENT_PATH: writeEvent(event),
      DATAMODEL_CI_API_URL: lc.em.baseUrl,
      DATAMODEL_CI_API_KEY: lc.em.credentials.admin,
      DATAMODEL_CI_CA_CERT: lc.caFile,
      DATAMODEL_CI_DEPLOYMENT_ID: '1',
      DATAMODEL_CI_GITHUB_TOKEN: 'ghs_project_root_token_0123456789',
      DATAMODEL_CI_REQUEST_TIMEOUT: '60', // no emulator fault here: a busy machine's slow answer is not a hang
    },
  });
  let out = '';
  child.stdout.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr.on('data', (b: Buffer) => (out += b.toString()));
  return new Promise((done) => child.on('close', (code) => done({ code: code ?? -1, out: `${out}\n${readFileSync(output, 'utf8')}` })));
}

// Connected when the deployment was made, and connected later (only `repoType` says so): the same lifecycle.
describe.each(['github-connected', 'connected-later'] as const)(
  'deployProjectRoot on %s: a Cube project in a folder of the connected repository',
  (profile) => {
    beforeAll(async () => {
      lc = await startLifecycle({ emulator: { profiles: [profile], clock: { scale: 20 }, buildMs: 2_000, warmupMs: 0 } });
      await control(lc.em, 'repository/project-root', { deploymentId: 1, projectRoot: '/analytics' });
      lc.gh.addPull({ number: PR, headSha: sha(1), headRef: HEAD });
    });
    afterAll(() => lc.close());

    it('the settings name the folder, and a push to main builds only it, with paths relative to it', async () => {
      const client = new PlatformClient({ baseUrl: lc.em.baseUrl, apiKey: lc.em.credentials.admin, ca: lc.em.ca });
      const settings = await client.deployments.settings({ deploymentId: 1 }).finally(() => client.close());
      expect(settings.deployProjectRoot).toBe('/analytics');
      const before = Object.keys(d().branches.main!.head).sort();
      await push('main', repository({}), sha(0));
      expect(Object.keys(d().branches.main!.head).sort()).toEqual(before);
      expect(d().branches.main!.lastHash).toBe(sha(0));
    });

    it('a broken push is placed on the repository file, at the line; a fix previews with its definitions (read from the folder)', async () => {
      await push(HEAD, repository({ [ROOTED]: BROKEN }), sha(1));
      const broken = await step('opened', sha(1));
      expect(broken.code, broken.out).toBe(1);
      const line = BROKEN.split('\n').findIndex((l) => l.includes('cnt')) + 1;
      const check = lc.gh.checkRuns().find((c) => c.headSha === sha(1) && c.name === 'datamodel-ci / validation');
      expect(check?.annotations.map((a) => `${a.path}:${a.startLine}`)).toEqual([`${ROOTED}:${line}`]);
      expect(view()).toMatchObject({ state: 'invalid', branch: HEAD });
      expect(view().text.slice(view().text.indexOf('**Errors**'))).toMatch(new RegExp(`^\\[?\`${ROOTED}\``, 'm'));
      // The platform branch holds the project alone: no README, no other team's model.
      expect(Object.keys(d().branches[HEAD]!.head)).toContain('model/cubes/rooted.yml');
      expect(Object.keys(d().branches[HEAD]!.head).filter((p) => !p.startsWith('model/') && p !== 'cube.js')).toEqual([]);

      lc.gh.setHead(PR, sha(2));
      // The fix also changes how orders.total_amount is computed: only the PR's definitions show that.
      const orders = 'analytics/model/cubes/orders.yml';
      const recomputed = repository({})[orders]!.replace('sql: amount', 'sql: amount * 2');
      await push(HEAD, repository({ [ROOTED]: cube('rooted', 2), [orders]: recomputed }), sha(2));
      const fixed = await step('synchronize', sha(2));
      expect(fixed.code, fixed.out).toBe(0);
      expect(view()).toMatchObject({ state: 'ready', branch: HEAD, headSha: sha(2) });
      // The definitions were read from analytics/ (model-dir `.`): the new cube's two members, and the recomputed measure.
      expect(view().text, fixed.out).toMatch(/\*\*Semantic layer\*\* \([^)]*\): 0 breaking, 1 values change, 2 added, 0 changed; no content (affected|breaks)/);
      expect(fixed.out).toMatch(/values-changed-count<<(\S+)\n1\n/);
      // Nothing uploaded: the platform pulled the PR's own branch.
      expect(fixed.out).toContain('pulled feature/rooted from the connected repository');
      expect(Object.keys(lc.em.state.deployments[0]!.uploads)).toEqual([]);
    });

    it('on merge, production is checked at the merge commit and the project lands in the folder', async () => {
      const merge = sha(9);
      lc.gh.closePull(PR, true);
      const orders = 'analytics/model/cubes/orders.yml';
      await push('main', repository({ [ROOTED]: cube('rooted', 2), [orders]: repository({})[orders]!.replace('sql: amount', 'sql: amount * 2') }), merge);
      const closed = await step('closed', sha(2), { merged: true, mergeCommitSha: merge });
      expect(closed.code, closed.out).toBe(0);
      expect(lc.gh.comments(PR).at(-1)!.body).toMatch(/Production is built at the merge commit/);
      expect(d().branches.main!.head['model/cubes/rooted.yml']).toBe(Buffer.from(cube('rooted', 2)).toString('base64'));
      expect(d().branches[HEAD]?.staging).toBe(false);
    });

    it('a merge queue entry uploads analytics/ only (model-dir at .), validates and passes; its branch and ref go', async () => {
      lc.gh.addPull({ number: 13, headSha: sha(13), headRef: 'feature/queued', files: [ROOTED] });
      const group = lc.gh.enqueue(13);
      rmSync(lc.dir, { recursive: true, force: true });
      for (const [p, text] of Object.entries(repository({ [ROOTED]: cube('rooted', 3) }))) {
        mkdirSync(dirname(join(lc.dir, p)), { recursive: true });
        writeFileSync(join(lc.dir, p), text);
      }
      const r = await step('opened', group.headSha, { pr: 13, group });
      expect(r.code, r.out).toBe(0);
      const check = lc.gh.checkRuns().find((c) => c.headSha === group.headSha && c.name === 'datamodel-ci / validation');
      expect(check?.conclusion, r.out).toBe('success');
      expect(Object.keys(d().branches).filter((b) => b.includes('mq-'))).toEqual([]);
      expect(Object.keys(d().connected!.refs).filter((b) => b.includes('mq-'))).toEqual([]);
      // The queue branch held the project alone: the README and finance/ were never uploaded.
      expect(r.out).not.toMatch(/README\.md|finance\//);
    });

    it('a merge that changes nothing under analytics/ is not waited for: the platform builds production only when the project changes', async () => {
      await control(lc.em, 'profiles', { profiles: [profile, 'project-untouched-no-build'] });
      lc.gh.addPull({ number: 14, headSha: sha(14), headRef: 'feature/finance-only', files: ['finance/model/cubes/ledger.yml'] });
      const before = d().branches.main!.lastHash;
      lc.gh.closePull(14, true);
      await push(
        'main',
        repository({ [ROOTED]: cube('rooted', 2), 'finance/model/cubes/ledger.yml': ELSEWHERE['finance/model/cubes/ledger.yml'].replace('cnt', 'count') }),
        sha(15),
      );
      const closed = await step('closed', sha(14), { pr: 14, headRef: 'feature/finance-only', merged: true, mergeCommitSha: sha(15) });
      expect(closed.code, closed.out).toBe(0);
      expect(closed.out).toContain(
        'the merge changed nothing under analytics/, and the platform builds production only when the project changes: not waited for',
      );
      expect(d().branches.main!.lastHash).toBe(before);
    });
  },
);

// Connected, but fed by uploads (CLI mode): the preview uploads the project folder (model-dir `.`), keeps
// the repository's own files on the branch, and a queue entry does the same.
describe('deployProjectRoot on cli-with-repository: uploads of the project folder only', () => {
  beforeAll(async () => {
    lc = await startLifecycle({ emulator: { profiles: ['cli-with-repository'], clock: { scale: 20 }, buildMs: 2_000, warmupMs: 0 } });
    await control(lc.em, 'repository/project-root', { deploymentId: 1, projectRoot: '/analytics' });
  });
  afterAll(() => lc.close());

  it('a preview uploads analytics/ only, with useDeployProjectRoot, keeping the branch’s .github/; a queue entry passes', async () => {
    lc.gh.addPull({ number: 21, headSha: sha(21), headRef: 'feature/cli', files: [ROOTED] });
    const tree = repository({ [ROOTED]: cube('rooted', 4) });
    rmSync(lc.dir, { recursive: true, force: true });
    for (const [p, text] of Object.entries(tree)) {
      mkdirSync(dirname(join(lc.dir, p)), { recursive: true });
      writeFileSync(join(lc.dir, p), text);
    }
    const opened = await step('opened', sha(21), { pr: 21, headRef: 'feature/cli' });
    expect(opened.code, opened.out).toBe(0);
    const files = Object.keys(d().branches['preview-pr-21']!.head);
    expect(files).toContain('model/cubes/rooted.yml');
    expect(files).toContain('.github/workflows/ci.yml');
    expect(files.filter((p) => p.startsWith('analytics/') || p.startsWith('finance/') || p === 'README.md')).toEqual([]);
    const group = lc.gh.enqueue(21);
    const queued = await step('opened', group.headSha, { pr: 21, group });
    expect(queued.code, queued.out).toBe(0);
    expect(lc.gh.checkRuns().find((c) => c.headSha === group.headSha && c.name === 'datamodel-ci / validation')?.conclusion).toBe('success');
  });
});
