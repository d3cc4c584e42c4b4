/**
 * `repoType: deployRepo` (issue 39, item 8). The vendor: every deployment keeps an internal Git repository
 * (the Cube Git remote); an outside repository is connected on top of it, and then pushes to the internal
 * remote's production branch are refused. So `deployRepo` says "the internal repository only": no outside
 * repository, uploads and merges feed production. A tenant may report it (profile `repo-type-deploy-repo`)
 * or say nothing (the default); the toolkit reads both the same, and still reads a repository connected
 * later (`repoType: git`) as connected. The lifecycle under the profile (a merge on close) is its tenant matrix row.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/main.js';
import { deployTarget } from '../src/operations/branch-build.js';
import type { OpContext } from '../src/operations/context.js';
import { MemoryReporter } from '../src/report/reporter.js';
import { control, emulatorFixture, type EmulatorFixture } from './support/emulator.js';

let fx: EmulatorFixture;
beforeAll(async () => {
  fx = await emulatorFixture();
});
afterAll(() => fx.close());

const ctx = (): OpContext => ({ client: fx.admin, deploymentId: 1, reporter: new MemoryReporter(), dryRun: false });

async function doctorText(): Promise<string> {
  const out: string[] = [];
  const env = {
    DATAMODEL_CI_API_URL: fx.em.baseUrl,
    DATAMODEL_CI_API_KEY: fx.em.credentials.admin,
    DATAMODEL_CI_CA_CERT: fx.em.ca,
    DATAMODEL_CI_DEPLOYMENT_ID: '1',
  };
  await runCli(['doctor'], { out: (l) => out.push(l), err: (l) => out.push(l), env });
  return out.join('\n');
}

describe('repoType: deployRepo', () => {
  it('reported by the tenant: the internal repository only, read as fed by uploads and merges (doctor says so); connected later, repoType git is connected', async () => {
    await control(fx.em, 'profiles', { profiles: ['repo-type-deploy-repo'] });
    try {
      const settings = await fx.admin.deployments.settings({ deploymentId: 1 });
      expect(settings.repoType).toBe('deployRepo');
      const target = await deployTarget(ctx());
      expect([target.connected, target.repository, target.mergeAllowed]).toEqual([undefined, undefined, true]);
      expect(await doctorText()).toMatch(/^✓ deploy settings: deploy branch main, fed by uploads and merges \(deploy mode git\)/m);
      // An outside repository connected afterwards: repoType says git, and the toolkit reads it as connected.
      await control(fx.em, 'profiles', { profiles: ['repo-type-deploy-repo', 'connected-later'] });
      expect((await deployTarget(ctx())).repository).toMatchObject({ evidence: 'repoType: git' });
      // Disconnected again: the internal repository only.
      await control(fx.em, 'profiles', { profiles: ['repo-type-deploy-repo'] });
      expect((await fx.admin.deployments.settings({ deploymentId: 1 })).repoType).toBe('deployRepo');
      expect((await deployTarget(ctx())).connected).toBeUndefined();
    } finally {
      await control(fx.em, 'profiles', { profiles: [] });
    }
  }, 60_000);

  it('not reported (the default tenant): the same reading', async () => {
    expect((await fx.admin.deployments.settings({ deploymentId: 1 })).repoType ?? null).toBeNull();
    expect((await deployTarget(ctx())).connected).toBeUndefined();
  });
});
