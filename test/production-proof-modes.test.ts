/**
 * The proof after the merge in the other ways production is deployed (issue 37), through real `pr` runs
 * against the emulator and the GitHub stand-in: CLI deploy mode with `deploy-on-merge` (proven), and
 * without it (production was not rebuilt, so it does not serve the validated model: "differs", naming the
 * files and members, and the close fails); a deployment fed from a connected repository, where GitHub's
 * merge reaches the platform (proven), and where production's build of it fails (differs).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { control } from './support/emulator.js';
import { cube, startLifecycle, type Lifecycle, type Run } from './support/lifecycle.js';

const head = (pr: number) => `${pr}ad`.padEnd(40, '0');
const merge = (pr: number) => `${pr}fe`.padEnd(40, '0');
const text = (r: Run) => r.lines.join('\n');
const doc = (r: Run) => JSON.parse(r.lines.find((l) => l.startsWith('{"command"'))!) as { outputs: Record<string, string>; result?: Record<string, any> };

describe('CLI deploy mode (the platform wrote files of its own under an excluded folder)', () => {
  let lc: Lifecycle;
  const exclude = { DATAMODEL_CI_EXCLUDE: 'model/generated/**' };
  beforeAll(async () => {
    lc = await startLifecycle({ emulator: { profiles: ['platform-written-files'] } });
    lc.em.state.deployments[0]!.settings.deployMode = 'cli';
  });
  afterAll(() => lc.close());

  async function openAndClose(pr: number, env: NodeJS.ProcessEnv) {
    const name = `cli${pr}`;
    lc.gh.addPull({ number: pr, headSha: head(pr), headRef: `cli-${pr}` });
    lc.checkout({ [`model/cubes/${name}.yml`]: cube(name, 1) });
    const opened = await lc.run(pr, 'opened', { headSha: head(pr), env: exclude });
    expect(opened.code, text(opened)).toBe(0);
    lc.gh.closePull(pr, true);
    return lc.run(pr, 'closed', { headSha: head(pr), merged: true, mergeCommitSha: merge(pr), argv: ['--json'], env: { ...exclude, ...env } });
  }

  it('with deploy-on-merge: the merged model is uploaded to production, which is proven to serve it', async () => {
    const r = await openAndClose(11, { DATAMODEL_CI_DEPLOY_ON_MERGE: 'true' });
    expect(r.code, text(r)).toBe(0);
    expect(doc(r).result!.proof).toMatchObject({ status: 'proven', commit: head(11), files: [], members: [] });
  }, 60_000);

  it('without it production is not rebuilt and does not serve the validated model: "differs", and the close fails saying how to fix it (the excluded files no difference)', async () => {
    const r = await openAndClose(12, {});
    expect(r.code, text(r)).toBe(1);
    const proof = doc(r).result!.proof;
    expect(proof).toMatchObject({
      status: 'differs',
      files: [{ path: 'model/cubes/cli12.yml', change: 'removed' }],
      members: [
        { member: 'cli12.count', change: 'removed' },
        { member: 'cli12.v1', change: 'removed' },
      ],
    });
    expect(proof.reason).toMatch(/production was not rebuilt: .*deployMode: cli.*set deploy-on-merge: true/);
    expect(lc.gh.comments(12).at(-1)!.body).toMatch(/❌ \*\*Production differs from the validated model\*\*/);
  }, 60_000);
});

describe('a deployment fed from a connected repository', () => {
  let lc: Lifecycle;
  beforeAll(async () => {
    lc = await startLifecycle({ emulator: { profiles: ['github-connected'] } });
  });
  afterAll(() => lc.close());

  /** What GitHub holds at main, as texts. */
  const main = () =>
    Object.fromEntries(Object.entries(lc.em.state.deployments[0]!.branches.main!.head).map(([p, b64]) => [p, Buffer.from(b64, 'base64').toString('utf8')]));

  async function openAndMerge(pr: number, beforeMerge?: () => Promise<void>) {
    const ref = `feature/fed-${pr}`;
    const file = `model/cubes/fed${pr}.yml`;
    const model = cube(`fed${pr}`, 1);
    lc.gh.addPull({ number: pr, headSha: head(pr), headRef: ref });
    lc.checkout({ [file]: model });
    await control(lc.em, 'repository/push', { deploymentId: 1, branch: ref, files: { ...main(), [file]: model }, sha: head(pr) });
    const opened = await lc.run(pr, 'opened', { headSha: head(pr), headRef: ref });
    expect(opened.code, text(opened)).toBe(0);
    await beforeMerge?.();
    // GitHub merges and pushes main; the platform deploys it.
    lc.gh.closePull(pr, true);
    await control(lc.em, 'repository/push', { deploymentId: 1, branch: 'main', files: { ...main(), [file]: model }, sha: merge(pr) });
    return lc.run(pr, 'closed', { headSha: head(pr), headRef: ref, merged: true, mergeCommitSha: merge(pr), argv: ['--json'] });
  }

  it("GitHub's merge reaches production: proven against the head branch's record", async () => {
    const r = await openAndMerge(21);
    expect(r.code, text(r)).toBe(0);
    expect(doc(r).result!.proof).toMatchObject({ status: 'proven', commit: head(21), files: [], members: [] });
    expect(lc.gh.comments(21).at(-1)!.body).toMatch(/Production is built at the merge commit .*\n\n✅ \*\*Production = the validated model\*\*/);
  }, 60_000);

  it("production's build of GitHub's merge fails: differs, naming the members it still lacks", async () => {
    const r = await openAndMerge(22, () => control(lc.em, 'builds/fail-next', { deploymentId: 1, branchName: 'main' }));
    expect(r.code, text(r)).toBe(1);
    expect(doc(r).result!.proof).toMatchObject({
      status: 'differs',
      files: [],
      members: [
        { member: 'fed22.count', change: 'removed' },
        { member: 'fed22.v1', change: 'removed' },
      ],
    });
  }, 60_000);
});
