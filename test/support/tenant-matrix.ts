/**
 * The whole PR lifecycle under every tenant profile of the emulator (issue 18): opened, a broken push, a
 * fix, a rerun of the same event, merged; another PR closed unmerged. Each row is one tenant (one
 * emulator with its profiles); rows run side by side. After every step it checks what a user sees (exit
 * code, the one comment, its state, the impact summary) and what the platform holds; at the end nothing
 * is left behind, and on a repository-fed tenant nothing was merged twice and no ref of ours is left.
 * The matrix (row × step) is printed at the end with each step's time. Three test files run a third each.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { shownComment } from './shown-comment.js';
import { EXCLUSIVE, PROFILES, type ProfileName } from '../../packages/emulator/src/profiles.js';
import { control } from './emulator.js';
import { cube, sha1, startLifecycle, type Lifecycle, type Run } from './lifecycle.js';

interface Row {
  name: string;
  profiles: ProfileName[];
}

/** Every profile on at once, but the second of each pair that answers one point two ways (short-hash goes: no-hash stays). */
const EVERY = PROFILES.filter((p) => p !== 'short-hash' && !EXCLUSIVE.some(([a, b]) => p === b && a !== 'short-hash'));

const ROWS: Row[] = [
  { name: 'default', profiles: [] },
  ...PROFILES.map((p) => ({ name: p, profiles: [p] })),
  { name: 'github-connected+short-hash+staging-cold+stale', profiles: ['github-connected', 'short-hash', 'staging-cold', 'stale-build-status'] },
  { name: 'no-hash+stale-build-status', profiles: ['no-hash', 'stale-build-status'] },
  {
    name: 'connected-later+lasthash+pull-needs-added+second-wake+untouched',
    profiles: ['connected-later', 'lasthash-at-commit', 'pull-needs-added-branch', 'staging-needs-second-wake', 'project-untouched-no-build'],
  },
  { name: 'cli-with-repository+lasthash+short-hash+staging-cold', profiles: ['cli-with-repository', 'lasthash-at-commit', 'short-hash', 'staging-cold'] },
  { name: 'github-connected+push-syncs+lasthash', profiles: ['github-connected', 'push-syncs-added-branches', 'lasthash-at-commit'] },
  { name: 'blank-status+stale+no-hash', profiles: ['blank-build-status', 'stale-build-status', 'no-hash'] },
  { name: 'patch-upgrade-pending+version-hold-unreported', profiles: ['patch-upgrade-pending', 'version-hold-unreported'] },
  { name: 'every profile (no-hash)', profiles: EVERY },
];

const STEPS = ['opened', 'broken push', 'fix', 'rerun', 'merged', 'closed unmerged'] as const;
type Step = (typeof STEPS)[number];
const measured = new Map<string, Partial<Record<Step, string>>>();

const sha = (pr: number, n: number) => `${pr.toString(16)}e${n}`.padEnd(40, '0');
const MODEL = 'model/cubes/matrix.yml';
const BROKEN = cube('matrix', 3).replace('type: count', 'type: cnt');
/** What the impact of the PR's cube reads on every tenant: its two visible members added, nothing else. */
const ADDED_ONLY = '0 breaking, 2 added, 0 changed; no content affected';

const text = (r: Run) => r.lines.join('\n');
const output = (r: Run, name: string) => r.lines.find((l) => l.startsWith(`${name}=`))?.slice(name.length + 1);

async function lifecycle(row: Row): Promise<void> {
  const cells: Partial<Record<Step, string>> = {};
  measured.set(row.name, cells);
  // A repository connected (any of three profiles); it feeds production unless the tenant deploys with the CLI.
  const connected = (['github-connected', 'connected-later', 'cli-with-repository'] as const).some((p) => row.profiles.includes(p));
  const cli = row.profiles.includes('cli-with-repository');
  const github = connected && !cli;
  const cold = row.profiles.includes('staging-cold') || row.profiles.includes('staging-needs-second-wake');
  const upgrading = row.profiles.includes('patch-upgrade-pending');
  const holdUnsaid = row.profiles.includes('version-hold-null') || row.profiles.includes('version-hold-unreported');
  // A scaled clock: a build takes 100 ms (long enough that validating too early sees the old model), a
  // warm-up none; an asleep staging environment wakes only when asked.
  const lc: Lifecycle = await startLifecycle({
    emulator: { profiles: row.profiles, clock: { scale: 20 }, buildMs: 2_000, warmupMs: 0, ...(cold ? { coldMs: 3_600_000 } : {}) },
  });
  const d = () => lc.em.state.deployments[0]!;
  const step = async (name: Step, fn: () => Promise<void>) => {
    const t = Date.now();
    try {
      await fn();
      cells[name] = `ok ${((Date.now() - t) / 1000).toFixed(1)} s`;
    } catch (e) {
      cells[name] = 'FAILED';
      throw e;
    }
  };
  const PR = 7;
  const headRef = 'feature/matrix';
  const view = (pr: number) => shownComment(lc.gh.comments(pr).at(-1)!.body);
  /** The PR's checkout; on a repository-fed tenant also what GitHub holds at its head. */
  const write = async (model: string, headSha: string) => {
    lc.checkout({ [MODEL]: model });
    if (!github) return;
    const files = Object.fromEntries(Object.entries(d().branches.main!.head).map(([p, b64]) => [p, Buffer.from(b64, 'base64').toString('utf8')]));
    await control(lc.em, 'repository/push', { deploymentId: 1, branch: headRef, files: { ...files, [MODEL]: model }, sha: headSha });
  };
  // The team excludes the folder the platform writes (profile platform-written-files): it must never be pruned.
  const env = { DATAMODEL_CI_EXCLUDE: 'model/generated/**' };
  const run = (action: string, headSha: string, merged = false, pr = PR, extra: { mergeCommitSha?: string; headRef?: string; env?: NodeJS.ProcessEnv } = {}) =>
    lc.run(pr, action, {
      headSha,
      merged,
      env: { ...env, ...extra.env },
      headRef: extra.headRef ?? headRef,
      ...(extra.mergeCommitSha ? { mergeCommitSha: extra.mergeCommitSha } : {}),
    });
  const previewBranch = github ? headRef : `preview-pr-${PR}`;
  try {
    lc.gh.addPull({ number: PR, headSha: sha(PR, 1), headRef });
    await step('opened', async () => {
      await write(cube('matrix', 1), sha(PR, 1));
      const r = await run('opened', sha(PR, 1));
      expect(r.code, text(r)).toBe(0);
      expect(lc.gh.comments(PR)).toHaveLength(1);
      expect(view(PR)).toMatchObject({ state: 'ready', branch: previewBranch });
      expect(view(PR).text, text(r)).toContain(`: ${ADDED_ONLY}\n`);
      if (!github) expect(d().branches[previewBranch]!.head[MODEL]).toBe(Buffer.from(cube('matrix', 1)).toString('base64'));
      // A branch mirroring a repository keeps what the walk never reads (the repository's .github/).
      if (row.profiles.includes('cli-with-repository')) expect(d().branches[previewBranch]!.head['.github/workflows/ci.yml']).toBeDefined();
      expect(d().branches[previewBranch]!.staging).toBe(true);
      // Production behind its channel's newest patch with no hold: the review says the version the merge's deploy brings.
      if (upgrading && !holdUnsaid) expect(text(r)).toContain("production will run 1.7.20 after the merge's deploy (automatic patch upgrades)");
      if (upgrading) expect(output(r, 'version-skew-count'), text(r)).toBe('0');
    });
    await step('broken push', async () => {
      lc.gh.setHead(PR, sha(PR, 2));
      await write(BROKEN, sha(PR, 2));
      const r = await run('synchronize', sha(PR, 2));
      expect(r.code, text(r)).toBe(1);
      expect(lc.gh.comments(PR)).toHaveLength(1);
      expect(view(PR)).toMatchObject({ state: 'invalid', headSha: sha(PR, 2) });
      expect(view(PR).text.slice(view(PR).text.indexOf('**Errors**'))).toMatch(/cnt/);
    });
    await step('fix', async () => {
      lc.gh.setHead(PR, sha(PR, 3));
      await write(cube('matrix', 2), sha(PR, 3));
      const r = await run('synchronize', sha(PR, 3));
      expect(r.code, text(r)).toBe(0);
      expect(view(PR)).toMatchObject({ state: 'ready', headSha: sha(PR, 3) });
      expect(view(PR).text, text(r)).toContain(`: ${ADDED_ONLY}\n`);
    });
    await step('rerun', async () => {
      // An asleep staging environment: the rerun comes after it idled.
      if (cold) lc.em.clock.advance(lc.em.controls.behaviour.idleMs + 60_000);
      const r = await run('synchronize', sha(PR, 3));
      expect(r.code, text(r)).toBe(0);
      expect(lc.gh.comments(PR)).toHaveLength(1);
      expect(view(PR)).toMatchObject({ state: 'ready', headSha: sha(PR, 3) });
      if (!github) expect(output(r, 'uploaded')).toBe('0');
    });
    await step('merged', async () => {
      const mainCommits = d().branches.main!.commits;
      const merge = sha(PR, 9);
      lc.gh.closePull(PR, true);
      if (github) {
        // GitHub merges and pushes main; the platform deploys it (continuous deployment).
        const files = Object.fromEntries(Object.entries(d().branches.main!.head).map(([p, b64]) => [p, Buffer.from(b64, 'base64').toString('utf8')]));
        await control(lc.em, 'repository/push', { deploymentId: 1, branch: 'main', files: { ...files, [MODEL]: cube('matrix', 2) }, sha: merge });
      }
      // A tenant that deploys with the CLI rebuilds production only from an upload: the close makes it (deploy-on-merge).
      const r = await run('closed', sha(PR, 3), true, PR, { mergeCommitSha: merge, ...(cli ? { env: { DATAMODEL_CI_DEPLOY_ON_MERGE: 'true' } } : {}) });
      expect(r.code, text(r)).toBe(0);
      expect(lc.main()[MODEL]).toBe(sha1(cube('matrix', 2)));
      expect(view(PR).state).toBe('merged');
      // The proof after the merge holds on every tenant: a newer build, the same files and the same layer as validated.
      expect(output(r, 'production-proof'), text(r)).toBe('proven');
      expect(view(PR).text).toContain(`✅ **Production = the validated model** (commit \`${sha(PR, 3).slice(0, 7)}\`)`);
      // The merge's deploy upgraded production to its channel's newest patch (profile patch-upgrade-pending).
      // On the release channel (profile production-release-channel) the newest patch is 1.6.33.
      if (upgrading) expect(d().version).toBe(row.profiles.includes('production-release-channel') ? '1.6.33' : '1.7.20');
      if (github) {
        // Nothing merged twice: main moved once, by GitHub's push, and is built at the merge commit.
        expect(d().branches.main!.commits).toBe(mainCommits + 1);
        expect(d().branches.main!.lastHash).toBe(merge);
        // A tenant that reports no hash cannot show which commit production runs: the comment says so.
        const said = row.profiles.includes('no-hash')
          ? /Production is built; the platform does not say at which commit/
          : /Production is built at the merge commit/;
        expect(lc.gh.comments(PR).at(-1)!.body).toMatch(said);
        expect(d().branches[headRef]?.staging).toBe(false);
      } else {
        expect(d().branches[previewBranch]).toBeUndefined();
      }
    });
    await step('closed unmerged', async () => {
      // Another PR, closed without merging. On a repository-fed tenant its head is not in the repository
      // (a fork's): it is previewed by upload on its own branch, whose ref goes at cleanup.
      const other = 8;
      const otherRef = github ? 'fork-only-branch' : 'other';
      lc.gh.addPull({ number: other, headSha: sha(other, 1), headRef: otherRef });
      lc.checkout({ 'model/cubes/other.yml': cube('other', 1) });
      const opened = await run('opened', sha(other, 1), false, other, { headRef: otherRef });
      expect(opened.code, text(opened)).toBe(0);
      expect(d().branches[`preview-pr-${other}`]).toBeDefined();
      lc.gh.closePull(other, false);
      const closed = await run('closed', sha(other, 1), false, other, { headRef: otherRef });
      expect(closed.code, text(closed)).toBe(0);
      expect(view(other).state).toBe('closed');
      expect(d().branches[`preview-pr-${other}`]).toBeUndefined();
    });
    // The sweep of this repository leaves another repository's live previews (profile another-repository-previews).
    const swept = await lc.run(PR, 'closed', { command: 'cleanup-branch', env: { DATAMODEL_CI_MODE: 'sweep', DATAMODEL_CI_MIN_AGE: '0s' } });
    expect(swept.code, text(swept)).toBe(0);
    const others = d().otherPreviews ?? [];
    for (const name of others) expect(d().branches[name]?.staging, name).toBe(true);
    // What the platform wrote under the excluded folder is still in production (profile platform-written-files).
    for (const path of d().platformWritten ?? []) expect(d().branches.main!.head[path], path).toBeDefined();
    // Nothing left behind: no preview branch, no dev fork, no session; on a fed tenant no ref of ours.
    const left = Object.values(d().branches).filter((b) => (b.kind === 'dev' || b.name.startsWith('preview-')) && !others.includes(b.name));
    expect(left.map((b) => b.name)).toEqual([]);
    expect(d().devSessions).toEqual({});
    if (connected) expect(Object.keys(d().connected!.refs).filter((r) => r.startsWith('preview-') && !others.includes(r))).toEqual([]);
  } finally {
    await lc.close();
  }
}

/** Shards of the matrix: each test file runs every `count`-th row from `index`, so vitest's workers share the rows. */
export function tenantMatrixShard(index: number, count: number): void {
  const rows = ROWS.filter((_, i) => i % count === index);
  describe.concurrent(`the PR lifecycle on every tenant profile (shard ${index + 1} of ${count})`, () => {
    for (const row of rows) it(row.name, () => lifecycle(row), 180_000);
  });

  afterAll(() => {
    const width = Math.max(...rows.map((r) => r.name.length));
    const lines = [`${'tenant'.padEnd(width)} | ${STEPS.join(' | ')}`];
    for (const r of rows) lines.push(`${r.name.padEnd(width)} | ${STEPS.map((s) => (measured.get(r.name)?.[s] ?? 'not run').padEnd(s.length)).join(' | ')}`);
    process.stdout.write(`\n${lines.join('\n')}\n`);
  });
}
