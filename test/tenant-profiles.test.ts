/**
 * The tenant profiles one by one (issue 18): how each is switched on and what it answers, and the
 * toolkit's rule for each silent point, checked where the lifecycle matrix cannot reach (a built status
 * with an old error text, a pager on a list that ignores paging, the session start-dev-branch leaves,
 * the project root of a repository-fed deployment, the fields that differ between Cube versions).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect } from '../src/client/index.js';
import { repositoryModelDir } from '../src/commands/pr-preview.js';
import { withoutEngineDifferences } from '../src/impact/engine-version.js';
import { parseMeta } from '../src/impact/base/meta.js';
import { diffMeta } from '../src/impact/base/diff.js';
import { MemoryReporter } from '../src/report/reporter.js';
import { markBuild, targetOf, waitForBuild } from '../src/operations/branch-build.js';
import type { OpContext } from '../src/operations/context.js';
import { enableStaging, wakeStaging } from '../src/operations/enable-staging.js';
import { branchModelFiles } from '../src/operations/impact.js';
import { startDevBranch } from '../src/operations/start-dev-branch.js';
import { PlatformClient } from '../src/client/index.js';
import { main } from '../packages/emulator/src/main.js';
import { json, startTestServer } from './support/https-server.js';
import { control, emulatorFixture, failure, snapshot, type EmulatorFixture } from './support/emulator.js';
import { cube, startLifecycle } from './support/lifecycle.js';

let fx: EmulatorFixture;
beforeAll(async () => {
  fx = await emulatorFixture();
});
afterAll(() => fx.close());

const ctx = (f = fx): OpContext & { reporter: MemoryReporter } => ({ client: f.admin, deploymentId: 1, reporter: new MemoryReporter(), dryRun: false });

describe('switching profiles', () => {
  it('--profile and the control route take known names only, naming the value and the choices; short-hash excludes no-hash', async () => {
    const run = async (args: string[]) => {
      const out: string[] = [];
      return { code: await main(args, { out: (l) => out.push(l), err: (l) => out.push(l) }), text: out.join('\n') };
    };
    expect((await run(['--help'])).text).toMatch(/^ {2}github-connected {6}deployments fed from a connected GitHub repository/m);
    const bad = await run(['--profile', 'github-connected,slow']);
    expect(bad.code).toBe(2);
    expect(bad.text).toContain('--profile: got "slow", expected profile names separated by commas, from: github-connected, duplicate-branch-400,');
    expect((await run(['--profile', 'short-hash,no-hash'])).text).toContain('--profile: got short-hash with no-hash, expected at most one of them');
    await expect(control(fx.em, 'profiles', { profiles: ['nope'] })).rejects.toThrow('profiles: got "nope"');
    expect(await control(fx.em, 'profiles')).toMatchObject({ on: [] });
    // A value that is no list leaves the profiles as they were.
    await control(fx.em, 'profiles', { profiles: ['short-hash'] });
    for (const profiles of [5, null, { on: true }]) {
      await expect(control(fx.em, 'profiles', { profiles })).rejects.toThrow(`profiles: got ${JSON.stringify(profiles)}, expected a list of profile names`);
    }
    expect(await control(fx.em, 'profiles')).toMatchObject({ on: ['short-hash'] });
    await control(fx.em, 'profiles', { profiles: [] });
  });

  it('github-connected turns the settings into a fed deployment, and off again', async () => {
    const own = await emulatorFixture();
    try {
      await control(own.em, 'profiles', { profiles: ['github-connected'] });
      const s = await own.admin.deployments.settings({ deploymentId: 1 });
      expect(s).toMatchObject({ creationMethod: 'github', deployBranchReadOnly: true, deployBranchMergeAllowed: false, deployProjectRoot: '/' });
      expect(targetOf(s)).toMatchObject({
        repository: { name: 'acme/analytics', evidence: 'repoType: git, creationMethod: github' },
        mergeAllowed: false,
        readOnly: true,
      });
      expect(await control(own.em, 'repository?deploymentId=1')).toMatchObject({ repository: 'acme/analytics', refs: { main: expect.any(String) } });
      // A branch made on the platform is a ref; removed without removeOnUpstream it stays there.
      await own.admin.branches.create({ deploymentId: 1, body: { name: 'preview-pr-90' } });
      await own.admin.branches.remove({ deploymentId: 1, query: { branchName: 'preview-pr-90' } });
      expect((await control(own.em, 'repository?deploymentId=1')).refs['preview-pr-90']).toBeDefined();
      await own.admin.branches.create({ deploymentId: 1, body: { name: 'preview-pr-91' } });
      await own.admin.branches.remove({ deploymentId: 1, query: { branchName: 'preview-pr-91', removeOnUpstream: true } });
      expect((await control(own.em, 'repository?deploymentId=1')).refs['preview-pr-91']).toBeUndefined();
      const merge = (await failure(own.admin.branches.mergeToDefault({ deploymentId: 1, body: { branchName: 'feature-revenue', message: 'm' } }))) as Error;
      expect(merge.message).toContain('deployBranchMergeAllowed: false');
      await control(own.em, 'profiles', { profiles: [] });
      expect(targetOf(await own.admin.deployments.settings({ deploymentId: 1 }))).toMatchObject({ mergeAllowed: true, readOnly: false });
      expect(targetOf(await own.admin.deployments.settings({ deploymentId: 1 })).repository).toBeUndefined();
    } finally {
      await own.close();
    }
  });
});

describe('the toolkit on each silent point', () => {
  it('how a deployment is fed comes from every field that says a repository is connected, not creationMethod alone', () => {
    const settings = (extra: Record<string, unknown>) =>
      ({
        deployBranchName: 'main',
        deployBranchReadOnly: false,
        deployBranchMergeAllowed: true,
        deployProjectRoot: '/',
        creationStep: 'ready',
        ...extra,
      }) as never;
    // Created by upload, connected later: only repoType says so; GitHub's merge deploys it.
    expect(targetOf(settings({ creationMethod: 'upload', repoType: 'git', deployMode: 'git' }))).toMatchObject({
      connected: { evidence: 'repoType: git' },
      repository: { evidence: 'repoType: git' },
    });
    // CLI mode with a repository: its branches are refs there, but uploads feed production.
    const cli = targetOf(settings({ creationMethod: 'github', repoType: 'git', deployMode: 'cli' }));
    expect(cli.connected).toEqual({ name: undefined, evidence: 'repoType: git, creationMethod: github' });
    expect(cli.repository).toBeUndefined();
    expect(targetOf(settings({ repository: 'acme/x' }))).toMatchObject({ repository: { name: 'acme/x', evidence: 'a repository named in the settings' } });
    const uploaded = targetOf(settings({ creationMethod: 'upload', repoType: 'deployRepo', deployMode: 'git' }));
    expect([uploaded.connected, uploaded.repository]).toEqual([undefined, undefined]);
  });

  it('merge-on-close: true on a repository-fed deployment is refused before any write, naming the setting', async () => {
    const lc = await startLifecycle({ emulator: { profiles: ['github-connected'] } });
    try {
      lc.gh.addPull({ number: 5, headSha: '5'.padEnd(40, '0'), headRef: 'five' });
      lc.gh.closePull(5, true);
      lc.checkout({ 'model/cubes/five.yml': cube('five', 1) });
      const before = snapshot(lc.em);
      const r = await lc.run(5, 'closed', { merged: true, headRef: 'five', env: { DATAMODEL_CI_MERGE_ON_CLOSE: 'true' } });
      expect(r.code).toBe(2);
      expect(r.lines.join('\n')).toContain(
        'merge-on-close: got "true", expected auto or false: deployment 1: it is fed from acme/analytics (repoType: git, creationMethod: github): GitHub\'s merge of the pull request deploys production',
      );
      expect(snapshot(lc.em)).toBe(before);
      expect(lc.gh.comments(5)).toEqual([]);
    } finally {
      await lc.close();
    }
  });

  it('a `built` answer still carrying an old error text is a healthy build (the status is read first)', async () => {
    const server = await startTestServer((_q, r) =>
      json(r, 200, {
        deploymentId: 1,
        branchName: 'b',
        mode: 'production',
        status: 'built',
        errorText: 'Branch is not active',
        lastHash: 'abc1234',
        buildJobId: 7,
      }),
    );
    const client = new PlatformClient({ baseUrl: server.baseUrl, apiKey: 'k-0123456789', ca: server.ca });
    try {
      const s = await waitForBuild({ client, deploymentId: 1, reporter: new MemoryReporter(), dryRun: false }, 'b', { lastHash: 'abc1234def' });
      expect(s.status.status).toBe('built');
      // No mark orders builds here: the pushed commit decides.
      expect(s.proof).toBe('commit');
    } finally {
      await client.close();
      await server.close();
    }
  });

  it('staging-cold: a wake that got no answer is sent again at the next poll, not left to the environment waking by itself', async () => {
    // Asleep for an emulated hour: only a request that reaches it wakes it, and the first one gets a 503 on the way.
    const own = await emulatorFixture({ profiles: ['staging-cold'], coldMs: 3_600_000 });
    try {
      const c = { ...ctx(own), ca: own.em.ca };
      const branch = 'wake-twice';
      await own.admin.branches.create({ deploymentId: 1, body: { name: branch } });
      // The status before it runs is the mark: the build after it is the one waited for.
      const since = await markBuild(c, branch);
      const { stagingUrl } = await enableStaging(c, { branch, smokeTest: false });
      own.em.faults.plan({ kind: '5xx', method: 'GET', path: `/dev-mode/${branch}/` });
      const answers: boolean[] = [];
      const s = await waitForBuild(c, branch, {
        ...(since ? { since } : {}),
        wake: async () => {
          const answered = await wakeStaging(c, stagingUrl!);
          answers.push(answered);
          return answered;
        },
      });
      expect(s.status.status).toBe('built');
      // The first got the injected 503; the second reached the environment (which answers 503 while it starts).
      expect(answers.length).toBeGreaterThanOrEqual(2);
      expect(own.em.faults.injected['5xx']).toBe(1);
      expect(c.reporter.lines.filter((l) => l.message.includes('waking it'))).toHaveLength(1);
    } finally {
      await own.close();
    }
  });

  it("a CLI deployment's production files are its last upload (showLastCLIUpload), not the deploy branch's git merged into since", async () => {
    const own = await emulatorFixture();
    try {
      // marketing (2) deploys from the CLI: a merge into main changes git, not production.
      const dev = (await own.admin.branches.startDevMode({ deploymentId: 2, body: { branchName: 'feature-revenue' } })).branchName!;
      await own.admin.dataModel.updateFiles({
        deploymentId: 2,
        body: { branchName: dev, files: [{ path: 'model/cubes/merged.yml', content: 'cubes: []\n' }] },
      });
      await own.admin.branches.commit({ deploymentId: 2, body: { branchName: dev, exitDevMode: true } });
      await own.admin.branches.mergeToDefault({ deploymentId: 2, body: { branchName: 'feature-revenue', message: 'merge', removeBranchAfterMerge: false } });
      const c2 = { ...ctx(own), deploymentId: 2 };
      expect([...(await branchModelFiles(c2, 'main')).keys()]).toContain('model/cubes/merged.yml');
      expect([...(await branchModelFiles(c2, 'main', true)).keys()]).not.toContain('model/cubes/merged.yml');
    } finally {
      await own.close();
    }
  });

  it('the environments pager reads a list that ignores offset and limit once, each environment once', async () => {
    const own = await emulatorFixture({ profiles: ['environments-unpaged'] });
    try {
      await own.admin.branches.setStagingEnvironment({ deploymentId: 1, body: { enabled: true, branchName: 'feature-revenue' } });
      const all = await collect(own.admin.deployments.iterateEnvironments({ deploymentId: 1, limit: 2 }));
      expect(all.length).toBe(122);
      expect(new Set(all.map((e) => e.id)).size).toBe(all.length);
      expect(all.some((e) => e.branch === 'feature-revenue')).toBe(true);
    } finally {
      await own.close();
    }
  });

  it('start-dev-branch forks the dev branch and sends no DELETE …/dev-mode (per credential, it would end another run’s session); deleting the fork ends it', async () => {
    const stops = fx.em.counts.stopDevMode ?? 0;
    const r = await startDevBranch(ctx(), { branch: 'preview-pr-92' });
    expect(r.devBranch).toMatch(/^dev-/);
    expect(fx.em.state.deployments[0]!.branches[r.devBranch!]).toBeDefined();
    expect(Object.values(fx.em.state.deployments[0]!.devSessions)).toEqual([r.devBranch]);
    await fx.admin.branches.remove({ deploymentId: 1, query: { branchName: r.devBranch! } });
    expect(fx.em.state.deployments[0]!.devSessions).toEqual({});
    expect(fx.em.counts.stopDevMode ?? 0).toBe(stops);
  });

  it("errors of a repository-fed deployment are placed under its project root when model-dir is left at '.'", () => {
    const target = { deployBranch: 'main', deployMode: 'git', projectRoot: '/analytics', mergeAllowed: false, readOnly: true };
    expect(repositoryModelDir(new MemoryReporter(), '.', target)).toBe('analytics');
    expect(repositoryModelDir(new MemoryReporter(), 'analytics', target)).toBe('analytics');
    const reporter = new MemoryReporter();
    expect(repositoryModelDir(reporter, 'warehouse', target)).toBe('warehouse');
    expect(reporter.lines.find((l) => l.level === 'warning')?.message).toContain('deployProjectRoot: /analytics');
    expect(repositoryModelDir(new MemoryReporter(), '.', { ...target, projectRoot: '/' })).toBe('.');
  });

  it('what only the Cube versions explain is no change: formatDescription, a named format resolved, a title’s acronym', () => {
    const older = {
      cubes: [
        {
          name: 'o',
          type: 'cube',
          measures: [{ name: 'o.total', title: 'O Total', type: 'number', aggType: 'sum', format: 'abbr' }],
          dimensions: [{ name: 'o.customer_id', title: 'O Customer Id', type: 'string' }],
          segments: [],
        },
      ],
    };
    const newer = {
      cubes: [
        {
          name: 'o',
          type: 'cube',
          measures: [
            {
              name: 'o.total',
              title: 'O Total',
              type: 'number',
              aggType: 'sum',
              format: { type: 'custom-numeric', value: '.3~s', alias: 'abbr' },
              formatDescription: { name: 'abbr' },
            },
          ],
          dimensions: [{ name: 'o.customer_id', title: 'O Customer ID', type: 'string' }],
          segments: [],
        },
      ],
    };
    const raw = diffMeta(parseMeta(older, 'production'), parseMeta(newer, 'staging'));
    expect(raw.members.map((m) => m.details.join('; '))).toEqual(['title O Customer Id → O Customer ID']);
    expect(withoutEngineDifferences(raw).members).toEqual([]);
    // A real change stays: a new title, and a measure's format changed in the model.
    const edited = structuredClone(newer);
    edited.cubes[0]!.dimensions[0]!.title = 'Customer number';
    edited.cubes[0]!.measures[0]!.format = { type: 'custom-numeric', value: '.1%', alias: 'percent_1' };
    const details = withoutEngineDifferences(diffMeta(parseMeta(older, 'production'), parseMeta(edited, 'staging'))).members.map((m) => m.details.join('; '));
    expect(details.sort()).toEqual(['format abbr → percent_1', 'title O Customer Id → Customer number']);
  });
});
