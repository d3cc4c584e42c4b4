/**
 * The rollup impact of key queries against the emulator (real HTTPS sockets, Cube's own matcher): production
 * runs the rollup model, each pull request's branch one of its edits; every key query is planned with
 * `/v1/sql` on both sides and the plans compared: a rollup lost, gained, moved; a rollup rebuilt (its build SQL
 * changed, or renamed with the same SQL), not rebuilt (`sql_alias` renamed, members reordered); a build range
 * that leaves part of a query's range out; a persona whose row filter moves its query off the rollup.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGitHubStandin } from '../packages/emulator/src/index.js';
import { runActionCommand } from '../src/commands/index.js';
import { runCli } from '../src/main.js';
import { pullRequestEvent, writeEvent } from './support/payloads.js';
import type { Persona } from '../src/impact/access/types.js';
import type { DataDiffPlan } from '../src/impact/data/plan.js';
import type { KeyQuery } from '../src/impact/data/types.js';
import type { OpContext } from '../src/operations/context.js';
import { analyseImpact } from '../src/operations/impact.js';
import { rollupPlansStep } from '../src/operations/rollup-plans.js';
import { MemoryReporter } from '../src/report/reporter.js';
import { cliIo, emulatorFixture, uploadTree, type EmulatorFixture } from './support/emulator.js';
import { ROLLUP_MODEL, ROLLUP_VARIANTS, ROLLUP_WITH_ROW_FILTER } from './support/rollup-model.js';
import { modelDefinition } from '../src/impact/definition/source.js';
import { rollupQuery } from '../src/impact/rollups/definitions.js';
import { findEnvironments } from '../src/operations/impact.js';
import { dataApiClient, mint } from '../src/operations/data-api.js';
import { planQuery } from '../src/operations/rollup-plans.js';

let fx: EmulatorFixture;
const ORDERS = 'model/cubes/orders.yml';
/** The partitioned rollup by the hour: an hourly query gains it, and its build SQL changes. */
const HOURLY_ROLLUP = { ...ROLLUP_MODEL, [ORDERS]: ROLLUP_MODEL[ORDERS]!.replace('        granularity: day\n', '        granularity: hour\n') };
/** The partitioned rollup without its status dimension (a real project's commit): no key query is served by it on both sides. */
const STATUS_DROPPED = { ...ROLLUP_MODEL, [ORDERS]: ROLLUP_MODEL[ORDERS]!.replace('        dimensions: [status]\n', '') };
const BRANCHES: Record<string, Record<string, string>> = {
  'pr-status-dropped': STATUS_DROPPED,
  'pr-renamed': ROLLUP_VARIANTS.renamed,
  'pr-reordered': ROLLUP_VARIANTS.reordered,
  'pr-aliased': ROLLUP_VARIANTS.aliasedRenamed,
  'pr-dimension': ROLLUP_VARIANTS.dimensionRenamed,
  'pr-two': ROLLUP_VARIANTS.twoRollups,
  'pr-short': ROLLUP_VARIANTS.shortRange,
  'pr-hourly': HOURLY_ROLLUP,
  'pr-row-filter': ROLLUP_WITH_ROW_FILTER,
};

const ctx = (): OpContext & { reporter: MemoryReporter } => ({
  client: fx.admin,
  deploymentId: 1,
  reporter: new MemoryReporter(),
  dryRun: false,
  ca: fx.em.ca,
});
const key = (name: string, query: KeyQuery['query']): KeyQuery => ({ name, source: 'file', query });
const KEYS: KeyQuery[] = [
  key('by status', { measures: ['orders.count'], dimensions: ['orders.status'] }),
  key('by country', {
    measures: ['orders.count'],
    dimensions: ['customers.country'],
    timeDimensions: [{ dimension: 'orders.created_at', granularity: 'month' }],
  }),
  key('hourly', {
    measures: ['orders.count'],
    timeDimensions: [{ dimension: 'orders.created_at', granularity: 'hour', dateRange: ['2025-01-01', '2025-01-07'] }],
  }),
  key('status in 2024', {
    measures: ['orders.count'],
    dimensions: ['orders.status'],
    timeDimensions: [{ dimension: 'orders.created_at', granularity: 'month', dateRange: ['2024-06-01', '2024-12-31'] }],
  }),
];
const limits = { maxQueries: 20, maxRows: 1000, concurrency: 2, queryTimeoutMs: 30_000, absTolerance: 0, relTolerance: 0 };
const plan = (mode: 'off' | 'values' = 'off', fork = false): DataDiffPlan => ({
  settings: { mode, allowPublic: false, securityContext: {}, limits, failOnChange: false },
  fileQueries: KEYS,
  ...(mode === 'off' ? { refusal: 'the data diff is off' } : {}),
  ...(fork ? { fork: true } : {}),
});
const SALES: Persona = { name: 'sales-us', groups: ['sales'], securityContext: { country: 'US' } };

beforeAll(async () => {
  fx = await emulatorFixture({ continueWaitPolls: 1 });
  await uploadTree(fx.admin, 1, 'main', ROLLUP_MODEL);
  for (const [branch, tree] of Object.entries(BRANCHES)) {
    await fx.admin.branches.create({ deploymentId: 1, body: { name: branch, from: 'main' } });
    await uploadTree(fx.admin, 1, branch, tree);
    await fx.admin.branches.setStagingEnvironment({ deploymentId: 1, body: { enabled: true, branchName: branch } });
  }
}, 120_000);
afterAll(() => fx.close());

/** The rollup impact of branch `branch` against production, with the data diff off (plans read no data). */
async function rollupsOf(branch: string, personas: Persona[] = [], p = plan()) {
  const c = ctx();
  const impact = await analyseImpact(c, { branch, deployBranch: 'main', headFiles: new Map(Object.entries(BRANCHES[branch]!)), personas });
  expect(impact.rollupsInModel).toBe(true);
  return { r: await rollupPlansStep(c, p, impact), reporter: c.reporter };
}

describe('rollup plans of key queries on production and on the preview', () => {
  it('a renamed rollup with the same SQL: its queries move to it and it is rebuilt (Cube names tables after the rollup)', async () => {
    const { r } = await rollupsOf('pr-renamed');
    expect(r.skipped).toBeUndefined();
    expect(r.changes).toContainEqual({ query: 'by status', production: 'orders.orders_by_status', preview: 'orders.orders_daily', change: 'moved' });
    expect(r.rebuilt).toEqual([
      { rollup: 'orders.orders_daily', reason: 'renamed from orders.orders_by_status: Cube names its tables after the rollup', partitionGranularity: 'month' },
    ]);
    expect(r.warning).toContain('cube-js/cube #11889');
  }, 60_000);

  it('reordered members and a sql_alias rollup renamed: no change, nothing rebuilt', async () => {
    for (const branch of ['pr-reordered', 'pr-aliased']) {
      const { r } = await rollupsOf(branch);
      expect(r.changes, branch).toEqual([]);
      expect(r.rebuilt, branch).toEqual([]);
      expect(r.planned).toBe(KEYS.length);
    }
  }, 60_000);

  it('a rollup dimension renamed: queries on the old name lose the rollup', async () => {
    const { r } = await rollupsOf('pr-dimension');
    expect(r.changes).toContainEqual({ query: 'by status', production: 'orders.orders_by_status', preview: null, change: 'lost' });
  }, 60_000);

  it('a dimension dropped from a rollup: rebuilt, though no key query is served by it on both sides (its own query planned on each)', async () => {
    const { r } = await rollupsOf('pr-status-dropped');
    expect(r.changes).toContainEqual({ query: 'by status', production: 'orders.orders_by_status', preview: null, change: 'lost' });
    expect(r.rebuilt).toEqual([{ rollup: 'orders.orders_by_status', reason: 'its build SQL changed', partitionGranularity: 'month' }]);
    // The sql_alias rollup, which the pull request does not change, is not listed.
    expect(r.rebuilt.map((b) => b.rollup)).not.toContain('orders.orders_by_customer_country');
  }, 60_000);

  it("each rollup's own query, as the files give it, is served by that rollup: Cube's matcher says so on production", async () => {
    const c = ctx();
    const defs = [...modelDefinition(new Map(Object.entries(ROLLUP_MODEL))).cubes.values()].flatMap((cube) => cube.rollups ?? []);
    expect(defs.map((d) => d.id).sort()).toEqual(['orders.orders_by_customer_country', 'orders.orders_by_status']);
    const envs = await findEnvironments(c, 'pr-renamed');
    const token = await mint(c, envs.production!, {}, ['sql']);
    const client = dataApiClient(c, new URL(envs.production!.restUrl).origin, token);
    try {
      for (const d of defs) {
        const p = await planQuery(client, `${new URL(envs.production!.restUrl).pathname}/sql`, { name: d.id, source: 'probe', query: rollupQuery(d) }, 30_000);
        expect('entries' in p && p.entries.filter((e) => e.type === 'rollup').map((e) => e.id), d.id).toEqual([d.id]);
      }
    } finally {
      await client.close();
    }
  }, 60_000);

  it('a second rollup listed first: queries both can serve move to it', async () => {
    const { r } = await rollupsOf('pr-two');
    expect(r.changes).toContainEqual({ query: 'by status', production: 'orders.orders_by_status', preview: 'orders.counts_by_status', change: 'moved' });
  }, 60_000);

  it('a rollup by the hour: the hourly query gains it, and its build SQL changed (rebuilt)', async () => {
    const { r } = await rollupsOf('pr-hourly');
    expect(r.changes).toContainEqual({ query: 'hourly', production: null, preview: 'orders.orders_by_status', change: 'gained' });
    expect(r.rebuilt).toEqual([{ rollup: 'orders.orders_by_status', reason: 'its build SQL changed', partitionGranularity: 'month' }]);
  }, 60_000);

  it('a build range that starts after a served query begins: truncated, with the literal build range', async () => {
    const { r } = await rollupsOf('pr-short');
    expect(r.changes).toEqual([]);
    // A build range is not part of the tables' structure: nothing is rebuilt.
    expect(r.rebuilt).toEqual([]);
    expect(r.truncated).toEqual([
      {
        query: 'status in 2024',
        rollup: 'orders.orders_by_status',
        queryRange: ['2024-06-01T00:00:00.000', '2024-12-31T23:59:59.999'],
        buildRange: ['2025-01-01', '2025-12-31'],
      },
    ]);
    // Production's full range covers it: nothing said there.
    expect((await rollupsOf('pr-reordered')).r.truncated).toEqual([]);
  }, 60_000);

  it("a persona's row filter outside the rollup moves its query off it, within the caps; tokens masked", async () => {
    const { r, reporter } = await rollupsOf('pr-row-filter', [SALES]);
    expect(r.changes).toContainEqual({ query: 'status in 2024', persona: 'sales-us', production: 'orders.orders_by_status', preview: null, change: 'lost' });
    // The persona's plans come on top of the run's own (the key queries, and the probes of the new dimension).
    expect(r.planned).toBeGreaterThan(KEYS.length + 1);
    expect(reporter.secrets.length).toBeGreaterThan(0);
    // No room left under the cap: the persona's queries are counted as not planned.
    const tight = plan();
    const c = ctx();
    const impact = await analyseImpact(c, {
      branch: 'pr-row-filter',
      deployBranch: 'main',
      headFiles: new Map(Object.entries(ROLLUP_WITH_ROW_FILTER)),
      personas: [SALES],
    });
    const capped = await rollupPlansStep(c, { ...tight, settings: { ...tight.settings, limits: { ...limits, maxQueries: KEYS.length } } }, impact);
    expect(capped.planned).toBe(KEYS.length);
    expect(capped.notRun).toBeGreaterThanOrEqual(KEYS.length);
    expect(capped.changes.some((c) => c.persona)).toBe(false);
  }, 90_000);

  it("never for a fork's pull request", async () => {
    // With the data diff off too: its refusal then speaks of the mode, not of the fork.
    const { r } = await rollupsOf('pr-renamed', [], plan('off', true));
    expect(r.skipped).toContain('fork');
    expect(r.planned).toBe(0);
  }, 60_000);
});

/** A checkout of branch `branch`'s model, with a key-queries file of the status query beside it. */
function checkout(branch: string): { dir: string; queries: string } {
  const dir = mkdtempSync(join(tmpdir(), 'dmci-rollups-'));
  for (const [path, content] of Object.entries(BRANCHES[branch]!)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  const queries = join(dir, 'key-queries.json');
  writeFileSync(queries, JSON.stringify({ queries: [{ name: 'by status', query: KEYS[0]!.query }] }));
  return { dir, queries };
}

describe('datamodel-ci diff and the pr lifecycle: the rollups in outputs, --json, the Cost section and fail-on-rollup-loss', () => {
  it('a dimension renamed: rollups-lost-count 1, result.rollups lists it; fail-on-rollup-loss fails the step', async () => {
    const { dir, queries } = checkout('pr-dimension');
    const args = ['diff', '--deployment-id', '1', '--branch', 'pr-dimension', '--model-dir', dir, '--data-diff-queries', queries];
    const t = cliIo(fx.em);
    expect(await runCli([...args, '--json'], t)).toBe(0);
    const out = JSON.parse(t.stdout.at(-1)!) as { outputs: Record<string, string>; result: { rollups: unknown[]; rebuilt: unknown[] } };
    // The rollup's dimension renamed changes its build: rebuilt, though no key query is served by it on both sides.
    expect(out.outputs).toMatchObject({ 'rollups-lost-count': '1', 'rollups-rebuilt-count': '1' });
    expect(out.result.rollups).toContainEqual({ query: 'by status', production: 'orders.orders_by_status', preview: null, change: 'lost' });
    expect(out.result.rebuilt).toEqual([{ rollup: 'orders.orders_by_status', reason: 'its build SQL changed', partitionGranularity: 'month' }]);
    // The change-set file holds the rollups and the Cube versions too (for later steps).
    const file = JSON.parse(readFileSync(out.outputs['change-set-file']!, 'utf8')) as Record<string, unknown>;
    expect(file.rollups).toEqual(out.result.rollups);
    expect(file.versions).toEqual((out.result as Record<string, unknown>).versions);
    const failing = cliIo(fx.em);
    expect(await runCli([...args, '--fail-on-rollup-loss'], failing)).toBe(1);
    expect(failing.stderr.join('\n')).toContain('fail-on-rollup-loss is true');
    expect(failing.stdout.join('\n') + failing.stderr.join('\n')).toContain('rollups: by status: lost: orders.orders_by_status → none');
  }, 90_000);
});

describe('the pr lifecycle', () => {
  it("the comment's Cost section lists the moved query and the rebuilt rollup, with the data diff off; outputs count them", async () => {
    const { dir, queries } = checkout('pr-renamed');
    const gh = await startGitHubStandin();
    try {
      gh.addPull({ number: 33, headSha: 'c'.repeat(40), headRef: 'rollups' });
      const lines: string[] = [];
      const env: NodeJS.ProcessEnv = {
        ...cliIo(fx.em).env,
        DATAMODEL_CI_CA_CERT: `${fx.em.ca}\n${gh.ca}`,
        DATAMODEL_CI_DEPLOYMENT_ID: '1',
        DATAMODEL_CI_GITHUB_TOKEN: 'ghs_rollup_impact_token_0123',
        DATAMODEL_CI_MODEL_DIR: dir,
        DATAMODEL_CI_DATA_DIFF_QUERIES: queries,
        GITHUB_REPOSITORY: gh.repository,
        GITHUB_API_URL: gh.url,
        GITHUB_EVENT_NAME: 'pull_request',
        GITHUB_EVENT_PATH: writeEvent(pullRequestEvent('opened', { number: 33, headSha: 'c'.repeat(40) })),
      };
      const code = await runActionCommand('pr', [], { out: (l) => lines.push(l), err: (l) => lines.push(l), env });
      expect(code, lines.join('\n')).toBe(0);
      expect(lines.join('\n')).toContain('rollups-rebuilt-count=1');
      expect(lines.join('\n')).toContain('rollups-lost-count=0');
      const path = /change-set-file=(\S+)/.exec(lines.join('\n'))?.[1];
      const file = JSON.parse(readFileSync(path!, 'utf8')) as { rebuilt: { rollup: string }[]; versions?: unknown };
      expect(file.rebuilt.map((r) => r.rollup)).toEqual(['orders.orders_daily']);
      expect(file.versions).toBeDefined();
      const body = gh.comments(33).at(-1)!.body;
      expect(body).toContain('**Cost**');
      expect(body).toContain('| `orders.orders_by_status` → `orders.orders_daily` | moved | 1 key query: `by status` |');
      expect(body).toContain('- `orders.orders_daily`: renamed from orders\\.orders\\_by\\_status');
      expect(body).toContain("production\\'s Cube Store");
    } finally {
      await gh.close();
    }
  }, 120_000);

  it('a key query naming a member neither semantic layer has: the step fails, the Numbers section names the file, the query and the member', async () => {
    const { dir } = checkout('pr-renamed');
    const typo = join(dir, 'typo-queries.json');
    writeFileSync(typo, JSON.stringify({ queries: [{ name: 'by status', query: { measures: ['orders.count'], dimensions: ['orders.stauts'] } }] }));
    const gh = await startGitHubStandin();
    try {
      gh.addPull({ number: 34, headSha: 'd'.repeat(40), headRef: 'typo' });
      const lines: string[] = [];
      const env: NodeJS.ProcessEnv = {
        ...cliIo(fx.em).env,
        DATAMODEL_CI_CA_CERT: `${fx.em.ca}\n${gh.ca}`,
        DATAMODEL_CI_DEPLOYMENT_ID: '1',
        DATAMODEL_CI_GITHUB_TOKEN: 'ghs_rollup_impact_token_0123',
        DATAMODEL_CI_MODEL_DIR: dir,
        DATAMODEL_CI_DATA_DIFF_QUERIES: typo,
        GITHUB_REPOSITORY: gh.repository,
        GITHUB_API_URL: gh.url,
        GITHUB_EVENT_NAME: 'pull_request',
        GITHUB_EVENT_PATH: writeEvent(pullRequestEvent('opened', { number: 34, headSha: 'd'.repeat(40) })),
      };
      const before = { ...fx.em.dataCounts };
      const code = await runActionCommand('pr', [], { out: (l) => lines.push(l), err: (l) => lines.push(l), env });
      expect(code, lines.join('\n')).toBe(1);
      const said = `key query "by status" names orders.stauts, which production's semantic layer does not have, nor the preview's (did you mean orders.status?)`;
      expect(lines.join('\n')).toContain(`data-diff-queries (${typo}): ${said}`);
      const body = gh.comments(34).at(-1)!.body;
      expect(body).toContain('**Numbers**: not compared: data\\-diff\\-queries \\(');
      expect(body).toContain("names orders\\.stauts, which production\\'s semantic layer does not have");
      expect(body).toContain('the key\\-queries file was refused \\(see Numbers\\)');
      // No query of the file reached the data API.
      expect(fx.em.dataCounts.load ?? 0).toBe(before.load ?? 0);
    } finally {
      await gh.close();
    }
  }, 120_000);
});
