/**
 * The emulator's dbt sync behaves as the vendor measured the real service (issue 10): a run is
 * invisible for a while after its start, its branch is `dbt-sync/<ref segment>-<stamp>-<8 hex>`, an
 * older deployment ignores `ref`, and logs are paged with `first`/`after`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BadRequestError, NotFoundError, type PlatformClient } from '../src/client/index.js';
import { control, emulatorFixture, failure, type EmulatorFixture } from './support/emulator.js';

let fx: EmulatorFixture;
let c: PlatformClient;
const INVISIBLE_MS = 5_000;
const RUN_MS = 42_000;

beforeAll(async () => {
  fx = await emulatorFixture();
  c = fx.admin;
});
afterAll(() => fx.close());

const stamp = (ms: number) => new Date(ms).toISOString().replace(/[-:T]/g, '').slice(0, 14);

describe('a run is invisible just after its start', () => {
  it('status, logs and result answer 404 for dbtInvisibleMs, then the run shows', async () => {
    const run = await c.dbtSync.start({ deploymentId: 1, body: { ref: 'main' } });
    const args = { deploymentId: 1, syncJobId: run.syncJobId };
    fx.em.clock.advance(INVISIBLE_MS - 1);
    for (const read of [c.dbtSync.status, c.dbtSync.logs, c.dbtSync.result]) {
      const err = (await failure(read(args))) as NotFoundError;
      expect(err).toBeInstanceOf(NotFoundError);
      expect(err.platformMessage).toBe(`dbt sync "${run.syncJobId}" not found in deployment 1`);
    }
    fx.em.clock.advance(1);
    expect((await c.dbtSync.status(args)).status).toBe('RUNNING');
    fx.em.clock.advance(RUN_MS);
    expect((await c.dbtSync.result(args)).syncJobId).toBe(run.syncJobId);
  });

  it('dbtInvisibleMs is an option (0 allowed) and a tenant setting', async () => {
    const now = await emulatorFixture({ dbtInvisibleMs: 0 });
    try {
      const run = await now.admin.dbtSync.start({ deploymentId: 1, body: { ref: 'main' } });
      expect((await now.admin.dbtSync.status({ deploymentId: 1, syncJobId: run.syncJobId })).status).toBe('RUNNING');
    } finally {
      await now.close();
    }
    await control(fx.em, 'tenant', { dbtInvisibleMs: 60_000 });
    try {
      const run = await c.dbtSync.start({ deploymentId: 1, body: { ref: 'main' } });
      fx.em.clock.advance(INVISIBLE_MS);
      expect(await failure(c.dbtSync.status({ deploymentId: 1, syncJobId: run.syncJobId }))).toBeInstanceOf(NotFoundError);
    } finally {
      await control(fx.em, 'tenant', { dbtInvisibleMs: INVISIBLE_MS });
    }
  });
});

describe('the branch a run creates', () => {
  it('is dbt-sync/<ref segment>-<YYYYMMDDhhmmss>-<8 hex>, the segment mapped as the vendor measured', async () => {
    const cases: [string, string][] = [
      ['main', 'main'],
      ['release/v1.0 Final~2', 'release-v1.0-Final-2'],
      ['Feature_X.y-z', 'Feature_X.y-z'],
      ['#1-fix', '1-fix'],
      [`team/${'a'.repeat(50)}`, `team-${'a'.repeat(35)}`],
    ];
    for (const [ref, segment] of cases) {
      const at = fx.em.clock.now();
      const run = await c.dbtSync.start({ deploymentId: 1, body: { ref } });
      expect(run.branchName).toMatch(new RegExp(`^dbt-sync/${segment.replace(/[.]/g, '\\.')}-${stamp(at)}-[0-9a-f]{8}$`));
    }
  });

  it('is the caller’s name when one is given', async () => {
    expect((await c.dbtSync.start({ deploymentId: 1, body: { ref: 'develop', branchName: 'dbt/named' } })).branchName).toBe('dbt/named');
  });

  it('exists once the run completes, holding the generated models', async () => {
    const run = await c.dbtSync.start({ deploymentId: 1, body: { ref: 'develop' } });
    fx.em.clock.advance(RUN_MS + INVISIBLE_MS);
    expect((await c.dbtSync.status({ deploymentId: 1, syncJobId: run.syncJobId })).status).toBe('COMPLETED');
    const hashes = await c.dataModel.fileHashes({ deploymentId: 1, query: { branchName: run.branchName } });
    expect(Object.keys(hashes).some((p) => p.startsWith('model/dbt/'))).toBe(true);
  });
});

describe('an older deployment', () => {
  it('silently ignores ref and syncs its saved branch; the branch name shows the saved ref (option)', async () => {
    const older = await emulatorFixture({ olderDeployments: [1] });
    try {
      const run = await older.admin.dbtSync.start({ deploymentId: 1, body: { ref: 'develop' } });
      expect(run.branchName).toMatch(/^dbt-sync\/main-\d{14}-[0-9a-f]{8}$/);
      const history = await older.admin.dbtSync.list({ deploymentId: 1, query: { first: 1 } });
      expect(history.items[0]).toMatchObject({ syncJobId: run.syncJobId, gitRef: 'main' });
      const other = await older.admin.dbtSync.start({ deploymentId: 2, body: { ref: 'develop' } });
      expect(other.branchName).toMatch(/^dbt-sync\/develop-/);
    } finally {
      await older.close();
    }
  });

  it('can be set with a control route, with its saved ref', async () => {
    expect(await control(fx.em, 'dbt-sync/older', { deploymentId: 2, older: true, savedRef: 'release' })).toEqual({
      deploymentId: 2,
      older: true,
      savedRef: 'release',
    });
    try {
      const run = await c.dbtSync.start({ deploymentId: 2, body: { ref: 'v2.0.0' } });
      expect(run.branchName).toMatch(/^dbt-sync\/release-/);
    } finally {
      await control(fx.em, 'dbt-sync/older', { deploymentId: 2, older: false });
    }
    expect((await c.dbtSync.start({ deploymentId: 2, body: { ref: 'v2.0.0' } })).branchName).toMatch(/^dbt-sync\/v2\.0\.0-/);
    await expect(control(fx.em, 'dbt-sync/older', { deploymentId: 2, older: 'yes' })).rejects.toThrow('older: got "yes", expected true or false');
  });
});

describe('logs are paged with first/after', () => {
  it('pages through pageInfo to the same lines as one page; a bad `first` is a 400 naming it', async () => {
    const run = await c.dbtSync.start({ deploymentId: 1, body: { ref: 'main' } });
    fx.em.clock.advance(RUN_MS + INVISIBLE_MS);
    const path = `/api/v1/deployments/1/dbt-sync/${run.syncJobId}/logs`;
    const all = await c.dbtSync.logs({ deploymentId: 1, syncJobId: run.syncJobId });
    expect(all.items.length).toBeGreaterThan(8);
    const paged: unknown[] = [];
    let after: string | null | undefined;
    let pages = 0;
    do {
      const page = JSON.parse((await c.http.send({ method: 'GET', path: `${path}?first=4${after ? `&after=${after}` : ''}` })).text!);
      expect(page.items.length).toBeLessThanOrEqual(4);
      paged.push(...page.items);
      after = page.pageInfo.hasNextPage ? page.pageInfo.endCursor : undefined;
      pages += 1;
    } while (after);
    expect(pages).toBe(Math.ceil(all.items.length / 4));
    expect(paged).toEqual(all.items);
    const bad = (await failure(c.http.send({ method: 'GET', path: `${path}?first=0` }))) as BadRequestError;
    expect(bad).toBeInstanceOf(BadRequestError);
    expect(bad.platformMessage).toContain('query.first');
  });
});
