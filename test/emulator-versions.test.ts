/**
 * The emulator's Cube versions against its own client over HTTPS: `releaseChannelVersionHold` set by a
 * `PUT` that picks a version not its channel's latest (unless the body sends it), and the automatic patch
 * upgrade a production deploy makes without a hold (the vendor's update-channels page), never with one;
 * the profiles that report the hold otherwise.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlatformClient } from '../src/client/index.js';
import { control, emulatorFixture, uploadTree, type EmulatorFixture } from './support/emulator.js';

let fx: EmulatorFixture;
let c: PlatformClient;
beforeAll(async () => {
  fx = await emulatorFixture();
  c = fx.admin;
}, 60_000);
afterAll(() => fx.close());

const current = async () => (await c.deployments.versions({ deploymentId: 2 })).items.find((v) => v.isCurrent)!.version;
/** A production deploy: an upload to the deploy branch (a cube of its own, nothing pruned). */
const deploy = (n: number) =>
  uploadTree(
    c,
    2,
    undefined,
    { [`model/cubes/hold_${n}.yml`]: `cubes:\n  - name: hold_${n}\n    sql_table: orders\n    measures:\n      - name: count\n        type: count\n` },
    false,
  );

describe('releaseChannelVersionHold', () => {
  it('a version not the latest is held unless the body says; without a hold a production deploy moves to the channel’s newest patch', async () => {
    try {
      const held = await c.deployments.update({ deploymentId: 2, body: { releaseChannel: 'release', releaseChannelVersion: '1.6.10' } });
      expect(held.releaseChannelVersionHold).toBe(true);
      await deploy(1);
      expect(await current()).toBe('1.6.10');
      const free = await c.deployments.update({ deploymentId: 2, body: { releaseChannelVersion: '1.6.10', releaseChannelVersionHold: false } });
      expect(free.releaseChannelVersionHold).toBe(false);
      expect(await current()).toBe('1.6.10');
      await deploy(2);
      expect(await current()).toBe('1.6.33');
      expect((await c.deployments.settings({ deploymentId: 2 })).releaseChannelVersion).toBe('cubejs/cube:v1.6.33');
    } finally {
      await c.deployments.update({ deploymentId: 2, body: { releaseChannel: 'latest', releaseChannelVersionHold: false } });
    }
  });

  it('profiles: version-hold-null says null for no hold (true when held), version-hold-unreported says nothing', async () => {
    try {
      await control(fx.em, 'profiles', { profiles: ['version-hold-null'] });
      expect((await c.deployments.settings({ deploymentId: 2 })).releaseChannelVersionHold).toBeNull();
      await c.deployments.update({ deploymentId: 2, body: { releaseChannel: 'release', releaseChannelVersion: '1.6.10' } });
      expect((await c.deployments.settings({ deploymentId: 2 })).releaseChannelVersionHold).toBe(true);
      await control(fx.em, 'profiles', { profiles: ['version-hold-unreported'] });
      expect('releaseChannelVersionHold' in (await c.deployments.settings({ deploymentId: 2 }))).toBe(false);
    } finally {
      await control(fx.em, 'profiles', { profiles: [] });
      await c.deployments.update({ deploymentId: 2, body: { releaseChannel: 'latest', releaseChannelVersionHold: false } });
    }
  });

  it('profile patch-upgrade-pending: production without a hold runs the patch before its channel’s newest until the next production deploy', async () => {
    try {
      await control(fx.em, 'profiles', { profiles: ['patch-upgrade-pending'] });
      expect(await current()).toBe('1.7.19');
      expect((await c.deployments.settings({ deploymentId: 2 })).releaseChannelVersionHold).toBe(false);
      await deploy(3);
      expect(await current()).toBe('1.7.20');
    } finally {
      await control(fx.em, 'profiles', { profiles: [] });
    }
  });
});
