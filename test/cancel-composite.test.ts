/**
 * Cancelling a job as the runner does it: SIGINT (then SIGTERM) to the step's shell process only, not
 * its process group. The composite step must `exec` node, or the signal never reaches it and a dbt run
 * keeps going on the platform. Runs the committed actions/dbt-sync-and-wait (dist/) in the harness.
 */
import { resolve, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../packages/emulator/src/index.js';
import { runAction } from './harness/runner.js';

const REPO = resolve(import.meta.dirname, '..');
let em: Emulator;
beforeAll(async () => {
  em = await startEmulator({ seed: 'demo', clock: { scale: 1 } });
});
afterAll(() => em.close());

describe('job cancellation reaches node through the composite step', () => {
  it('a cancelled dbt-sync-and-wait cancels the remote run before the runner kills the tree', async () => {
    const controller = new AbortController();
    const runs = () => em.state.deployments[0]!.dbtRuns;
    const before = runs().length;
    const watch = setInterval(() => {
      // Cancel once the run has started on the platform (the step is waiting for it).
      if (runs().length > before && !controller.signal.aborted) setTimeout(() => controller.abort(), 300);
    }, 20);
    const r = await runAction({
      actionDir: join(REPO, 'actions', 'dbt-sync-and-wait'),
      inputs: { 'api-url': em.baseUrl, 'api-key': em.credentials.admin, 'ca-cert': em.ca, 'deployment-id': '1', ref: 'main', 'timeout-minutes': '30' },
      signal: controller.signal,
      cancelGraceMs: 4_000,
    }).finally(() => clearInterval(watch));
    expect(controller.signal.aborted).toBe(true);
    expect(r.conclusion).toBe('cancelled');
    const run = runs().at(-1)!;
    expect(run.cancelledAt, 'the remote dbt run was left going: SIGINT did not reach node').toBeDefined();
  }, 30_000);
});
