/**
 * The toolkit's own loads build no changed rollup (issue 36), against the emulator's shared Cube Store
 * (real HTTPS sockets; Cube's matcher; a `/load` planned on a table the store lacks builds it, counted per
 * branch): the rollup plans run first, and the preview's key queries and persona probes that a changed
 * rollup would serve are skipped (named in one line, in the terminal, --json and the comment) unless
 * `data-diff-build-rollups` allows them; a pull request that touches no rollup runs everything.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGitHubStandin } from '../packages/emulator/src/index.js';
import { runActionCommand } from '../src/commands/index.js';
import { runCli } from '../src/main.js';
import type { AccessOutcome } from '../src/impact/access/types.js';
import type { DataDiffResult } from '../src/impact/data/types.js';
import type { BuildSkips } from '../src/impact/rollups/builds.js';
import { pullRequestEvent, writeEvent } from './support/payloads.js';
import { cliIo, control, emulatorFixture, uploadTree, type EmulatorFixture } from './support/emulator.js';
import { ROLLUP_MODEL, ROLLUP_WITH_ROW_FILTER } from './support/rollup-model.js';

let fx: EmulatorFixture;
const ORDERS = 'model/cubes/orders.yml';
const grain = (tree: Record<string, string>, g: string) => ({
  ...tree,
  [ORDERS]: tree[ORDERS]!.replace('        granularity: day\n', `        granularity: ${g}\n`),
});
const amount = (factor: number) => ({
  ...ROLLUP_MODEL,
  [ORDERS]: ROLLUP_MODEL[ORDERS]!.replace('        type: sum\n        sql: amount\n', `        type: sum\n        sql: amount * ${factor}\n`),
});
const BRANCHES: Record<string, Record<string, string>> = {
  /** The rollup's definition changed: its granularity. */
  'pr-rollup': grain(ROLLUP_MODEL, 'hour'),
  /** A measure under the rollup changed: its build SQL moves with it. */
  'pr-measure': amount(2),
  /** A measure added that no rollup holds: nothing to build. */
  'pr-plain': {
    ...ROLLUP_MODEL,
    [ORDERS]: ROLLUP_MODEL[ORDERS]!.replace('    dimensions:\n', '      - name: average_amount\n        type: avg\n        sql: amount\n    dimensions:\n'),
  },
  /** A measure under the rollup changed, on a preview whose /v1/sql fails (the plans cannot tell). */
  'pr-unplanned': amount(5),
  /** An access policy added to orders and its rollup changed: the persona probes on orders would build it. */
  'pr-policy': grain(ROLLUP_WITH_ROW_FILTER, 'week'),
};
const QUERIES = [
  { name: 'by status', query: { measures: ['orders.count'], dimensions: ['orders.status'] } },
  { name: 'customers by country', query: { measures: ['customers.count'], dimensions: ['customers.country'] } },
];

interface Builds {
  builds: { table: string; preAggregationId: string; branch: string; production: boolean; count: number }[];
}
/** The builds the branches' `/load`s triggered in the shared Cube Store (production's refresh worker aside). */
const branchBuilds = async (branch?: string) =>
  ((await control(fx.em, 'rollup-builds?deploymentId=1')) as Builds).builds.filter((b) => !b.production && (!branch || b.branch === branch));

beforeAll(async () => {
  fx = await emulatorFixture({ continueWaitPolls: 0 });
  await uploadTree(fx.admin, 1, 'main', ROLLUP_MODEL);
  for (const [branch, tree] of Object.entries(BRANCHES)) {
    await fx.admin.branches.create({ deploymentId: 1, body: { name: branch, from: 'main' } });
    await uploadTree(fx.admin, 1, branch, tree);
    await fx.admin.branches.setStagingEnvironment({ deploymentId: 1, body: { enabled: true, branchName: branch } });
  }
}, 120_000);
afterAll(() => fx.close());

/** A checkout of `tree` with the key-queries file and a personas file (one analyst, who reads every row) beside it. */
function checkout(tree: Record<string, string>): { dir: string; queries: string; personas: string } {
  const dir = mkdtempSync(join(tmpdir(), 'dmci-rollup-builds-'));
  for (const [path, content] of Object.entries(tree)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  const queries = join(dir, 'key-queries.json');
  writeFileSync(queries, JSON.stringify({ queries: QUERIES }));
  const personas = join(dir, 'personas.yml');
  writeFileSync(personas, 'personas:\n  - name: analyst\n    groups: [analysts]\n');
  return { dir, queries, personas };
}

interface DiffOut {
  outputs: Record<string, string>;
  result: { dataDiff?: DataDiffResult; rollupBuilds?: BuildSkips; access?: AccessOutcome };
}

/** `datamodel-ci diff --data-diff values --json` of a branch; the JSON and the terminal's text. */
async function diff(branch: string, extra: string[] = []): Promise<{ out: DiffOut; text: string }> {
  const c = checkout(BRANCHES[branch]!);
  const args = ['diff', '--deployment-id', '1', '--branch', branch, '--model-dir', c.dir, '--data-diff', 'values', '--data-diff-queries', c.queries, ...extra];
  const t = cliIo(fx.em);
  expect(await runCli([...args, '--json'], t), t.stderr.join('\n')).toBe(0);
  return { out: JSON.parse(t.stdout.at(-1)!) as DiffOut, text: [...t.stdout, ...t.stderr].join('\n') };
}

const statusOf = (out: DiffOut, name: string) => out.result.dataDiff?.queries.find((q) => q.name === name)?.status;
const buildLine = (text: string) => text.split('\n').filter((l) => /rollups: .*(not run on the preview|ran on the preview)/.test(l));

describe('a pull request that changes a rollup: its key queries are not run on the preview unless allowed', () => {
  it("the rollup's definition changed: the query it serves is skipped (named in one line), the rest runs; nothing is built", async () => {
    const { out, text } = await diff('pr-rollup');
    expect(statusOf(out, 'by status')).toBe('skipped');
    expect(out.result.dataDiff?.queries.find((q) => q.name === 'by status')?.wouldBuild).toEqual([{ rollup: 'orders.orders_by_status', reason: 'changed' }]);
    expect(statusOf(out, 'customers by country')).toBe('unchanged');
    expect(out.result.rollupBuilds).toMatchObject({ allowed: false, keyQueries: ['by status'], probes: 0 });
    const line = buildLine(text);
    expect(line).toHaveLength(1);
    expect(line[0]).toContain('1 key query (by status) not run on the preview: they would build orders.orders_by_status (changed) in the shared Cube Store');
    // Outputs: a skipped query is no change; the rollup is still rebuilt on merge.
    expect(out.outputs).toMatchObject({ 'data-changed-count': '0', 'rollups-rebuilt-count': '1' });
    const file = JSON.parse(readFileSync(out.outputs['data-diff-file']!, 'utf8')) as DataDiffResult;
    expect(file.queries.find((q) => q.name === 'by status')?.status).toBe('skipped');
    expect(await branchBuilds('pr-rollup')).toEqual([]);
  }, 120_000);

  it('data-diff-build-rollups: the query runs and builds the rollup, and the line says so', async () => {
    const { out, text } = await diff('pr-rollup', ['--data-diff-build-rollups']);
    expect(statusOf(out, 'by status')).toBe('unchanged');
    expect(out.result.rollupBuilds).toMatchObject({ allowed: true, keyQueries: ['by status'] });
    expect(buildLine(text)[0]).toContain(
      '1 key query (by status) ran on the preview, building orders.orders_by_status (changed) in the shared Cube Store (data-diff-build-rollups: true)',
    );
    expect(await branchBuilds('pr-rollup')).toEqual([expect.objectContaining({ preAggregationId: 'orders.orders_by_status', count: 1 })]);
  }, 120_000);

  it('a measure under the rollup changed: every key query the rollup would serve is skipped; nothing is built', async () => {
    const { out, text } = await diff('pr-measure');
    const skipped = out.result.dataDiff!.queries.filter((q) => q.status === 'skipped');
    expect(skipped.map((q) => q.name)).toContain('by status');
    for (const q of skipped) expect(q.wouldBuild).toEqual([{ rollup: 'orders.orders_by_status', reason: 'changed' }]);
    expect(out.result.rollupBuilds?.keyQueries).toEqual(skipped.map((q) => q.name));
    expect(buildLine(text)[0]).toContain('by status');
    expect(await branchBuilds('pr-measure')).toEqual([]);
  }, 120_000);

  it('a pull request that touches no rollup runs every key query as before', async () => {
    const { out, text } = await diff('pr-plain');
    const statuses = out.result.dataDiff!.queries.map((q) => q.status);
    expect(statuses.length).toBeGreaterThan(QUERIES.length);
    expect(statuses.filter((s) => s === 'skipped' || s === 'failed')).toEqual([]);
    expect(out.result.rollupBuilds).toBeUndefined();
    expect(buildLine(text)).toEqual([]);
    expect(await branchBuilds('pr-plain')).toEqual([]);
  }, 120_000);

  it('persona probes on a changed rollup\'s cube are skipped likewise: "not run" on both sides, counted in the line', async () => {
    const c = checkout(BRANCHES['pr-policy']!);
    const { out, text } = await diff('pr-policy', ['--personas', c.personas]);
    const probes = out.result.access!.probes.filter((p) => p.target === 'orders');
    expect(probes.map((p) => p.persona)).toEqual(['analyst']);
    expect(probes[0]!.preview.skipped).toContain('orders.orders_by_status (changed)');
    expect(probes[0]!.production.skipped).toBeDefined();
    // The view over orders is probed beside it (a cube's rows reach the views over it), and skipped likewise.
    const view = out.result.access!.probes.filter((p) => p.target === 'orders_view');
    expect(view.map((p) => p.persona)).toEqual(['analyst']);
    expect(view[0]!.preview.skipped).toContain('orders.orders_by_status (changed)');
    expect(out.result.rollupBuilds?.probes).toBe(2);
    expect(buildLine(text)[0]).toMatch(/2 persona probes not run on the preview/);
    // The plans first, then the probes and the data diff.
    expect(text.indexOf('key query plans on both sides')).toBeLessThan(text.indexOf('persona probes:'));
    expect(text.indexOf('persona probes:')).toBeLessThan(text.indexOf('data diff:'));
    expect(await branchBuilds('pr-policy')).toEqual([]);
  }, 120_000);

  it("the preview's plans fail: a pull request that changes a cube with rollups skips every load whose plan is not known", async () => {
    // Only this branch's /v1/sql fails (its loads and production's plans answer).
    fx.em.faults.plan({ kind: '5xx', method: 'POST', path: '/dev-mode/pr-unplanned/cubejs-api/v1/sql', times: 1000 });
    const { out, text } = await diff('pr-unplanned', ['--data-diff-query-timeout', '2']);
    const queries = out.result.dataDiff!.queries;
    expect(queries.length).toBeGreaterThan(0);
    for (const q of queries) expect([q.name, q.status, q.wouldBuild]).toEqual([q.name, 'skipped', [{ rollup: 'orders', reason: 'unplanned' }]]);
    expect(buildLine(text)[0]).toContain('they would build a pre-aggregation of orders (plan not known)');
    expect(await branchBuilds('pr-unplanned')).toEqual([]);
  }, 120_000);

  it("profile rollup-only with the build allowed: the query fails with Cube's answer (reported as failed, never as unchanged)", async () => {
    await control(fx.em, 'profiles', { profiles: ['rollup-only'] });
    try {
      const { out } = await diff('pr-measure', ['--data-diff-build-rollups']);
      const q = out.result.dataDiff!.queries.find((x) => x.name === 'by status')!;
      expect(q.status).toBe('failed');
      expect(q.failed?.message).toContain('No pre-aggregation partitions were built yet');
      expect(await branchBuilds('pr-measure')).toEqual([]);
      // A probe refused so is a failure, never the persona's loss of access.
      const c = checkout(BRANCHES['pr-policy']!);
      const probed = (await diff('pr-policy', ['--personas', c.personas, '--data-diff-build-rollups'])).out.result.access!;
      const probe = probed.probes.find((p) => p.target === 'orders')!;
      expect(probe.preview.error).toContain('No pre-aggregation partitions were built yet');
      expect(probe.preview.refused).toBeUndefined();
      expect(probed.changes.filter((x) => x.persona === 'analyst' && x.target === 'orders')).toEqual([]);
    } finally {
      await control(fx.em, 'profiles', { profiles: [] });
    }
  }, 120_000);
});

describe('the pr lifecycle', () => {
  it('the comment says it in the Cost section and the Numbers row; the preview builds nothing', async () => {
    const c = checkout(amount(3));
    const gh = await startGitHubStandin();
    try {
      gh.addPull({ number: 36, headSha: 'd'.repeat(40), headRef: 'rollup-builds' });
      const lines: string[] = [];
      const env: NodeJS.ProcessEnv = {
        ...cliIo(fx.em).env,
        DATAMODEL_CI_CA_CERT: `${fx.em.ca}\n${gh.ca}`,
        DATAMODEL_CI_DEPLOYMENT_ID: '1',
        DATAMODEL_CI_GITHUB_TOKEN: 'ghs_rollup_builds_token_0123',
        DATAMODEL_CI_MODEL_DIR: c.dir,
        DATAMODEL_CI_DATA_DIFF: 'values',
        DATAMODEL_CI_DATA_DIFF_ALLOW_PUBLIC: 'true',
        DATAMODEL_CI_DATA_DIFF_QUERIES: c.queries,
        GITHUB_REPOSITORY: gh.repository,
        GITHUB_API_URL: gh.url,
        GITHUB_EVENT_NAME: 'pull_request',
        GITHUB_EVENT_PATH: writeEvent(pullRequestEvent('opened', { number: 36, headSha: 'd'.repeat(40) })),
      };
      const before = (await branchBuilds()).length;
      const code = await runActionCommand('pr', [], { out: (l) => lines.push(l), err: (l) => lines.push(l), env });
      expect(code, lines.join('\n')).toBe(0);
      // Outputs agree with the file: a skipped query is counted as neither changed nor failed.
      const file = JSON.parse(readFileSync(/data-diff-file=(\S+)/.exec(lines.join('\n'))![1]!, 'utf8')) as DataDiffResult;
      const skipped = file.queries.filter((q) => q.status === 'skipped');
      expect(skipped.length).toBeGreaterThan(0);
      expect(lines).toContain(`data-changed-count=${file.queries.filter((q) => q.status === 'changed').length}`);
      const body = gh.comments(36).at(-1)!.body;
      expect(body).toContain('**Cost**');
      expect(body).toMatch(
        /⏭️ \d+ key quer(y|ies) \(`by status`.*\) not run on the preview: they would build `orders\.orders_by_status` \\\(changed\\\) in the shared Cube Store; set data-diff-build-rollups: true to run them/,
      );
      expect(body).toContain(
        '| by status |  | not run: its load on the preview would build `orders.orders_by_status` (changed) in the shared Cube Store (see Cost) |',
      );
      expect(await branchBuilds()).toHaveLength(before);
    } finally {
      await gh.close();
    }
  }, 180_000);
});
