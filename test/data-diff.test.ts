/**
 * A pull request that changes only a measure's sql, end to end on the emulator (Cube's compiler, its
 * SQL on Postgres with the demo data): the definition diff names the measure as a "values change",
 * the data diff runs the reports that use it and probes of it on production and on the staging
 * environment, and says how the numbers moved; `datamodel-ci diff --data` gives the same with its
 * outputs, JSON file and `fail-on-data-change`; the relative mode keeps no value.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_MODEL } from '../packages/emulator/src/index.js';
import { dataDiffFor } from '../src/operations/data-diff.js';
import type { DataDiffSettings } from '../src/impact/data/types.js';
import type { DataDiffResult } from '../src/impact/data/types.js';
import { runCli } from '../src/main.js';
import { MemoryReporter } from '../src/report/reporter.js';
import type { OpContext } from '../src/operations/context.js';
import { enableStaging } from '../src/operations/enable-staging.js';
import { analyseImpact, impactSummaryLine } from '../src/operations/impact.js';
import { walkModel } from '../src/model/local-model.js';
import { localModelFiles } from '../src/model/model-files.js';
import { ensureSharedBranch } from '../src/operations/start-dev-branch.js';
import { uploadModel } from '../src/operations/upload-model.js';
import { cliIo, localOf, emulatorFixture, type EmulatorFixture } from './support/emulator.js';

let fx: EmulatorFixture;
let dir: string;
const BRANCH = 'preview-pr-60';
/** Cancelled orders no longer count as revenue: only the measure's sql changes. */
const SQL = "CASE WHEN status = 'cancelled' THEN 0 ELSE amount END";
const CHANGED = { ...DEMO_MODEL, 'model/cubes/orders.yml': DEMO_MODEL['model/cubes/orders.yml']!.replace('        sql: amount\n', `        sql: "${SQL}"\n`) };

const ctx = (): OpContext & { reporter: MemoryReporter } => ({
  client: fx.admin,
  deploymentId: 1,
  reporter: new MemoryReporter(),
  dryRun: false,
  ca: fx.em.ca,
});

beforeAll(async () => {
  fx = await emulatorFixture({ continueWaitPolls: 1 });
  dir = mkdtempSync(join(tmpdir(), 'dmci-data-'));
  for (const [path, content] of Object.entries(CHANGED)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  await ensureSharedBranch(ctx(), BRANCH, 'main');
  await uploadModel(ctx(), { branch: BRANCH, modelDir: dir, local: await localOf(dir), concurrency: 4, commitMessage: BRANCH });
  await enableStaging(ctx(), { branch: BRANCH, smokeTest: false });
}, 60_000);
afterAll(() => fx.close());

const SETTINGS: DataDiffSettings & { mode: 'values' } = {
  mode: 'values',
  allowPublic: false,
  securityContext: {},
  limits: { maxQueries: 20, maxRows: 1000, concurrency: 4, queryTimeoutMs: 30_000, absTolerance: 0, relTolerance: 0 },
  failOnChange: false,
};

describe("a pull request that changes only a measure's sql", () => {
  it('is a "values change" of the measure (and of what stands for it), breaking nothing', async () => {
    const r = await analyseImpact(ctx(), { branch: BRANCH, deployBranch: 'main', headFiles: await localModelFiles(await walkModel(dir), dir) });
    expect(r.changes!.members.filter((m) => m.values).map((m) => [m.member, m.details])).toEqual([['orders.total_amount', [`sql amount → ${SQL}`]]]);
    expect(r.definition!.values).toEqual([
      { member: 'orders.total_amount', why: `sql amount → ${SQL}` },
      { member: 'orders_view.total_amount', why: 'stands for orders.total_amount' },
    ]);
    expect(impactSummaryLine(r)).toBe(
      '0 breaking, 1 values change, 0 added, 0 changed; no content breaks; numbers move on 2 reports, 1 dashboard and 1 notification',
    );
  });

  it('the data diff shows how its numbers moved: the reports that use it and probes of the measure, on both environments', async () => {
    const c = ctx();
    const r = await analyseImpact(c, { branch: BRANCH, deployBranch: 'main', headFiles: await localModelFiles(await walkModel(dir), dir) });
    const d = (await dataDiffFor(c, r, SETTINGS, [])) as DataDiffResult;
    expect(d.queries.map((q) => [q.name, q.status])).toEqual([
      ['Report “Revenue by country”', 'unchanged'],
      ['Report “Revenue by month”', 'changed'],
      ['orders.total_amount: total', 'changed'],
      ['orders.total_amount by month (last 12 months of orders.created_at)', 'changed'],
      ['orders.total_amount by orders.status (first 20)', 'changed'],
    ]);
    // "Revenue by country" counts completed and shipped orders only: cancelled ones never reached it.
    const byStatus = d.queries[4]!.comparison!;
    expect(byStatus).toMatchObject({ rows: { base: 5, head: 5 }, changed: 1, added: 0, removed: 0 });
    expect(byStatus.largest).toEqual([
      { measure: 'orders.total_amount', rel: -1, abs: expect.any(Number), key: 'status = cancelled', base: expect.any(Number), head: 0 },
    ]);
    const total = d.queries[2]!.comparison!;
    expect(total.largest[0]!.rel).toBeLessThan(-0.05);
    expect(total.largest[0]!.abs).toBeCloseTo(-(byStatus.largest[0]!.base as number), 2);
    expect(d.changed).toBe(4);
    // Tokens minted for the two environments are masked.
    expect(c.reporter.secrets.length).toBeGreaterThanOrEqual(4);
  }, 60_000);
});

describe('datamodel-ci diff --data', () => {
  const io = (extra: NodeJS.ProcessEnv = {}) => cliIo(fx.em, extra);
  const args = ['diff', '--deployment-id', '1', '--branch', BRANCH];

  it('--json: the outputs, the data diff as "result.dataDiff" and its JSON file; a team key-queries file runs first', async () => {
    const queries = join(dir, 'key-queries.json');
    writeFileSync(
      queries,
      JSON.stringify({ queries: [{ name: 'Revenue by status', query: { measures: ['orders_view.total_amount'], dimensions: ['orders_view.status'] } }] }),
    );
    const t = io();
    expect(await runCli([...args, '--model-dir', dir, '--data', '--data-diff-queries', queries, '--json'], t)).toBe(0);
    const out = JSON.parse(t.stdout.at(-1)!) as { outputs: Record<string, string>; result: { dataDiff: DataDiffResult } };
    expect(out.outputs).toMatchObject({ 'values-changed-count': '1', 'breaking-count': '0', 'data-changed-count': '5', status: 'compatible' });
    expect(out.result.dataDiff.queries[0]).toMatchObject({ name: 'Revenue by status', source: 'file', status: 'changed' });
    const file = JSON.parse(readFileSync(out.outputs['data-diff-file']!, 'utf8')) as DataDiffResult & { head: string };
    expect(file).toMatchObject({ head: BRANCH, mode: 'values', changed: 5 });
  }, 60_000);

  it('--data-diff relative: the JSON file holds row counts and relative changes, never a value or a row key', async () => {
    const t = io();
    expect(await runCli([...args, '--model-dir', dir, '--data-diff', 'relative', '--data-diff-max-queries', '3'], t)).toBe(0);
    const path = t.stdout.find((l) => l.startsWith('data-diff-file='))!.slice('data-diff-file='.length);
    const file = JSON.parse(readFileSync(path, 'utf8')) as DataDiffResult;
    expect(file.mode).toBe('relative');
    expect(file.notRun).toBe(2);
    for (const q of file.queries) {
      expect(q.comparison!.top).toEqual([]);
      expect([...q.comparison!.addedKeys, ...q.comparison!.removedKeys]).toEqual([]);
      for (const l of q.comparison!.largest) expect(Object.keys(l).sort()).toEqual(['measure', 'rel']);
    }
    // The queries are the file's (no data); their answers keep no value.
    expect(JSON.stringify(file.queries.map((q) => q.comparison))).not.toMatch(/cancelled|completed|Germany|"abs"|"key"/);
    expect(file.queries[1]!.comparison!.largest[0]!.rel).toBeLessThan(0);
  }, 60_000);

  it('fail-on-data-change fails the step; a bad key-queries file or tolerance is refused before any call', async () => {
    const failing = io();
    expect(await runCli([...args, '--model-dir', dir, '--data', '--data-diff-max-queries', '2', '--fail-on-data-change'], failing)).toBe(1);
    expect(failing.stderr.join('\n')).toContain(`${BRANCH} changes the results of 1 key query against production (fail-on-data-change is true)`);
    const before = { ...fx.em.counts };
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ queries: [{ name: 'x', query: { measures: 'orders.count' } }] }));
    const t = io();
    expect(await runCli([...args, '--model-dir', dir, '--data', '--data-diff-queries', bad], t)).toBe(2);
    expect(t.stderr.join('\n')).toContain(
      `data-diff-queries: got ${JSON.stringify(bad)}, expected a file whose queries[0].query is a data API query (it .measures is not a list of member names (cube.member))`,
    );
    const tol = io({ DATAMODEL_CI_DATA_DIFF_REL_TOLERANCE: '-1' });
    expect(await runCli([...args, '--model-dir', dir, '--data'], tol)).toBe(2);
    expect(tol.stderr.join('\n')).toContain('data-diff-rel-tolerance: got "-1", expected a number of at least 0');
    expect(fx.em.counts).toEqual(before);
  }, 60_000);

  it('a key query naming a member neither layer has fails the step before any query runs, naming the query, the member and the names near it', async () => {
    const typo = join(dir, 'typo-queries.json');
    writeFileSync(
      typo,
      JSON.stringify({
        queries: [
          { name: 'Revenue by status', query: { measures: ['orders_view.total_amount'], dimensions: ['orders_view.stauts'] } },
          { name: 'Orders', query: { measures: ['orders.count'], filters: [{ member: 'orderz.status', operator: 'set' }] } },
        ],
      }),
    );
    const before = { ...fx.em.dataCounts };
    const t = io();
    // Bad input found by reading the platform: exit 2, as a bad flag is.
    expect(await runCli([...args, '--model-dir', dir, '--data', '--data-diff-queries', typo], t)).toBe(2);
    const said = t.stderr.join('\n');
    expect(said).toContain(
      `data-diff-queries (${typo}): key query "Revenue by status" names orders_view.stauts, which production's semantic layer does not have, nor the preview's (did you mean orders_view.status?)`,
    );
    expect(said).toContain(
      `key query "Orders" names orderz.status, which production's semantic layer does not have, nor the preview's (did you mean orders.status?)`,
    );
    expect(said).not.toContain('failed');
    // No query was loaded: the file's queries never ran (the rollup plans of the derived probes still read /sql).
    const ran = Object.keys(fx.em.dataCounts).filter((k) => fx.em.dataCounts[k] !== before[k]);
    expect(ran).toContain('meta');
    expect(ran).not.toContain('load');
    expect(t.stdout).toContain('data-changed-count=');
  }, 60_000);
});
