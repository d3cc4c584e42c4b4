/**
 * Overlapping runs of one PR: a push arrives while the previous run is in flight. Whatever the
 * interleaving, the comment and the shared branch end at the newest head SHA.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runActionCommand } from '../src/commands/index.js';
import type { Io } from '../src/io.js';
import { parseComment } from '../src/pr/comment/ledger.js';
import { DEMO_MODEL, startGitHubStandin, type GitHubStandin } from '../packages/emulator/src/index.js';
import { scanModel } from '../src/model/local-model.js';
import { emulatorFixture, type EmulatorFixture } from './support/emulator.js';
import { pullRequestEvent } from './support/payloads.js';

let fx: EmulatorFixture;
let gh: GitHubStandin;

beforeAll(async () => {
  fx = await emulatorFixture({ latencyMs: 15 });
  gh = await startGitHubStandin();
});
afterAll(async () => {
  await fx.close();
  await gh.close();
});

function modelWith(extra: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'dmci-overlap-'));
  for (const [p, c] of Object.entries({ ...DEMO_MODEL, ...extra })) {
    mkdirSync(dirname(join(dir, p)), { recursive: true });
    writeFileSync(join(dir, p), c);
  }
  return dir;
}

function run(pr: number, headSha: string, modelDir: string, action = 'synchronize') {
  const lines: string[] = [];
  const env: NodeJS.ProcessEnv = {
    DATAMODEL_CI_API_URL: fx.em.baseUrl,
    DATAMODEL_CI_API_KEY: fx.em.credentials.admin,
    DATAMODEL_CI_CA_CERT: `${fx.em.ca}\n${gh.ca}`,
    DATAMODEL_CI_DEPLOYMENT_ID: '1',
    DATAMODEL_CI_GITHUB_TOKEN: 'ghs_overlap_token_0123',
    DATAMODEL_CI_MODEL_DIR: modelDir,
    GITHUB_REPOSITORY: gh.repository,
    GITHUB_API_URL: gh.url,
    GITHUB_EVENT_NAME: 'pull_request',
    GITHUB_EVENT_PATH: (() => {
      const f = join(mkdtempSync(join(tmpdir(), 'dmci-ev-')), 'event.json');
      writeFileSync(f, JSON.stringify(pullRequestEvent(action, { number: pr, headSha })));
      return f;
    })(),
  };
  const io: Io = { out: (l) => lines.push(l), err: (l) => lines.push(l), env };
  return runActionCommand('pr', [], io).then((code) => ({ code, lines }));
}

const sha = (pr: number, n: number) => `${pr.toString(16)}${n}`.padEnd(40, 'c');

describe('overlapping runs of one PR', () => {
  it.each([0, 40, 120, 250, 500])('the newer push wins when it arrives %i ms into the older run', async (delay) => {
    const pr = 100 + delay;
    gh.addPull({ number: pr, headSha: sha(pr, 1), headRef: `f${pr}` });
    const older = modelWith({ 'model/cubes/pr.yml': 'cubes:\n  - name: pr_old\n    sql_table: t\n' });
    const newer = modelWith({ 'model/cubes/pr.yml': 'cubes:\n  - name: pr_new\n    sql_table: t\n', 'model/cubes/more.yml': 'cubes: []\n' });
    const a = run(pr, sha(pr, 1), older, 'opened');
    await new Promise((r) => setTimeout(r, delay));
    gh.setHead(pr, sha(pr, 2));
    const b = run(pr, sha(pr, 2), newer);
    const [ra, rb] = await Promise.all([a, b]);
    expect(rb.code, rb.lines.join('\n')).toBe(0);
    expect([0, 1]).toContain(ra.code);
    const comments = gh.comments(pr);
    expect(comments).toHaveLength(1);
    expect(parseComment(comments[0]!.body).ledger?.headSha).toBe(sha(pr, 2));
    const shared = await fx.admin.dataModel.fileHashes({ deploymentId: 1, query: { branchName: `preview-pr-${pr}` } });
    const local = Object.fromEntries((await scanModel(newer)).map((f) => [f.path, { hash: f.sha1 }]));
    expect(shared).toEqual(local);
    // No dev branch is left behind once the newer run is done.
    const devs = Object.values(fx.em.state.deployments[0]!.branches).filter((x) => x.kind === 'dev' && x.parent === `preview-pr-${pr}`);
    expect(devs).toEqual([]);
  });
});
