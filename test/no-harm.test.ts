/**
 * Never harm on a guess (issue 28, docs/faults.md): an irreversible step is taken only on evidence the
 * toolkit produced itself. A branch no run of the pull request made survives every close and sweep, its
 * ref upstream too; a build is the push's only when it is newer than the mark taken before the push; a
 * file the walk never reads stays on the branch. Real `pr` runs against the emulator, and the build wait
 * against a server that answers as the harmful tenants would.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlatformClient } from '../src/client/index.js';
import { NotProven, waitForBuild } from '../src/operations/branch-build.js';
import { uploadTransaction } from '../src/operations/upload-transaction.js';
import { ensureSharedBranch } from '../src/operations/start-dev-branch.js';
import { MemoryReporter } from '../src/report/reporter.js';
import { encodeFile } from '../packages/emulator/src/build/trees.js';
import { parseComment } from '../src/pr/comment/ledger.js';
import { json, startTestServer } from './support/https-server.js';
import { cube, startLifecycle, type Lifecycle } from './support/lifecycle.js';

const head = (pr: number, v: string) => `${pr}${v}`.padEnd(40, '0');

describe('a branch no run of the pull request made', () => {
  let lc: Lifecycle;
  beforeAll(async () => {
    lc = await startLifecycle({ emulator: { profiles: ['github-connected'] } });
  });
  afterAll(() => lc.close());
  const d = () => lc.em.state.deployments[0]!;

  it('survives the close of a pull request previewed on it (branch input), with its ref upstream; its staging goes back off', async () => {
    // A long-lived branch the team made on the platform (and so in the connected repository), staging off.
    const admin = new PlatformClient({ baseUrl: lc.em.baseUrl, apiKey: lc.em.credentials.admin, ca: lc.em.ca });
    try {
      await admin.branches.create({ deploymentId: 1, body: { name: 'staging', from: 'main' } });
    } finally {
      await admin.close();
    }
    expect(d().connected?.refs.staging).toBeDefined();
    lc.gh.addPull({ number: 41, headSha: head(41, 'a'), headRef: 'feature-41' });
    lc.checkout({ 'model/cubes/forty_one.yml': cube('forty_one', 1) });
    const env = { DATAMODEL_CI_BRANCH: 'staging' };
    const opened = await lc.run(41, 'opened', { headSha: head(41, 'a'), env });
    expect(opened.code, opened.lines.join('\n')).toBe(0);
    const ledger = parseComment(lc.gh.comments(41).at(-1)!.body).ledger;
    expect(ledger).toMatchObject({ branch: 'staging', stagingOn: 'staging' });
    expect(ledger?.created).toBeUndefined();
    lc.gh.closePull(41, true);
    const closed = await lc.run(41, 'closed', { headSha: head(41, 'a'), merged: true, env });
    expect(closed.code, closed.lines.join('\n')).toBe(0);
    expect(closed.lines.join('\n')).toContain('staging left as it is: no run of this pull request created it');
    expect(d().branches.staging).toBeDefined();
    expect(d().connected?.refs.staging).toBeDefined();
    expect(d().branches.staging!.staging).toBe(false);
  }, 60_000);

  it('survives the sweep with branch-prefix "": a repository branch pr-<n> whose PR is gone or never had our comment', async () => {
    const admin = new PlatformClient({ baseUrl: lc.em.baseUrl, apiKey: lc.em.credentials.admin, ca: lc.em.ca });
    try {
      for (const name of ['pr-7', 'pr-8']) await admin.branches.create({ deploymentId: 1, body: { name, from: 'main' } });
    } finally {
      await admin.close();
    }
    // #8 is a closed pull request the toolkit never commented on; #7 does not exist.
    lc.gh.addPull({ number: 8, headSha: head(8, 'a'), headRef: 'pr-8' });
    lc.gh.closePull(8, false);
    lc.gh.addPull({ number: 9, headSha: head(9, 'a'), headRef: 'feature-9' });
    const r = await lc.run(9, 'opened', {
      command: 'cleanup-branch',
      env: { DATAMODEL_CI_MODE: 'sweep', DATAMODEL_CI_BRANCH_PREFIX: '', DATAMODEL_CI_MIN_AGE: '0s' },
    });
    expect(r.code, r.lines.join('\n')).toBe(0);
    for (const name of ['pr-7', 'pr-8']) {
      expect(d().branches[name], name).toBeDefined();
      expect(d().connected?.refs[name], name).toBeDefined();
    }
  }, 60_000);
});

describe('the build of a push', () => {
  /** A build-status server answering `answers` in turn (the last one repeats). */
  async function statuses(answers: Record<string, unknown>[]) {
    let i = 0;
    const server = await startTestServer((_q, r) =>
      json(r, 200, { deploymentId: 1, branchName: 'b', mode: 'production', ...answers[Math.min(i++, answers.length - 1)] }),
    );
    const client = new PlatformClient({ baseUrl: server.baseUrl, apiKey: 'k-0123456789', ca: server.ca });
    return { client, reads: () => i, close: () => Promise.all([client.close(), server.close()]) };
  }

  it('is never the old job showing the new hash (lasthash-at-commit): with a mark, only a newer job is', async () => {
    const s = await statuses([
      { status: 'built', lastHash: 'new1234abcd', buildJobId: 7, updatedAt: '2026-11-27T10:00:00Z' },
      { status: 'built', lastHash: 'new1234abcd', buildJobId: 7, updatedAt: '2026-11-27T10:00:00Z' },
      { status: 'building', lastHash: 'new1234abcd', buildJobId: 8, updatedAt: '2026-11-27T10:01:00Z' },
      { status: 'built', lastHash: 'new1234abcd', buildJobId: 8, updatedAt: '2026-11-27T10:02:00Z' },
    ]);
    try {
      const got = await waitForBuild({ client: s.client, deploymentId: 1, reporter: new MemoryReporter(), dryRun: false }, 'b', {
        lastHash: 'new1234abcd',
        since: { status: 'built', jobId: '7', updatedAt: Date.parse('2026-11-27T10:00:00Z') },
        pollMs: 1,
      });
      expect(got.status.buildJobId).toBe(8);
      expect(s.reads()).toBe(4);
    } finally {
      await s.close();
    }
  });

  it('"Branch is not active" is no run of its own: the old build after it is not taken for the push', async () => {
    const s = await statuses([
      { status: 'building', errorText: 'Branch is not active', lastHash: 'old0000aaaa' },
      { status: 'built', lastHash: 'old0000aaaa' },
      { status: 'built', lastHash: 'new1234abcd' },
    ]);
    try {
      const got = await waitForBuild({ client: s.client, deploymentId: 1, reporter: new MemoryReporter(), dryRun: false }, 'b', {
        lastHash: 'new1234abcd',
        since: { status: 'built' },
        wake: () => Promise.resolve(true),
        pollMs: 1,
      });
      expect(got.status.lastHash).toBe('new1234abcd');
      expect(s.reads()).toBe(3);
    } finally {
      await s.close();
    }
  });
  it('a blank status (no job id, time or hash: a dev worker still serving the old model) is never taken at its first built: only after a run is seen', async () => {
    const s = await statuses([{ status: 'built' }, { status: 'built' }, { status: 'built' }, { status: 'building' }, { status: 'built' }]);
    try {
      const got = await waitForBuild({ client: s.client, deploymentId: 1, reporter: new MemoryReporter(), dryRun: false }, 'b', {
        since: { status: 'built' },
        pollMs: 1,
        maxPollMs: 1,
      });
      expect(got.proof).toBe('new run seen');
      expect(s.reads()).toBe(5);
    } finally {
      await s.close();
    }
  });

  it('blank statuses that never change end "not proven" at the deadline, never valid', async () => {
    const s = await statuses([{ status: 'built' }]);
    try {
      const err = await waitForBuild({ client: s.client, deploymentId: 1, reporter: new MemoryReporter(), dryRun: false }, 'b', {
        since: { status: 'built' },
        pollMs: 1,
        maxPollMs: 1,
        timeoutMs: 50,
      }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(NotProven);
      expect((err as Error).message).toMatch(/^not proven: b answered "built" .* it is not declared valid/);
    } finally {
      await s.close();
    }
  });

  it('a blank mark read after the change may have built ends "not proven" once no run shows within its grace (a fed branch GitHub\'s push synced first)', async () => {
    const s = await statuses([{ status: 'built', lastHash: null }]);
    try {
      const err = await waitForBuild({ client: s.client, deploymentId: 1, reporter: new MemoryReporter(), dryRun: false }, 'b', {
        since: { status: 'built' },
        lastHash: 'head123abc',
        exactCommit: true,
        pollMs: 1,
        maxPollMs: 1,
        unprovenAfterMs: 30,
      }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(NotProven);
    } finally {
      await s.close();
    }
  });
});

describe('files the walk never reads', () => {
  let lc: Lifecycle;
  beforeAll(async () => {
    lc = await startLifecycle();
  });
  afterAll(() => lc.close());

  it("stay on the branch through an upload's finish (a connected repository's .github/, node_modules)", async () => {
    const ctx = {
      client: new PlatformClient({ baseUrl: lc.em.baseUrl, apiKey: lc.em.credentials.admin, ca: lc.em.ca }),
      deploymentId: 1,
      reporter: new MemoryReporter(),
      dryRun: false,
    };
    try {
      await ensureSharedBranch(ctx, 'dotfiles', 'main');
      const b = lc.em.state.deployments[0]!.branches.dotfiles!;
      // As a branch mirroring a repository holds them (profile cli-with-repository).
      for (const [path, text] of Object.entries({ '.github/workflows/ci.yml': 'on: push\n', 'node_modules/x/index.js': '1\n', 'model/.keep/a.yml': 'x\n' })) {
        b.files[path] = encodeFile(text);
        b.head[path] = encodeFile(text);
      }
      lc.checkout({ 'model/cubes/dots.yml': cube('dots', 1) });
      const { scanModel } = await import('../src/model/local-model.js');
      const local = await scanModel(lc.dir);
      const t = await uploadTransaction(ctx, { branch: 'dotfiles', local, concurrency: 4, commitMessage: 'm' });
      expect(t.finished).toBe(true);
      expect(t.removed).toEqual([]);
      const kept = Object.keys(lc.em.state.deployments[0]!.branches.dotfiles!.head);
      expect(kept).toEqual(expect.arrayContaining(['.github/workflows/ci.yml', 'node_modules/x/index.js', 'model/.keep/a.yml', 'model/cubes/dots.yml']));
    } finally {
      await ctx.client.close();
    }
  });
});
