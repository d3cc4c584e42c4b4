/**
 * Do the personas' groups reach the policies? A pull request adding the first policy (the demo view made
 * finance-only) reviewed under each plausible group mapping of a tenant, on the emulator (Cube's own
 * CompilerApi decides each /meta): the platform's (`cubeCloud.groups`, the default), a `contextToGroups`
 * reading the top-level `groups`, one reading another claim (`roles`), and a platform that drops the
 * token's `cubeCloud`. Where the groups reach, the review is right; where they do not, it says so with what
 * to set, reports no persona's change as fact, and `fail-on-exposure` fails closed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Persona } from '../src/impact/access/types.js';
import type { OpContext } from '../src/operations/context.js';
import { analyseImpact, type ImpactResult } from '../src/operations/impact.js';
import { accessView, renderAccess } from '../src/pr/comment/render-access.js';
import { facetChecks, type FacetSettings } from '../src/pr/facet-checks.js';
import { presentImpact } from '../src/pr/presenters.js';
import { MemoryReporter } from '../src/report/reporter.js';
import { DEMO_VIEW_FOR_FINANCE, accessPersona } from './support/access-model.js';
import { control, emulatorFixture, uploadTree, type EmulatorFixture } from './support/emulator.js';
import type { ProfileName } from '../packages/emulator/src/profiles.js';

let fx: EmulatorFixture;
const SLOW = 120_000;
const BRANCH = 'first-policy';

const ctx = (): OpContext => ({ client: fx.admin, deploymentId: 1, reporter: new MemoryReporter(), dryRun: false, ca: fx.em.ca });
const modelFiles = (tree: Record<string, string>) => new Map(Object.entries(tree).filter(([p]) => p.startsWith('model/')));

/** The review of the first policy under a tenant's profiles. */
async function review(profiles: ProfileName[], personas: Persona[]): Promise<ImpactResult> {
  await control(fx.em, 'profiles', { profiles });
  try {
    return await analyseImpact(ctx(), { branch: BRANCH, deployBranch: 'main', headFiles: modelFiles(DEMO_VIEW_FOR_FINANCE), personas });
  } finally {
    await control(fx.em, 'profiles', { profiles: [] });
  }
}

const access = (r: ImpactResult) => r.access!.changes.map((c) => [c.persona, c.target, c.change]);
const settings: FacetSettings = {
  impact: true,
  dataDiff: false,
  personas: true,
  gates: { breaking: false, dataChange: false, exposure: true, rollupLoss: false, versionSkew: false },
  modelDir: 'model',
};
const accessCheck = (r: ImpactResult) => facetChecks({ impact: r }, settings).find((c) => c.facet === 'access')!;
const PERSONAS = () => [accessPersona('finance'), accessPersona('nobody')];

beforeAll(async () => {
  fx = await emulatorFixture({ continueWaitPolls: 0 });
  await fx.admin.branches.create({ deploymentId: 1, body: { name: BRANCH, from: 'main' } });
  await uploadTree(fx.admin, 1, BRANCH, DEMO_VIEW_FOR_FINANCE);
  await fx.admin.branches.setStagingEnvironment({ deploymentId: 1, body: { enabled: true, branchName: BRANCH } });
}, SLOW);
afterAll(() => fx.close());

describe('the first access policy, under each group mapping a tenant may have', () => {
  for (const profiles of [[], ['groups-top-level']] as ProfileName[][]) {
    it(
      `${profiles[0] ?? 'the platform’s (cubeCloud.groups)'}: the groups reach; nobody loses the view, finance keeps it`,
      async () => {
        const r = await review(profiles, PERSONAS());
        expect(r.access!.groupsUnreached).toBeUndefined();
        expect(access(r)).toEqual([['nobody', 'orders_view', 'hidden']]);
        expect(r.access!.notices.join('\n')).not.toMatch(/do not reach|another security context/);
        expect(accessCheck(r).conclusion).toBe('neutral');
        expect(presentImpact(r, false, true).failure).toBeUndefined();
      },
      SLOW,
    );
  }

  for (const profile of ['groups-from-roles', 'minted-context-drops-cubecloud'] as const) {
    it(
      `${profile}: the personas' groups do not reach the policies: said with what to set, no change reported, fail-on-exposure fails closed`,
      async () => {
        const r = await review([profile], PERSONAS());
        const u = r.access!.groupsUnreached!;
        expect(u).toBeDefined();
        // Production has no policy: only the preview can tell.
        expect(u.sides).toEqual(['preview']);
        expect(u.evidence[0]).toContain('orders_view.');
        expect(u.remedy).toMatch(/securityContext\.cubeCloud\.groups.*securityContext\.groups.*contextToGroups.*roles/);
        expect(r.access!.changes).toEqual([]);
        expect(r.access!.notices[0]).toMatch(/^the personas' groups do not reach the policies on this deployment \(on the preview\)/);
        const check = accessCheck(r);
        expect(check.conclusion).toBe('failure');
        expect(check.title).toContain("The personas' groups do not reach the policies on this deployment");
        expect(presentImpact(r, false, true).failure).toContain("the personas' groups do not reach the policies on this deployment");
        // Never green, even ungated.
        expect(facetChecks({ impact: r }, { ...settings, gates: { ...settings.gates, exposure: false } }).find((c) => c.facet === 'access')!.conclusion).toBe(
          'neutral',
        );
        const section = renderAccess(accessView(r.access!), { target: 'comment' }).join('\n');
        expect(section).toContain("the personas' groups do not reach the policies on this deployment");
        expect(section).not.toContain('no persona sees anything differently');
        // The platform that rewrites the context says so: the echo differs at cubeCloud.
        const echo = r.access!.notices.filter((n) => n.includes('carries another security context than the one sent'));
        if (profile === 'minted-context-drops-cubecloud') {
          expect(echo.join('\n')).toMatch(/personas finance, nobody: .*differs at cubeCloud\.userAttributes, cubeCloud\.groups/);
          expect(u.remedy).toContain('the echoed security_context differs');
        } else expect(echo).toEqual([]);
      },
      SLOW,
    );
  }

  it(
    'groups-from-roles, with the claim the deployment reads set in the personas: the groups reach, the review is right',
    async () => {
      const withRoles = PERSONAS().map((p) => ({ ...p, securityContext: { ...p.securityContext, roles: p.groups } }));
      const r = await review(['groups-from-roles'], withRoles);
      expect(r.access!.groupsUnreached).toBeUndefined();
      expect(access(r)).toEqual([['nobody', 'orders_view', 'hidden']]);
    },
    SLOW,
  );
});
