/**
 * The Cube version skew end to end on the emulator (real HTTPS sockets): production's and staging's
 * versions read from the deployment's versions list, its hold from its settings; production pinned to
 * the release channel's older Cube with the platform's own PUT, as a tenant would; a key that older Cube
 * refuses (member masking, from the shared access model) reported with its file and line, failing
 * `datamodel-ci diff` by default; without a hold, checked against the channel's newest patch the merge's
 * deploy moves production to; a version inside a hole of the key table, or a hold the settings do not
 * say, a warning ("not known"), never a failure; equal versions saying nothing; a version the list does
 * not mark said, never guessed.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_MODEL, startGitHubStandin } from '../packages/emulator/src/index.js';
import { runActionCommand } from '../src/commands/index.js';
import { runCli } from '../src/main.js';
import { firstAccepting } from '../src/model/cube-keys.js';
import { versionsOfList } from '../src/operations/cube-versions.js';
import { ACCESS_MODEL } from './support/access-model.js';
import { pullRequestEvent, writeEvent } from './support/payloads.js';
import { cliIo, control, emulatorFixture, uploadTree, type EmulatorFixture } from './support/emulator.js';

let fx: EmulatorFixture;
const SLOW = 120_000;
const masking = firstAccepting('cube.measures.*.mask') as string;

/** A pull request's preview: its branch from main, the tree uploaded, its staging environment on; and the tree on disk. */
async function stage(branch: string, tree: Record<string, string>): Promise<string> {
  await fx.admin.branches.create({ deploymentId: 1, body: { name: branch, from: 'main' } });
  await uploadTree(fx.admin, 1, branch, tree);
  await fx.admin.branches.setStagingEnvironment({ deploymentId: 1, body: { enabled: true, branchName: branch } });
  const dir = mkdtempSync(join(tmpdir(), 'dmci-skew-'));
  for (const [path, text] of Object.entries(tree)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

/** `datamodel-ci diff --json` of a staged branch: its exit code, its document's `versions`, and what it printed. */
async function diff(branch: string, dir: string, env: NodeJS.ProcessEnv = {}) {
  const t = cliIo(fx.em, env);
  const code = await runCli(['diff', '--deployment-id', '1', '--branch', branch, '--model-dir', dir, '--json'], t);
  const doc = JSON.parse(t.stdout.join('\n'));
  return { code, versions: doc.result?.versions, doc, stderr: t.stderr.join('\n') };
}

let masked: string;
let plain: string;
beforeAll(async () => {
  fx = await emulatorFixture({ continueWaitPolls: 0 });
  masked = await stage('masked', ACCESS_MODEL);
  plain = await stage('retitled', { ...DEMO_MODEL });
}, SLOW);
afterAll(() => fx.close());

/** Production on the release channel at `version`, held or not as the body says (the emulator holds a non-latest version unless told). */
const releaseAt = (version: string, hold?: boolean) =>
  fx.admin.deployments.update({
    deploymentId: 1,
    body: { releaseChannel: 'release', releaseChannelVersion: version, ...(hold === undefined ? {} : { releaseChannelVersionHold: hold }) },
  });
/** Back to the latest channel's head, no hold. */
const backToLatest = () => fx.admin.deployments.update({ deploymentId: 1, body: { releaseChannel: 'latest', releaseChannelVersionHold: false } });

describe('the versions list', () => {
  it('production is the current entry, staging the head of the latest channel; what it does not mark stays unknown', () => {
    const entry = (version: string, releaseChannel: string, isLatestInChannel: boolean, isCurrent: boolean) => ({
      version,
      releaseChannelVersion: `cubejs/cube:v${version}`,
      releaseChannel,
      isLatestInChannel,
      isCurrent,
    });
    expect(versionsOfList([entry('1.7.20', 'latest', true, false), entry('1.6.30', 'release', true, true)])).toEqual({
      production: '1.6.30',
      staging: '1.7.20',
    });
    expect(versionsOfList([{ ...entry('', 'latest', true, true), releaseChannelVersion: 'cubejs/cube:v1.7.20' }])).toEqual({
      production: '1.7.20',
      staging: '1.7.20',
    });
    // Production's newest patch as its channel lists it; none listed while the channel's head is another minor: that head said.
    expect(versionsOfList([entry('1.6.33', 'release', true, false), entry('1.6.10', 'release', false, true), entry('1.7.20', 'latest', true, false)])).toEqual({
      production: '1.6.10',
      newestPatch: '1.6.33',
      staging: '1.7.20',
    });
    expect(versionsOfList([entry('1.7.20', 'latest', true, false), entry('1.6.10', 'latest', false, true)])).toEqual({
      production: '1.6.10',
      staging: '1.7.20',
      channelHead: '1.7.20',
    });
    expect(versionsOfList([entry('1.6.30', 'release', true, false)]).problem).toBe(
      'the versions list marks no version current and names no head of the latest channel',
    );
  });
});

describe('datamodel-ci diff on the emulator', () => {
  it(
    'production on the same Cube as staging (the latest channel): the versions said equal, nothing refused, no Cost',
    async () => {
      const r = await diff('masked', masked);
      expect(r.code, r.stderr).toBe(0);
      expect(r.versions).toEqual({ production: '1.7.20', staging: '1.7.20', upgrades: 'automatic', checkedAgainst: ['1.7.20'], refused: [], notKnown: [] });
      expect(r.doc.result.versions.refused).toEqual([]);
      expect(r.stderr).not.toContain('Cube versions');
    },
    SLOW,
  );

  it(
    "production held on the release channel's older Cube: each masking key named with its file and line, the step failed; allowed with fail-on-version-skew false",
    async () => {
      await releaseAt('1.6.10');
      expect((await fx.admin.deployments.settings({ deploymentId: 1 })).releaseChannelVersionHold).toBe(true);
      try {
        const r = await diff('masked', masked);
        expect(r.code).toBe(1);
        expect(r.versions).toMatchObject({ production: '1.6.10', staging: '1.7.20', upgrades: 'held', newestPatch: '1.6.33', checkedAgainst: ['1.6.10'] });
        expect(r.versions.afterMerge).toBeUndefined();
        const refused = r.versions.refused as { key: string; file: string; line: number; version: string }[];
        const orders = ACCESS_MODEL['model/cubes/orders.yml']!.split('\n');
        const maskLine = orders.findIndex((l) => l.includes('mask: -1')) + 1;
        expect(refused).toContainEqual({ key: 'orders.measures.total_amount.mask', file: 'model/cubes/orders.yml', line: maskLine, version: masking });
        expect(refused.map((k) => k.key)).toContain('customers.dimensions.name.mask');
        expect(refused.every((k) => k.key.endsWith('mask') || k.key.endsWith('member_masking'))).toBe(true);
        expect(r.stderr).toContain(`model/cubes/orders.yml:${maskLine}: orders.measures.total_amount.mask needs Cube ${masking}; production runs 1.6.10`);
        expect(r.doc.errors.map((e: { message: string }) => e.message).join('\n')).toContain('fail-on-version-skew is true');

        const allowed = await diff('masked', masked, { DATAMODEL_CI_FAIL_ON_VERSION_SKEW: 'false' });
        expect(allowed.code, allowed.stderr).toBe(0);
        expect(allowed.versions.refused).toEqual(refused);
      } finally {
        await backToLatest();
      }
    },
    SLOW,
  );

  it(
    "a model the older Cube accepts: the two versions said, nothing refused; the impact action's output counts the refused keys",
    async () => {
      await releaseAt('1.6.10');
      try {
        const r = await diff('retitled', plain);
        expect(r.code, r.stderr).toBe(0);
        expect(r.versions).toMatchObject({ production: '1.6.10', staging: '1.7.20', checkedAgainst: ['1.6.10'], refused: [], notKnown: [] });
        expect(r.stderr).toContain('Cube versions: production runs 1.6.10, staging 1.7.20');

        const lines: string[] = [];
        const env = { ...cliIo(fx.em).env, DATAMODEL_CI_DEPLOYMENT_ID: '1', DATAMODEL_CI_BRANCH: 'masked', DATAMODEL_CI_MODEL_DIR: masked };
        const code = await runActionCommand('impact', [], { out: (l) => lines.push(l), err: (l) => lines.push(l), env });
        expect(code, lines.join('\n')).toBe(1);
        expect(lines.join('\n')).toMatch(/version-skew-count=[1-9]/);
      } finally {
        await backToLatest();
      }
    },
    SLOW,
  );

  it(
    'a versions list that marks no version current: production unknown is a notice, the model unchecked, the step passes',
    async () => {
      const d = fx.em.state.deployments.find((x) => x.id === 1)!;
      const was = d.version;
      d.version = '1.5.0';
      try {
        const r = await diff('masked', masked);
        expect(r.code, r.stderr).toBe(0);
        expect(r.versions).toMatchObject({ production: null, staging: '1.7.20', refused: [] });
        expect(r.versions.unchecked).toContain('marks no version current');
        expect(r.stderr).toContain("production's Cube version is unknown");
      } finally {
        d.version = was;
      }
    },
    SLOW,
  );

  it(
    "the pr lifecycle: the comment's Cost section names the two versions and the refused keys, the check fails; its outputs count them",
    async () => {
      await releaseAt('1.6.10');
      const gh = await startGitHubStandin();
      try {
        gh.addPull({ number: 32, headSha: 'b'.repeat(40), headRef: 'masking' });
        const lines: string[] = [];
        const env: NodeJS.ProcessEnv = {
          ...cliIo(fx.em).env,
          DATAMODEL_CI_CA_CERT: `${fx.em.ca}\n${gh.ca}`,
          DATAMODEL_CI_DEPLOYMENT_ID: '1',
          DATAMODEL_CI_GITHUB_TOKEN: 'ghs_version_skew_token_0123',
          DATAMODEL_CI_MODEL_DIR: masked,
          GITHUB_REPOSITORY: gh.repository,
          GITHUB_API_URL: gh.url,
          GITHUB_EVENT_NAME: 'pull_request',
          GITHUB_EVENT_PATH: writeEvent(pullRequestEvent('opened', { number: 32, headSha: 'b'.repeat(40) })),
        };
        const code = await runActionCommand('pr', [], { out: (l) => lines.push(l), err: (l) => lines.push(l), env });
        expect(code, lines.join('\n')).toBe(1);
        expect(lines.join('\n')).toMatch(/version-skew-count=[1-9]/);
        expect(lines.join('\n')).toContain('fail-on-version-skew is true');
        const body = gh.comments(32).at(-1)!.body;
        expect(body).toContain('**Cost**');
        expect(body).toContain('Production runs Cube `1.6.10`, staging `1.7.20`');
        expect(body).toContain('`orders.measures.total_amount.mask`');
      } finally {
        await gh.close();
        await backToLatest();
      }
    },
    SLOW,
  );
  it(
    "no hold: production is checked as the channel's newest patch the merge's deploy moves it to; the PR that key needs passes (it fails held)",
    async () => {
      await releaseAt('1.6.10', false);
      try {
        expect((await fx.admin.deployments.settings({ deploymentId: 1 })).releaseChannelVersionHold).toBe(false);
        const r = await diff('masked', masked);
        expect(r.code, r.stderr).toBe(0);
        expect(r.versions).toMatchObject({
          production: '1.6.10',
          afterMerge: '1.6.33',
          upgrades: 'automatic',
          checkedAgainst: ['1.6.33'],
          refused: [],
          notKnown: [],
        });
        expect(r.stderr).toContain("production will run 1.6.33 after the merge's deploy (automatic patch upgrades)");
        // The same PR with the version held fails: the hold is what decides.
        await releaseAt('1.6.10', true);
        const held = await diff('masked', masked);
        expect(held.code).toBe(1);
        expect(held.versions.refused.length).toBeGreaterThan(0);
      } finally {
        await backToLatest();
      }
    },
    SLOW,
  );

  it(
    'a version inside a hole of the key table (1.6.30, between 1.6.10 and 1.6.33): the masking keys are a warning "not known" naming the covered versions, the step passes',
    async () => {
      await releaseAt('1.6.30');
      try {
        const r = await diff('masked', masked);
        expect(r.code, r.stderr).toBe(0);
        expect(r.versions).toMatchObject({ production: '1.6.30', upgrades: 'held', refused: [] });
        expect(r.versions.notKnown.map((k: { key: string }) => k.key)).toContain('orders.measures.total_amount.mask');
        expect(r.versions.notKnownWhy).toContain('the nearest covered versions are 1.6.10 and 1.6.33');
        expect(r.stderr).toContain('orders.measures.total_amount.mask is not known to be accepted by production');
        expect(r.doc.errors ?? []).toEqual([]);
      } finally {
        await backToLatest();
      }
    },
    SLOW,
  );

  for (const profile of ['version-hold-null', 'version-hold-unreported'] as const)
    it(
      `profile ${profile}: the settings do not say whether production holds 1.6.10, so a key only one of 1.6.10 and 1.6.33 accepts is not known, never refused`,
      async () => {
        await control(fx.em, 'profiles', { profiles: [profile] });
        await releaseAt('1.6.10', false);
        try {
          const settings = await fx.admin.deployments.settings({ deploymentId: 1 });
          expect('releaseChannelVersionHold' in settings ? settings.releaseChannelVersionHold : 'absent').toBe(
            profile === 'version-hold-null' ? null : 'absent',
          );
          const r = await diff('masked', masked);
          expect(r.code, r.stderr).toBe(0);
          expect(r.versions).toMatchObject({ production: '1.6.10', upgrades: 'not-said', checkedAgainst: ['1.6.10', '1.6.33'], refused: [] });
          expect(r.versions.notKnown.length).toBeGreaterThan(0);
          expect(r.versions.notKnownWhy).toContain('do not say whether production holds its version');
        } finally {
          await control(fx.em, 'profiles', { profiles: [] });
          await backToLatest();
        }
      },
      SLOW,
    );
});
