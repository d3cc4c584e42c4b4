/**
 * The validation record and the proof after the merge (issue 37), through real `pr` runs against the
 * emulator over HTTPS and the GitHub stand-in: a push that validates leaves its record (lean in the
 * comment's ledger, whole in the change-set file and `--json`); a merged close proves production (a build
 * newer than the merge, equal files, an equal layer digest) and leaves the record as a GitHub deployment of
 * the merge commit; production differing during the close (its build after the merge failed, an upload to
 * the deploy branch racing the merge) fails the close, naming files and members, and nothing is merged or
 * uploaded again; a build slower than the bound is "not proven"; line endings and files the walk never
 * reads are no difference.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeLedger, parseComment } from '../src/pr/comment/ledger.js';
import { createGitHubApi } from '../src/github/octokit.js';
import { productionEnvironment, readProductionRecord } from '../src/pr/production-record.js';
import { control } from './support/emulator.js';
import { cube, hashes, startLifecycle, type Lifecycle, type Run } from './support/lifecycle.js';

let lc: Lifecycle;
beforeAll(async () => {
  lc = await startLifecycle();
});
afterAll(() => lc.close());

const head = (pr: number) => `${pr}ad`.padEnd(40, '0');
const merge = (pr: number) => `${pr}fe`.padEnd(40, '0');
const text = (r: Run) => r.lines.join('\n');
/** The `--json` document a run printed. */
const doc = (r: Run) => JSON.parse(r.lines.find((l) => l.startsWith('{"command"'))!) as { outputs: Record<string, string>; result?: Record<string, any> };
const ledger = (pr: number) => parseComment(lc.gh.comments(pr).at(-1)!.body).ledger;
const body = (pr: number) => lc.gh.comments(pr).at(-1)!.body;
const d = () => lc.em.state.deployments[0]!;

/** Open PR `pr` with cube `name` (its checkout written) and preview it; returns the `--json` document. */
async function open(pr: number, name: string) {
  lc.gh.addPull({ number: pr, headSha: head(pr), headRef: `feature-${pr}` });
  lc.checkout({ [`model/cubes/${name}.yml`]: cube(name, 1) });
  const r = await lc.run(pr, 'opened', { headSha: head(pr), argv: ['--json'] });
  expect(r.code, text(r)).toBe(0);
  return doc(r);
}

/** Close PR `pr` merged (its merge commit `merge(pr)`); `env` adds inputs. */
async function closeMerged(pr: number, env: NodeJS.ProcessEnv = {}) {
  lc.gh.closePull(pr, true);
  const r = await lc.run(pr, 'closed', { headSha: head(pr), merged: true, mergeCommitSha: merge(pr), argv: ['--json'], env });
  return { r, json: doc(r) };
}

describe('the validation record', () => {
  it('a push that validates leaves its record: lean in the ledger, whole in the change-set file and --json', async () => {
    const opened = await open(1, 'one');
    const checkout = hashes(Object.fromEntries(Object.entries(d().branches['preview-pr-1']!.head)));
    const record = opened.result!.record;
    expect(record).toMatchObject({ version: 1, deploymentId: 1, branch: 'preview-pr-1', commit: head(1), files: checkout });
    expect(record.build.jobId).toMatch(/^\d+$/);
    expect(record.layer).toMatchObject({ digest: expect.stringMatching(/^[0-9a-f]{40}$/), members: expect.any(Number) });
    expect(record.layer.members).toBeGreaterThan(3);
    // The change-set file holds the same record, whole.
    const file = JSON.parse(readFileSync(opened.outputs['change-set-file']!, 'utf8'));
    expect(file.record).toEqual(record);
    // The ledger keeps it without the per-file hashes: its size does not grow with the model.
    const kept = ledger(1)!.record!;
    expect(kept).not.toHaveProperty('files');
    const { files, ...lean } = record;
    expect(kept).toEqual({ ...lean, fileCount: Object.keys(files).length });
    expect(JSON.stringify(kept).length).toBeLessThan(700);
  }, 60_000);
});

describe('the proof after the merge', () => {
  it('a normal merge: production = the validated model, said in the output, --json, the comment, and left as a GitHub deployment of the merge commit', async () => {
    const { r, json } = await closeMerged(1);
    expect(r.code, text(r)).toBe(0);
    expect(json.outputs['production-proof']).toBe('proven');
    expect(json.result!.proof).toEqual({
      status: 'proven',
      commit: head(1),
      files: [],
      members: [],
      reason: expect.stringContaining('a build newer than the merge'),
    });
    expect(text(r)).toMatch(/production = the validated model \(commit 1ad0000\)/);
    expect(body(1)).toMatch(/✅ \*\*Production = the validated model\*\* \(commit `1ad0000`\)/);
    // The record the proof compared with, written where a later job reads it.
    const api = createGitHubApi({ token: 'ghs_read_token_0123456789', repository: lc.gh.repository, apiUrl: lc.gh.url, ca: lc.gh.ca });
    const kept = await readProductionRecord(api, 1);
    expect(kept).toMatchObject({ ref: merge(1), proof: { status: 'proven' }, record: { commit: head(1), files: json.result!.record.files } });
    expect(
      lc.gh
        .deployments()
        .filter((x) => x.environment === productionEnvironment(1))
        .at(-1)
        ?.statuses.at(-1)?.state,
    ).toBe('success');
  }, 60_000);

  it('a rerun of a proven close proves again from the mark the first run kept (the branch gone, nothing merged again)', async () => {
    const before = d().branches.main!.commits;
    const r = await lc.run(1, 'closed', { headSha: head(1), merged: true, mergeCommitSha: merge(1) });
    expect(r.code, text(r)).toBe(0);
    expect(r.lines).toContain('production-proof=proven');
    expect(d().branches.main!.commits).toBe(before);
  }, 60_000);

  it('a production build that fails after the merge (the old model still serving): the close fails, naming the members production lacks; nothing is merged again', async () => {
    await open(2, 'two');
    await control(lc.em, 'builds/fail-next', { deploymentId: 1, branchName: 'main', errorText: 'Build failed: warehouse unreachable' });
    const commits = d().branches.main!.commits;
    const { r, json } = await closeMerged(2);
    expect(r.code, text(r)).toBe(1);
    expect(json.outputs['production-proof']).toBe('differs');
    expect(json.result!.proof).toMatchObject({ status: 'differs', commit: head(2), files: [], reason: expect.stringContaining('warehouse unreachable') });
    expect(json.result!.proof.members).toEqual(
      expect.arrayContaining([
        { member: 'two.count', change: 'removed' },
        { member: 'two.v1', change: 'removed' },
      ]),
    );
    expect(body(2)).toMatch(/❌ \*\*Production differs from the validated model\*\*/);
    expect(body(2)).toMatch(/`two\.count` removed/);
    // One merge, no upload to "fix" it; the preview is still cleaned up.
    expect(d().branches.main!.commits).toBe(commits + 1);
    expect(d().branches['preview-pr-2']).toBeUndefined();
    expect(
      lc.gh
        .deployments()
        .filter((x) => x.environment === productionEnvironment(1))
        .at(-1)
        ?.statuses.at(-1)?.state,
    ).toBe('failure');
  }, 60_000);

  it('an upload to the deploy branch racing the merge: the close fails, naming the file and the members production has beyond the validated model', async () => {
    await open(3, 'three');
    await control(lc.em, 'production/out-of-band-upload', { deploymentId: 1 });
    const { r, json } = await closeMerged(3);
    expect(r.code, text(r)).toBe(1);
    expect(json.result!.proof).toMatchObject({
      status: 'differs',
      files: [{ path: 'model/cubes/drift_out_of_band.yml', change: 'added' }],
      members: [{ member: 'drift_out_of_band.count', change: 'added' }],
    });
    expect(body(3)).toMatch(/`model\/cubes\/drift_out_of_band\.yml` added/);
  }, 60_000);

  it('controls: CRLF line endings and files the walk never reads on the platform are no difference (proven)', async () => {
    await open(4, 'four');
    await control(lc.em, 'production/crlf', { deploymentId: 1 });
    await control(lc.em, 'production/unwalked-files', { deploymentId: 1 });
    const { r, json } = await closeMerged(4);
    expect(r.code, text(r)).toBe(0);
    expect(json.result!.proof).toMatchObject({ status: 'proven', files: [], members: [] });
  }, 60_000);

  it('the merge-to-default action proves production too (output production-proof, --json result.proof)', async () => {
    await open(6, 'six');
    lc.gh.closePull(6, true);
    const keep = { DATAMODEL_CI_KEEP_BRANCH: 'true' };
    const r = await lc.run(6, 'closed', { command: 'merge-to-default', headSha: head(6), merged: true, mergeCommitSha: merge(6), argv: ['--json'], env: keep });
    expect(r.code, text(r)).toBe(0);
    const json = doc(r);
    expect(json.outputs).toMatchObject({ merged: 'true', 'production-proof': 'proven' });
    expect(json.result!.proof).toMatchObject({ status: 'proven', commit: head(6), files: [], members: [] });
  }, 60_000);

  it('a merge that changes nothing builds nothing: "not proven" at once, saying so (no wait for a build that never comes)', async () => {
    expect(d().branches['preview-pr-6']).toBeDefined();
    // The branch merged above, merged again: the deploy branch holds it already.
    const r = await lc.run(6, 'closed', { command: 'merge-to-default', headSha: head(6), merged: true, mergeCommitSha: merge(6), argv: ['--json'] });
    expect(r.code, text(r)).toBe(0);
    expect(doc(r).result!.proof).toMatchObject({ status: 'not-proven', reason: expect.stringContaining('the merge changed nothing on main') });
  }, 60_000);

  it("a record whose layer was read from an older build (a staging still serving it) is 'not proven', never 'differs', when production serves the files' members", async () => {
    await open(8, 'eight');
    // The record as a stale staging would have left it: the preview's layer digest of another model.
    const c = lc.gh.comments(8).at(-1)!;
    const l = parseComment(c.body).ledger!;
    const stale = { ...l, record: { ...l.record!, layer: { ...l.record!.layer!, digest: '0'.repeat(64) } } };
    const api = createGitHubApi({ token: 'ghs_edit_token_0123456789', repository: lc.gh.repository, apiUrl: lc.gh.url, ca: lc.gh.ca });
    await api.updateComment(c.id, c.body.replace(/^(<!-- [^\n]*:ledger )[A-Za-z0-9+/=]*( -->)$/m, `$1${encodeLedger(stale)}$2`));
    expect(ledger(8)!.record!.layer!.digest).toBe('0'.repeat(64));
    const { r, json } = await closeMerged(8);
    expect(r.code, text(r)).toBe(0);
    expect(json.result!.proof).toMatchObject({
      status: 'not-proven',
      files: [],
      members: [],
      reason: expect.stringContaining("it serves exactly the members the merge commit's files declare"),
    });
  }, 60_000);

  it('control: a production build slower than proof-wait is "not proven" (never "differs"), and the close succeeds', async () => {
    await open(5, 'five');
    await control(lc.em, 'builds/slow-next', { deploymentId: 1, ms: 3_600_000 });
    const { r, json } = await closeMerged(5, { DATAMODEL_CI_PROOF_WAIT: '2s' });
    // The slow build may end (an emulated hour later) for the next test.
    lc.em.clock.advance(3_600_000);
    expect(r.code, text(r)).toBe(0);
    expect(json.outputs['production-proof']).toBe('not-proven');
    expect(json.result!.proof).toMatchObject({
      status: 'not-proven',
      files: [],
      members: [],
      reason: expect.stringMatching(/^no build of main newer than the merge within 2 s/),
    });
    expect(body(5)).toMatch(/⚠️ \*\*Production is not proven\*\* to be the validated model/);
  }, 60_000);
});

/**
 * Two pull requests merged one after the other, their closes run in the other order: GitHub merges A then
 * B, B's close runs first and puts A and B on production, then A's close proves production against A's
 * merge commit. Production holds B's file too: that is B's merge, not drift. A's merge adds nothing main
 * lacks, so no build follows it: A's close says "not proven" and why, and does not fail.
 */
describe("the proof when a later pull request's close ran first", () => {
  it('production holding the later merge is "not proven", with why, and the close succeeds', async () => {
    const a = { 'model/cubes/a81.yml': cube('a81', 1) };
    const b = { 'model/cubes/b82.yml': cube('b82', 1) };
    await open(81, 'a81');
    await open(82, 'b82');
    // GitHub merges A, then B on top of it: the base branch's head is B's merge commit.
    lc.gh.addCommit({ sha: merge(81), branch: 'master', files: Object.keys(a), message: 'Merge pull request #81' });
    lc.gh.addCommit({ sha: merge(82), branch: 'master', files: Object.keys(b), message: 'Merge pull request #82' });
    // B's close runs first: its merge commit holds A and B.
    lc.checkout({ ...a, ...b });
    const closedB = await closeMerged(82);
    expect(closedB.r.code, text(closedB.r)).toBe(0);
    // A's close: its checkout (the deploy branch as it is now, and A); production holds B's file as well.
    lc.checkout(a);
    const { r, json } = await closeMerged(81);
    expect(r.code, text(r)).toBe(0);
    // The merge of A's branch adds nothing main lacks, so no build follows it: not proven, and B's file is no drift.
    expect(json.result!.proof).toMatchObject({ status: 'not-proven', files: [], members: [] });
    expect(json.result!.proof.reason).toMatch(/the merge changed nothing on main/);
    expect(text(r)).not.toMatch(/^error/m);
    expect(json.outputs['production-proof']).toBe('not-proven');
  }, 120_000);
});
