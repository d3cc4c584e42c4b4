/**
 * The gate sees the whole layer (issue 36), end to end on the emulator (Cube's own CompilerApi applies the
 * policies to `/meta`, over real HTTPS sockets, tokens minted through the platform API): a model whose every
 * view is granted to groups shows the empty security context nothing, so each side is read again with a
 * token carrying every group its policies name. A view member removed or renamed is then breaking, with the
 * report it hits, and `fail-on-breaking` fails; a model without policies mints nothing more; where the reads
 * show less than the files declare public (a condition on a user attribute, a tenant whose minted tokens
 * drop the groups) the review says so and the gate does not pass; a tenant reading top-level groups sees
 * the whole layer.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_MODEL, startGitHubStandin } from '../packages/emulator/src/index.js';
import { runActionCommand } from '../src/commands/index.js';
import type { OpContext } from '../src/operations/context.js';
import { analyseImpact, impactSummaryLine, type ImpactResult } from '../src/operations/impact.js';
import { runCli } from '../src/main.js';
import { MemoryReporter } from '../src/report/reporter.js';
import { GRADE_RENAMED, NETWORK_GROUPS, NETWORK_MODEL, NETWORK_REPORTS, PII_CONDITIONED, TRUANTS_REMOVED } from './support/network-model.js';
import { pullRequestEvent, writeEvent } from './support/payloads.js';
import { cliIo, control, emulatorFixture, uploadTree, type EmulatorFixture } from './support/emulator.js';

let fx: EmulatorFixture;
const SLOW = 120_000;

const ctx = (): OpContext & { reporter: MemoryReporter } => ({
  client: fx.admin,
  deploymentId: 1,
  reporter: new MemoryReporter(),
  dryRun: false,
  ca: fx.em.ca,
});
const modelFiles = (tree: Record<string, string>) => new Map(Object.entries(tree).filter(([p]) => p.startsWith('model/')));
const withConfig = (tree: Record<string, string>) => ({ 'cube.js': DEMO_MODEL['cube.js'] as string, ...tree });

/** A pull request's preview: its branch from main, the tree uploaded, its staging environment on. */
async function stage(branch: string, tree: Record<string, string>): Promise<void> {
  await fx.admin.branches.create({ deploymentId: 1, body: { name: branch, from: 'main' } });
  await uploadTree(fx.admin, 1, branch, withConfig(tree));
  await fx.admin.branches.setStagingEnvironment({ deploymentId: 1, body: { enabled: true, branchName: branch } });
}

function impact(branch: string, tree: Record<string, string>, c = ctx()): Promise<ImpactResult> {
  return analyseImpact(c, { branch, deployBranch: 'main', headFiles: modelFiles(tree) });
}

/** The model as a folder, for the CLI and the action. */
function modelDir(tree: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'dmci-layer-'));
  for (const [path, text] of Object.entries(withConfig(tree))) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

const breaking = (r: ImpactResult) => r.changes!.members.filter((m) => m.breaking).map((m) => [m.member, m.change]);

/** The security context each masked token carries (the emulator's tokens are JWTs). */
const contexts = (secrets: string[]) =>
  [...new Set(secrets)].map(
    (t) => (JSON.parse(Buffer.from(t.split('.')[1] ?? '', 'base64url').toString('utf8')) as { securityContext?: unknown }).securityContext,
  );

const diff = (branch: string, dir: string, ...flags: string[]) => {
  const t = cliIo(fx.em);
  return runCli(['diff', '--deployment-id', '1', '--branch', branch, '--model-dir', dir, ...flags], t).then((code) => ({ code, t }));
};

beforeAll(async () => {
  fx = await emulatorFixture({ continueWaitPolls: 0 });
}, SLOW);
afterAll(() => fx.close());

describe('a model without access policies', () => {
  it(
    'no extra token is minted and the results are those of the empty context alone',
    async () => {
      const head = {
        ...DEMO_MODEL,
        'model/cubes/customers.yml': DEMO_MODEL['model/cubes/customers.yml']!.replace(
          '      - name: country\n        sql: country\n        type: string\n',
          '',
        ),
        'model/views/orders_view.yml': DEMO_MODEL['model/views/orders_view.yml']!.replace('          - country\n', ''),
      };
      await stage('open-no-country', head);
      const c = ctx();
      const r = await impact('open-no-country', head, c);
      expect(breaking(r)).toEqual([
        ['customers.country', 'removed'],
        ['orders_view.customers_country', 'view-lost'],
      ]);
      expect(impactSummaryLine(r)).toBe('2 breaking, 0 added, 0 changed; 1 report, 1 dashboard and 1 notification affected');
      // Two tokens: production's and the preview's, both with the empty context.
      expect(contexts(c.reporter.secrets)).toEqual([{}, {}]);
      expect(r.layer).toEqual({ whole: true, groups: { production: [], preview: [] }, unseen: [] });
      expect(r.notices).toEqual([]);
    },
    SLOW,
  );
});

describe('a school network whose every view is granted to groups', () => {
  beforeAll(async () => {
    await uploadTree(fx.admin, 1, 'main', withConfig(NETWORK_MODEL));
    fx.em.clock.advance(60_000);
    for (const r of NETWORK_REPORTS) await fx.admin.workspace.createReport({ deploymentId: 1, body: { name: r.name, jsonQuery: JSON.stringify(r.query) } });
    await stage('truants-removed', TRUANTS_REMOVED);
    await stage('grade-renamed', GRADE_RENAMED);
    await stage('pii-conditioned', PII_CONDITIONED);
  }, SLOW);

  it(
    'the empty context sees no view at all on either side',
    async () => {
      const r = await impact('truants-removed', TRUANTS_REMOVED);
      // What the review compared: every view, from the read with every group.
      expect(r.sources!.headMeta.cubes).toEqual([]);
      expect(r.layer!.groups).toEqual({ production: NETWORK_GROUPS, preview: NETWORK_GROUPS });
    },
    SLOW,
  );

  it(
    'a view member removed: breaking, with the report that uses it; the token carried every group in both places; fail-on-breaking fails',
    async () => {
      const c = ctx();
      const r = await impact('truants-removed', TRUANTS_REMOVED, c);
      expect(breaking(r)).toEqual([['attendance_summary.count_truants', 'removed']]);
      expect(r.affected.map((a) => [a.kind, a.name, a.uses.map((u) => u.member)])).toEqual([
        ['report', 'Chronic absence by grade', ['attendance_summary.count_truants']],
      ]);
      expect(r.layer).toEqual({ whole: true, groups: { production: NETWORK_GROUPS, preview: NETWORK_GROUPS }, unseen: [] });
      expect(impactSummaryLine(r)).toBe('1 breaking, 0 added, 0 changed; 1 report affected');
      // Four tokens, each masked: the empty context's and every group's, on each side.
      const every = { groups: NETWORK_GROUPS, cubeCloud: { userAttributes: {}, groups: NETWORK_GROUPS } };
      // In any order: each side's mints wait for its validation verdict, the sides in parallel.
      const sent = contexts(c.reporter.secrets);
      expect(sent.filter((x) => JSON.stringify(x) === '{}')).toHaveLength(2);
      expect(sent.filter((x) => JSON.stringify(x) !== '{}')).toEqual([every, every]);
      const dir = modelDir(TRUANTS_REMOVED);
      const failing = await diff('truants-removed', dir, '--fail-on-breaking');
      expect(failing.code).toBe(1);
      expect(failing.t.stderr.join('\n')).toContain(
        'truants-removed makes 1 breaking change to the semantic layer (measure attendance_summary.count_truants: no longer in the view (it stood for attendance.count_truants)), used by 1 report, dashboard or notification (report "Chronic absence by grade") (fail-on-breaking is true)',
      );
    },
    SLOW,
  );

  it(
    'a view member renamed: breaking, with the report that uses it',
    async () => {
      const r = await impact('grade-renamed', GRADE_RENAMED);
      expect(breaking(r).map(([m]) => m)).toEqual(['attendance_summary.students_grade_level']);
      expect(r.changes!.members.map((m) => m.member)).toContain('attendance_summary.students_grade');
      expect(r.affected.map((a) => [a.name, a.uses.map((u) => u.member)])).toEqual([['Chronic absence by grade', ['attendance_summary.students_grade_level']]]);
      expect(r.layer!.whole).toBe(true);
      expect((await diff('grade-renamed', modelDir(GRADE_RENAMED), '--fail-on-breaking')).code).toBe(1);
    },
    SLOW,
  );

  it(
    'a condition on a user attribute hides a view from the token with every group: said, not established, and the gate does not pass',
    async () => {
      const r = await impact('pii-conditioned', PII_CONDITIONED);
      // Cube refuses the empty context outright on such a model (no cubeCloud element to read userAttributes from): the read with every group stands in.
      expect(r.unavailable).toBeUndefined();
      expect(r.notices).toEqual([
        expect.stringMatching(
          /^the preview's \/meta could not be read with the empty security context \(.*TypeError: Cannot read properties of undefined \(reading 'userAttributes'\)\): compared through its read with every group its policies name$/,
        ),
      ]);
      expect(r.counts.breaking).toBe(0);
      expect(r.layer!.whole).toBe(false);
      expect(r.layer!.unseen.map((u) => [u.side, u.member])).toEqual([
        ['preview', 'staff_pii.department'],
        ['preview', 'staff_pii.personal_email'],
        ['preview', 'staff_pii.salary'],
      ]);
      expect(r.layer!.unseen[0]!.why).toContain('granted only under conditions (group staff-pii if { userAttributes.is_hr })');
      expect(impactSummaryLine(r)).toBe(
        'breaking changes not established (3 members the model files declare public out of sight); seen: 0 breaking, 1 values change, 0 added, 0 changed; no content affected',
      );
      const dir = modelDir(PII_CONDITIONED);
      const failing = await diff('pii-conditioned', dir, '--fail-on-breaking');
      expect(failing.code).toBe(1);
      expect(failing.t.stderr.join('\n')).toContain(
        'pii-conditioned: the review could not see the whole semantic layer (3 members the model files declare public listed by no /meta read, such as staff_pii.department), so its breaking changes are not established (fail-on-breaking is true)',
      );
      // Without fail-on-breaking: it passes, and says so loudly (a warning, the status, the JSON's layer).
      const passing = await diff('pii-conditioned', dir, '--json');
      expect(passing.code).toBe(0);
      expect(passing.t.stderr.join('\n')).toMatch(
        /warning: impact: the review could not see the whole semantic layer: 3 members .* \(the preview: 3 \(staff_pii\.department, …\)\)/,
      );
      const out = JSON.parse(passing.t.stdout.at(-1)!) as { outputs: Record<string, string>; result: { layer: ImpactResult['layer'] } };
      expect(out.outputs).toMatchObject({ status: 'not-established', 'breaking-count': '0' });
      expect(out.result.layer).toMatchObject({ whole: false, unseen: [{ side: 'preview', member: 'staff_pii.department' }, {}, {}] });
    },
    SLOW,
  );

  it(
    'a tenant whose deployment reads top-level groups: the token still shows the whole layer',
    async () => {
      await control(fx.em, 'profiles', { profiles: ['groups-top-level'] });
      try {
        const r = await impact('truants-removed', TRUANTS_REMOVED);
        expect(breaking(r)).toEqual([['attendance_summary.count_truants', 'removed']]);
        expect(r.layer!.whole).toBe(true);
      } finally {
        await control(fx.em, 'profiles', { profiles: [] });
      }
    },
    SLOW,
  );

  it(
    "a tenant whose minted tokens drop the groups: the review says it saw none of the views, and the pull request's check fails with fail-on-breaking",
    async () => {
      await control(fx.em, 'profiles', { profiles: ['minted-context-drops-cubecloud'] });
      const gh = await startGitHubStandin();
      try {
        const r = await impact('truants-removed', TRUANTS_REMOVED);
        expect(r.counts.breaking).toBe(0);
        expect(r.layer!.whole).toBe(false);
        expect(new Set(r.layer!.unseen.map((u) => u.side))).toEqual(new Set(['production', 'preview']));
        expect(r.layer!.unseen.find((u) => u.member === 'staff_directory.department')!.why).toBe(
          'granted to group staff-directory, which the token carried: the groups did not reach the policies on this deployment (docs/api-assumptions.md)',
        );
        // The pull request's run: the step fails, and the comment says why before any table (the job summary renders the same section).
        gh.addPull({ number: 36, headSha: 'b'.repeat(40), headRef: 'attendance' });
        const lines: string[] = [];
        const env: NodeJS.ProcessEnv = {
          ...cliIo(fx.em).env,
          DATAMODEL_CI_CA_CERT: `${fx.em.ca}\n${gh.ca}`,
          DATAMODEL_CI_DEPLOYMENT_ID: '1',
          DATAMODEL_CI_GITHUB_TOKEN: 'ghs_layer_token_0123',
          DATAMODEL_CI_MODEL_DIR: modelDir(TRUANTS_REMOVED),
          DATAMODEL_CI_FAIL_ON_BREAKING: 'true',
          GITHUB_REPOSITORY: gh.repository,
          GITHUB_API_URL: gh.url,
          GITHUB_EVENT_NAME: 'pull_request',
          GITHUB_EVENT_PATH: writeEvent(pullRequestEvent('opened', { number: 36, headSha: 'b'.repeat(40) })),
        };
        const code = await runActionCommand('pr', [], { out: (l) => lines.push(l), err: (l) => lines.push(l), env });
        expect(code, lines.join('\n')).not.toBe(0);
        expect(lines.join('\n')).toMatch(/preview-pr-36: the review could not see the whole semantic layer \(\d+ members .*\(fail-on-breaking is true\)/);
        const body = gh.comments(36).at(-1)!.body;
        expect(body).toMatch(/> 🛑 \*\*Breaking changes not established:\*\* the review could not see the whole semantic layer\. \d+ members/);
        expect(body).toContain('the groups did not reach the policies on this deployment');
        expect(body).toMatch(/\*\*Semantic layer\*\* \(`main` → `preview-pr-36`\): breaking changes not established \\\(\d+ members/);
        expect(gh.violations).toEqual([]);
      } finally {
        await gh.close();
        await control(fx.em, 'profiles', { profiles: [] });
      }
    },
    SLOW,
  );
});
