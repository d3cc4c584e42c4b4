/**
 * The doctor's persona-groups check against the emulator, under each group mapping a tenant may have: one
 * persona token with the groups production's policies name, its /meta beside the empty context's, whether
 * the groups take effect and which claim the deployment reads; a model whose policies name no group is
 * told apart (a probe group, nothing to tell); the mint's echo compared with the context sent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_MODEL } from '../packages/emulator/src/index.js';
import type { ProfileName } from '../packages/emulator/src/profiles.js';
import type { OpContext } from '../src/operations/context.js';
import type { Check } from '../src/operations/doctor.js';
import { groupsCheck } from '../src/operations/doctor-groups.js';
import { MemoryReporter } from '../src/report/reporter.js';
import { ACCESS_MODEL } from './support/access-model.js';
import { control, emulatorFixture, uploadTree, type EmulatorFixture } from './support/emulator.js';

let fx: EmulatorFixture;
const SLOW = 120_000;

const ctx = (): OpContext => ({ client: fx.admin, deploymentId: 1, reporter: new MemoryReporter(), dryRun: false, ca: fx.em.ca });

async function check(profiles: ProfileName[]): Promise<Check> {
  await control(fx.em, 'profiles', { profiles });
  try {
    const checks: Check[] = [];
    await groupsCheck(ctx(), (name, state, seen, action) => checks.push({ name, state, seen, action }), 'main', false);
    expect(checks).toHaveLength(1);
    return checks[0]!;
  } finally {
    await control(fx.em, 'profiles', { profiles: [] });
  }
}

async function production(tree: Record<string, string>): Promise<void> {
  await uploadTree(fx.admin, 1, 'main', tree);
  fx.em.clock.advance(60_000);
}

beforeAll(async () => {
  fx = await emulatorFixture({ continueWaitPolls: 0 });
}, SLOW);
afterAll(() => fx.close());

describe("doctor: do the personas' groups take effect, and through which claim", () => {
  it(
    'no policy names a group: a probe group, nothing to tell, said',
    async () => {
      const c = await check([]);
      expect(c.state).toBe('not checked');
      expect(c.seen).toContain('a persona token with group datamodel-ci-doctor-probe');
      expect(c.seen).toContain('whether groups take effect cannot be told here');
      expect(c.seen).toContain("the mint's echoed security context is the one sent");
    },
    SLOW,
  );

  describe('production under group policies (finance, sales, support)', () => {
    beforeAll(() => production(ACCESS_MODEL), SLOW);
    afterAll(() => production(DEMO_MODEL), SLOW);

    it(
      "the platform's mapping: groups take effect, read at cubeCloud.groups",
      async () => {
        const c = await check([]);
        expect(c).toMatchObject({ state: 'ok' });
        expect(c.seen).toContain('groups finance, sales, support');
        expect(c.seen).toContain('groups take effect; the deployment reads securityContext.cubeCloud.groups;');
      },
      SLOW,
    );

    it(
      'groups-top-level: groups take effect, read at the top-level groups',
      async () => {
        const c = await check(['groups-top-level']);
        expect(c.state).toBe('ok');
        expect(c.seen).toContain('the deployment reads securityContext.groups;');
      },
      SLOW,
    );

    it(
      'groups-from-roles: the groups do not reach; the deployment reads roles, and the personas file is told to set it',
      async () => {
        const c = await check(['groups-from-roles']);
        expect(c.state).toBe('failed');
        expect(c.seen).toContain('the groups do not reach the policies; the deployment reads securityContext.roles');
        expect(c.action).toContain("add roles with each persona's groups to its securityContext");
      },
      SLOW,
    );

    it(
      'minted-context-drops-cubecloud: the groups never reach; the echo shows the platform rewrote the context; with groups-top-level they reach',
      async () => {
        const c = await check(['minted-context-drops-cubecloud']);
        expect(c.state).toBe('failed');
        expect(c.seen).toContain('neither at securityContext.roles');
        expect(c.seen).toMatch(/echoed security context differs from the one sent at cubeCloud\.\w+/);
        const both = await check(['minted-context-drops-cubecloud', 'groups-top-level']);
        expect(both.state).toBe('ok');
        expect(both.seen).toContain('the deployment reads securityContext.groups;');
        expect(both.seen).toContain('echoed security context differs');
      },
      SLOW,
    );
  });
});
