/**
 * Key queries per side against the emulator (real HTTPS sockets, Cube's own compiler and matcher): a pull
 * request renames `orders.status` to `orders.state` (the view and the rollup follow) and its key-queries
 * file follows the rename. Production runs the base commit's query, the preview the pull request's: the
 * query compares with its old self (unchanged numbers, the same rollup on both sides), not "new" or failed.
 * A query only the pull request's file has is new, one only the base's has is gone. The pr action reads
 * the base's file with git at the event's base commit; the CLI takes `--data-diff-base-queries`.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGitHubStandin } from '../packages/emulator/src/index.js';
import { runActionCommand } from '../src/commands/index.js';
import { runCli } from '../src/main.js';
import { DEMO_ROLLUP_MODEL } from '../scripts/demo-rollup.js';
import { pullRequestEvent, writeEvent } from './support/payloads.js';
import { cliIo, emulatorFixture, uploadTree, type EmulatorFixture } from './support/emulator.js';

let fx: EmulatorFixture;
const ORDERS = 'model/cubes/orders.yml';
const VIEW = 'model/views/orders_view.yml';

/** `orders.status` renamed `orders.state` everywhere: the cube, its rollup, the view. */
const RENAMED: Record<string, string> = {
  ...DEMO_ROLLUP_MODEL,
  [ORDERS]: DEMO_ROLLUP_MODEL[ORDERS]!.replace('      - name: status\n', '      - name: state\n').replace('dimensions: [status]', 'dimensions: [state]'),
  [VIEW]: DEMO_ROLLUP_MODEL[VIEW]!.replace('          - status\n', '          - state\n'),
};
const byStatus = (d: string) => ({ measures: ['orders.count'], dimensions: [d] });
const BASE_QUERIES = {
  queries: [
    { name: 'Orders by status', query: byStatus('orders.status') },
    { name: 'Orders by id', query: byStatus('orders.id') },
  ],
};
const HEAD_QUERIES = {
  queries: [
    { name: 'Orders by status', query: byStatus('orders.state') },
    { name: 'Revenue by state', query: { measures: ['orders.total_amount'], dimensions: ['orders.state'] } },
  ],
};

const git = (dir: string, ...args: string[]) =>
  execFileSync('git', ['-C', dir, '-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { encoding: 'utf8' }).trim();

function write(dir: string, files: Record<string, string>): void {
  for (const [p, c] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, p)), { recursive: true });
    writeFileSync(join(dir, p), c);
  }
}

/** A repository: the base commit (production's model and key queries), then the pull request's, checked out. */
function checkout(): { dir: string; model: string; queries: string; base: string; head: string } {
  const dir = mkdtempSync(join(tmpdir(), 'dmci-keys-side-'));
  const model = join(dir, 'analytics');
  git(dir, 'init', '-q');
  write(model, DEMO_ROLLUP_MODEL);
  write(dir, { 'ci/key-queries.json': JSON.stringify(BASE_QUERIES) });
  git(dir, 'add', '.');
  git(dir, 'commit', '-qm', 'base');
  const base = git(dir, 'rev-parse', 'HEAD');
  write(model, RENAMED);
  write(dir, { 'ci/key-queries.json': JSON.stringify(HEAD_QUERIES) });
  git(dir, 'commit', '-qam', 'rename status to state');
  return { dir, model, queries: join(dir, 'ci', 'key-queries.json'), base, head: git(dir, 'rev-parse', 'HEAD') };
}

beforeAll(async () => {
  fx = await emulatorFixture();
  await uploadTree(fx.admin, 1, 'main', DEMO_ROLLUP_MODEL);
}, 60_000);
afterAll(() => fx.close());

describe('key queries per side', () => {
  it("the pr action: the renamed member's query runs in its base form on production, unchanged, on the same rollup; new and gone said", async () => {
    const c = checkout();
    const gh = await startGitHubStandin();
    try {
      gh.addPull({ number: 39, headSha: c.head, headRef: 'rename-status' });
      const lines: string[] = [];
      const env: NodeJS.ProcessEnv = {
        ...cliIo(fx.em).env,
        DATAMODEL_CI_CA_CERT: `${fx.em.ca}\n${gh.ca}`,
        DATAMODEL_CI_DEPLOYMENT_ID: '1',
        DATAMODEL_CI_GITHUB_TOKEN: 'ghs_key_queries_side_token_01',
        DATAMODEL_CI_MODEL_DIR: c.model,
        DATAMODEL_CI_DATA_DIFF: 'values',
        DATAMODEL_CI_DATA_DIFF_ALLOW_PUBLIC: 'true',
        DATAMODEL_CI_DATA_DIFF_BUILD_ROLLUPS: 'true',
        DATAMODEL_CI_DATA_DIFF_QUERIES: c.queries,
        GITHUB_REPOSITORY: gh.repository,
        GITHUB_API_URL: gh.url,
        GITHUB_EVENT_NAME: 'pull_request',
        GITHUB_EVENT_PATH: writeEvent(pullRequestEvent('opened', { number: 39, headSha: c.head, baseSha: c.base })),
      };
      const code = await runActionCommand('pr', [], { out: (l) => lines.push(l), err: (l) => lines.push(l), env });
      const log = lines.join('\n');
      expect(code, log).toBe(0);
      const path = /change-set-file=(\S+)/.exec(log)?.[1];
      const file = JSON.parse(readFileSync(path!, 'utf8')) as { rollups: { query: string }[]; rebuilt: { rollup: string; reason: string }[] };
      // Planned on production in its base form: the same rollup on both sides, and its build SQL (the renamed dimension) seen to change.
      expect(
        file.rollups.filter((r) => r.query === 'Orders by status'),
        log,
      ).toEqual([]);
      expect(file.rebuilt.map((r) => [r.rollup, r.reason])).toEqual([['orders.orders_by_status', 'its build SQL changed']]);
      expect(log).toMatch(
        /rollups: 2 key query plans on both sides \(and 1 rollup's own query\) in [\d.]+ s: 0 lost, 0 gained, moved or from the versions, 1 rebuilt on merge/,
      );
      expect(log).toMatch(/data diff: 3 key queries in [\d.]+ s: 0 changed, 1 unchanged, 1 new, 1 gone, 0 failed/);
      const body = gh.comments(39).at(-1)!.body;
      expect(body).toMatch(/\*\*Numbers\*\* \(production → preview, 3 key queries .*\): 0 changed, 1 unchanged, 1 new, 1 gone$/m);
      // The gone query ran nowhere: it built nothing.
      expect(body).not.toMatch(/`Orders by id`\) ran on the preview/);
      expect(body).toMatch(/^\| Orders by status \| 5 → 5 \| unchanged \|$/m);
      expect(body).toMatch(/^\| Revenue by state \| .* new on the preview: 5 rows \|$/m);
      expect(body).toContain("| Orders by id |  | gone: only the base's key-queries file has it (not run) |");
    } finally {
      await gh.close();
    }
  }, 180_000);

  it('the CLI: --data-diff-base-queries gives the base form; without it the renamed query runs on the preview only (new)', async () => {
    const c = checkout();
    const base = join(c.dir, 'base-queries.json');
    writeFileSync(base, JSON.stringify(BASE_QUERIES));
    const args = (...more: string[]) => [
      'plan',
      '--deployment-id',
      '1',
      '--model-dir',
      c.model,
      '--data-diff',
      'values',
      '--data-diff-build-rollups',
      'true',
      '--data-diff-queries',
      c.queries,
      ...more,
    ];
    const t = cliIo(fx.em);
    expect(await runCli(args('--data-diff-base-queries', base), t), t.stderr.join('\n')).toBe(0);
    const out = t.stdout.join('\n');
    expect(out).toMatch(/^Numbers \(production → preview, 3 key queries\): 0 changed/m);
    expect(out).toMatch(/^ {2}Orders by status +unchanged +\d+ → \d+ +unchanged$/m);
    expect(out).toMatch(/^ {2}Revenue by state +new /m);
    expect(out).toMatch(/^ {2}Orders by id +gone +gone: only the base's key-queries file has it \(not run\)$/m);
    const plain = cliIo(fx.em);
    expect(await runCli(args(), plain), plain.stderr.join('\n')).toBe(0);
    expect(plain.stdout.join('\n')).toMatch(/^ {2}Orders by status +new /m);
  }, 240_000);
});
