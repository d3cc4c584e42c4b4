/**
 * `datamodel-ci plan` against the emulator: the demo's change (a removed dimension its report, dashboard and
 * notification use; a row policy the personas read through; a distinct count that leaves production's
 * rollup; an aggregation that moves the numbers) reviewed from a working copy, every section by name; and
 * what it made (its branch, the staging environment, dev-mode forks) gone after a success, a failure and a
 * Ctrl-C (the SIGINT handler the command installs), kept only with --keep.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isDevBranch } from '@datamodel-ci/platform-api';
import { DEMO_MODEL, startGitHubStandin } from '../packages/emulator/src/index.js';
import { runActionCommand } from '../src/commands/index.js';
import { runCli } from '../src/main.js';
import { DEMO_PERSONAS, ORDERS_POLICY } from '../scripts/demo.js';
import { DEMO_ROLLUP_MODEL, distinctCount } from '../scripts/demo-rollup.js';
import { pullRequestEvent, writeEvent } from './support/payloads.js';
import { cliIo, emulatorFixture, uploadTree, type EmulatorFixture } from './support/emulator.js';

const ORDERS = 'model/cubes/orders.yml';
let fx: EmulatorFixture;
let production: string[];
const listenersBefore = process.listenerCount('SIGINT');

/** The working copy: production's model (with its rollup) and the demo's edits. */
const CHANGED: Record<string, string> = {
  ...DEMO_ROLLUP_MODEL,
  [ORDERS]: distinctCount(DEMO_ROLLUP_MODEL[ORDERS]!.replace('    dimensions:\n', `${ORDERS_POLICY}    dimensions:\n`).replace('type: sum', 'type: avg')),
  'model/cubes/customers.yml': DEMO_MODEL['model/cubes/customers.yml']!.replace('      - name: country\n        sql: country\n        type: string\n', ''),
  'model/views/orders_view.yml': DEMO_MODEL['model/views/orders_view.yml']!.replace('          - country\n', ''),
};

function workingCopy(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'dmci-plan-'));
  for (const [p, c] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, 'analytics', p)), { recursive: true });
    writeFileSync(join(dir, 'analytics', p), c);
  }
  writeFileSync(join(dir, 'personas.yml'), DEMO_PERSONAS);
  return dir;
}

/** What is on the platform besides production's branches: branches, dev-mode forks and sessions, staging environments. */
function leftovers(): { branches: string[]; forks: string[]; sessions: string[]; staging: string[] } {
  const d = fx.em.state.deployments[0]!;
  const names = Object.keys(d.branches).filter((n) => !production.includes(n));
  return {
    branches: names.filter((n) => !isDevBranch(n)),
    forks: names.filter((n) => isDevBranch(n)),
    sessions: Object.keys(d.devSessions),
    staging: Object.entries(d.branches)
      .filter(([n, b]) => !production.includes(n) && b.staging)
      .map(([n]) => n),
  };
}
const NOTHING = { branches: [], forks: [], sessions: [], staging: [] };

const planArgs = (dir: string, ...more: string[]) => ['plan', '--deployment-id', '1', '--model-dir', join(dir, 'analytics'), ...more];

beforeAll(async () => {
  fx = await emulatorFixture();
  await uploadTree(fx.admin, 1, 'main', DEMO_ROLLUP_MODEL);
  production = Object.keys(fx.em.state.deployments[0]!.branches);
}, 60_000);
afterAll(() => fx.close());

/** The plan's branch, from its first log line. */
const branchOf = (lines: string[]) => /, on (preview-plan-[a-z0-9-]+)/.exec(lines.join('\n'))?.[1] ?? '';

describe('datamodel-ci plan', () => {
  it('prints every section of the review by name, then removes its branch and staging environment and says so', async () => {
    const dir = workingCopy(CHANGED);
    // The branch says whose it is (USER, made a name), and a random part keeps two runs apart.
    const t = cliIo(fx.em, { USER: 'ana.lopez' });
    const records = join(dir, 'records');
    const args = planArgs(dir, '--data', '--personas', join(dir, 'personas.yml'), '--out', records, '--data-diff-build-rollups', 'true');
    const code = await runCli(args, t);
    const out = t.stdout.join('\n');
    expect(code, t.stderr.join('\n')).toBe(0);
    const branch = branchOf(t.stdout);
    expect(branch).toMatch(/^preview-plan-ana-lopez-[0-9a-f]{6}$/);
    // The steps, then the members by name (breaking ones marked), the content they hit.
    expect(out).toMatch(/^Upload: 3 files sent, 0 deleted, 1 unchanged$/m);
    expect(out).toMatch(/^Validation: valid: 3 cubes and views$/m);
    expect(out).toMatch(new RegExp(`^Semantic layer \\(main → ${branch}\\): 2 breaking, 5 values changes`, 'm'));
    expect(out).toMatch(/^ {2}customers\.country +removed +BREAKING +removed$/m);
    expect(out).toMatch(/^ {2}orders_view\.customers_country +view-lost +BREAKING +customers\.country removed$/m);
    expect(out).toMatch(/^ {2}orders\.total_amount +changed +numbers move +aggregation sum → avg$/m);
    expect(out).toMatch(/^ {2}orders \(cube\) +changed +numbers move +access policy added$/m);
    expect(out).toMatch(/^ {2}report +Revenue by country +orders_view\.customers_country$/m);
    expect(out).toMatch(/^ {2}dashboard +Revenue board 1 · Revenue overview +orders_view\.customers_country$/m);
    expect(out).toMatch(/^ {2}notification +Notification 3 \(At 09:00, Monday through Friday\) +orders_view\.customers_country$/m);
    // Who can see what: the persona whose rows narrow, by name, and each persona's probe.
    // The row policy on orders narrows the view over it too (Cube applies a cube's row filter through its views).
    expect(out).toMatch(/^Who can see what \(2 personas: analyst and finance\): 2 changes, 0 gaining access$/m);
    expect(out).toMatch(/^ {2}analyst +fewer rows +orders +rows 5 → 4/m);
    expect(out).toMatch(/^ {2}analyst +fewer rows +orders_view +rows 5 → 4/m);
    expect(out).toMatch(/^ {2}finance +orders +orders\.status +5 +5$/m);
    // Numbers: each key query by name; the one the removed member breaks is named as failed.
    expect(out).toMatch(/^Numbers \(production → preview, 16 key queries\): 15 changed, 1 failed \(Report “Revenue by country”\)$/m);
    expect(out).toMatch(/^ {2}Report “Revenue by country” +failed +FAILED on preview: /m);
    expect(out).toMatch(/^ {2}orders\.total_amount: total +changed +1 → 1 +1 row changed; largest −100\.0 % \(−2,488,679\.96\) on orders\.total_amount$/m);
    // Rollups: each key query that leaves production's rollup, by name.
    expect(out).toMatch(/^Rollups \(production → preview, 20 key query plans\): 12 changed \(12 lost\)/m);
    expect(out).toMatch(/^ {2}orders\.orders_by_status +— +LOST: reaches the warehouse +Report “Orders by status”$/m);
    expect(out).toMatch(/^ {2}PRODUCTION +PREVIEW +ROLLUP +KEY QUERY$/m);
    expect(out).toMatch(/^ {40,}orders\.count: total$/m);
    // Content whose numbers move is named too, not only counted.
    expect(out).toMatch(/^Content whose numbers move \(3\):$/m);
    // Where the detail files went (the folder asked for), and what became of what the run made.
    expect(out).toContain(`Detail files: change set ${join(records, `impact-1-${branch}.json`)}; data diff ${join(records, `data-diff-1-${branch}.json`)}`);
    expect(t.stdout.at(-1)).toBe(`removed what this plan made: branch ${branch} and its staging environment`);
    // No name=value outputs on stdout: the review is the output.
    expect(out).not.toMatch(/^[a-z-]+=/m);
    expect(leftovers()).toEqual(NOTHING);
  }, 120_000);

  it('a model the platform finds invalid: the errors, exit 1, its branch and staging removed all the same (the dev-mode fork too); --json carries what was removed', async () => {
    const dir = workingCopy({ ...DEMO_ROLLUP_MODEL, [ORDERS]: DEMO_ROLLUP_MODEL[ORDERS]!.replace('type: sum', 'type: summ') });
    const t = cliIo(fx.em);
    const code = await runCli(planArgs(dir, '--upload-via', 'dev-mode', '--json'), t);
    expect(code, t.stderr.join('\n')).toBe(1);
    const doc = JSON.parse(t.stdout.at(-1)!) as { errors: { message: string }[]; result: { plan: { branch: string; cleanup: { deleted: string[] } } } };
    const { branch, cleanup } = doc.result.plan;
    expect(branch).toMatch(/^preview-plan-[0-9a-f]{6}$/);
    expect(doc.errors.map((e) => e.message).join('\n')).toMatch(/summ/);
    expect(cleanup).toEqual({ deleted: [branch], stagingOff: true, left: [] });
    expect(t.stderr.join('\n')).toContain(`removed what this plan made: branch ${branch} and its staging environment`);
    expect(leftovers()).toEqual(NOTHING);
  }, 120_000);

  it('an upload the deletion guard refuses (a folder with no cube left): the error, exit 2, and the branch it made and its staging removed first', async () => {
    const dir = workingCopy({ 'cube.js': DEMO_ROLLUP_MODEL['cube.js'] ?? 'module.exports = {};\n' });
    const t = cliIo(fx.em);
    const code = await runCli(planArgs(dir), t);
    expect(code).toBe(2);
    const json = cliIo(fx.em);
    expect(await runCli(planArgs(dir, '--json'), json)).toBe(2);
    const doc = JSON.parse(json.stdout.at(-1)!) as { result: { plan: { branch: string; cleanup: { deleted: string[] } } } };
    expect(doc.result.plan.cleanup.deleted).toEqual([doc.result.plan.branch]);
    const branch = branchOf(t.stderr);
    expect(t.stderr.join('\n')).toContain(`model-dir: got ${JSON.stringify(join(dir, 'analytics'))}, expected the folder that holds cube.js and model/`);
    // Nothing of the review to print: the one line of what was removed, on stdout.
    expect(t.stdout).toEqual([`removed what this plan made: branch ${branch} and its staging environment`]);
    expect(leftovers()).toEqual(NOTHING);
  }, 120_000);

  it('a key-queries file naming a member neither side has: bad input (exit 2) with a did-you-mean, no query run, and the branch removed', async () => {
    const dir = workingCopy(CHANGED);
    const queries = join(dir, 'key-queries.json');
    writeFileSync(queries, JSON.stringify({ queries: [{ name: 'Orders by status', query: { measures: ['orders.cuont'], dimensions: ['orders.status'] } }] }));
    const t = cliIo(fx.em);
    const code = await runCli(planArgs(dir, '--data-diff', 'values', '--data-diff-queries', queries), t);
    expect(code, t.stderr.join('\n')).toBe(2);
    expect(t.stderr.join('\n')).toContain(
      'key query "Orders by status" names orders.cuont, which production\'s semantic layer does not have, nor the preview\'s (did you mean orders.count?)',
    );
    expect(t.stdout.join('\n')).toMatch(/removed what this plan made: branch preview-plan-[0-9a-f]{6} and its staging environment/);
    expect(leftovers()).toEqual(NOTHING);
  }, 120_000);

  it('Ctrl-C (SIGINT) mid-upload through dev mode: the branch, its staging and the open fork removed even with --keep, and it says so', async () => {
    const dir = workingCopy(CHANGED);
    const t = cliIo(fx.em);
    let sent = false;
    const io = {
      ...t,
      err: (line: string) => {
        t.err(line);
        // The fork is open, the upload about to start: the user presses Ctrl-C (the handler the command installed).
        if (!sent && /^dev-\w+: 3 to send, 0 to delete, 1 unchanged$/.test(line)) {
          sent = true;
          process.emit('SIGINT', 'SIGINT');
        }
      },
    };
    const code = await runCli(planArgs(dir, '--keep', '--upload-via', 'dev-mode'), io);
    const log = [...t.stdout, ...t.stderr].join('\n');
    expect(sent, log).toBe(true);
    expect(code, log).toBe(1);
    const branch = branchOf(t.stderr);
    expect(log).toContain('received SIGINT: stopping');
    const fork = /dev mode open on \S+: dev branch (dev-\w+)/.exec(log)?.[1];
    expect(fork).toBeDefined();
    expect(log).toContain(`removed what this plan made before it was cancelled: branch ${branch}, its staging environment and dev-mode fork ${fork}`);
    expect(log).toContain('plan: cancelled before the review was complete');
    expect(leftovers()).toEqual(NOTHING);
    // The command's handler is gone with the run: nothing of it is left on the process.
    expect(process.listenerCount('SIGINT')).toBe(listenersBefore);
  }, 120_000);

  it('--format markdown prints the body of the comment the pr action writes for the same change; --keep keeps the branch for its staging URL', async () => {
    const dir = workingCopy(CHANGED);
    const gh = await startGitHubStandin();
    try {
      gh.addPull({ number: 41, headSha: 'b'.repeat(40), headRef: 'orders-change' });
      const lines: string[] = [];
      const env: NodeJS.ProcessEnv = {
        ...cliIo(fx.em).env,
        DATAMODEL_CI_CA_CERT: `${fx.em.ca}\n${gh.ca}`,
        DATAMODEL_CI_DEPLOYMENT_ID: '1',
        DATAMODEL_CI_GITHUB_TOKEN: 'ghs_plan_markdown_token_0123',
        DATAMODEL_CI_MODEL_DIR: join(dir, 'analytics'),
        GITHUB_REPOSITORY: gh.repository,
        GITHUB_API_URL: gh.url,
        GITHUB_EVENT_NAME: 'pull_request',
        GITHUB_EVENT_PATH: writeEvent(pullRequestEvent('opened', { number: 41, headSha: 'b'.repeat(40) })),
      };
      expect(await runActionCommand('pr', [], { out: (l) => lines.push(l), err: (l) => lines.push(l), env }), lines.join('\n')).toBe(0);
      const comment = gh.comments(41).at(-1)!.body;
      const t = cliIo(fx.em);
      expect(await runCli(planArgs(dir, '--format', 'markdown', '--keep'), t), t.stderr.join('\n')).toBe(0);
      const branch = branchOf(t.stderr);
      const kept = fx.em.state.deployments[0]!.branches[branch];
      // Kept: the branch and its staging environment stay, and the line says so with the URL.
      expect(kept?.staging).toBe(true);
      expect(t.stderr.join('\n')).toMatch(
        new RegExp(
          `^kept ${branch} and its staging environment \\(https://\\S+/d/1/dev-mode/${branch}/cubejs-api/v1\\): delete it on the platform when you are done`,
          'm',
        ),
      );
      await fx.admin.branches.remove({ deploymentId: 1, query: { branchName: branch } });
      // The same body but what names the run: the branch, the commit, the time.
      const same = (body: string) =>
        body
          .split('\n')
          .filter((l) => !l.startsWith('<!-- datamodel-ci:'))
          .join('\n')
          .replaceAll(branch, 'BRANCH')
          .replaceAll(branch.replaceAll('-', '\\-'), 'BRANCH')
          .replaceAll('preview-pr-41', 'BRANCH')
          .replaceAll('preview\\-pr\\-41', 'BRANCH')
          .replace(/^\*\*Commit:\*\* .*$/m, 'COMMIT')
          .trim();
      const printed = t.stdout.join('\n');
      expect(printed).not.toContain('<!-- datamodel-ci');
      expect(same(printed)).toBe(same(comment));
    } finally {
      await gh.close();
      // The pull request's own preview, which its close would remove.
      await fx.admin.branches.remove({ deploymentId: 1, query: { branchName: 'preview-pr-41' } });
    }
    expect(leftovers()).toEqual(NOTHING);
  }, 120_000);

  it('bad input is refused before any call: a --format it does not know, --format with --json, a dry run, a --out it cannot make', async () => {
    const dir = workingCopy(CHANGED);
    const before = { ...fx.em.counts };
    const cases: [string[], string, NodeJS.ProcessEnv?][] = [
      [['--format', 'html'], 'format: got "html", expected text or markdown'],
      [['--format', 'markdown', '--json'], 'format: got "markdown", expected no --format with --json'],
      [[], 'dry-run: got "true", expected false: plan removes everything it makes', { DATAMODEL_CI_DRY_RUN: 'true' }],
      [
        ['--out', join(dir, 'personas.yml', 'below-a-file')],
        `out: got ${JSON.stringify(join(dir, 'personas.yml', 'below-a-file'))}, expected a folder the run may create and write to`,
      ],
    ];
    for (const [more, says, env] of cases) {
      const t = cliIo(fx.em, env);
      expect(await runCli(planArgs(dir, ...more), t), more.join(' ')).toBe(2);
      expect(t.stderr.join('\n')).toContain(says);
    }
    expect(fx.em.counts).toEqual(before);
    expect(leftovers()).toEqual(NOTHING);
  });
});
