/**
 * Who can see what, end to end on the emulator (Cube's own CompilerApi applies the policies in `/meta`,
 * over real HTTPS sockets, with tokens minted through the platform API under each persona's context): a
 * policy-only pull request reports no member removed, with or without personas; per persona, what is
 * hidden, exposed, masked or unmasked; a view guarded by group policies has its breaking change reported
 * (through the read with every group of the model, and through the persona that can see it); conditions on security-context attributes; the saved content a
 * persona loses; a tenant whose minted tokens drop the groups is said, not reported as fact (also through
 * `datamodel-ci diff --personas`).
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_MODEL, startGitHubStandin } from '../packages/emulator/src/index.js';
import { runActionCommand } from '../src/commands/index.js';
import type { Persona } from '../src/impact/access/types.js';
import type { OpContext } from '../src/operations/context.js';
import { analyseImpact, type ImpactResult } from '../src/operations/impact.js';
import { MemoryReporter } from '../src/report/reporter.js';
import { runCli } from '../src/main.js';
import { ACCESS_MODEL, DEMO_VIEW_FOR_FINANCE, FINANCE_VIEW, ORDERS_WITH_POLICIES, accessPersona } from './support/access-model.js';
import { pullRequestEvent, writeEvent } from './support/payloads.js';
import { cliIo, control, emulatorFixture, uploadTree, type EmulatorFixture } from './support/emulator.js';

let fx: EmulatorFixture;
const SLOW = 120_000;

const ctx = (): OpContext & { reporter: MemoryReporter } => ({
  client: fx.admin,
  deploymentId: 1,
  reporter: new MemoryReporter(),
  dryRun: false,
  ca: fx.em.ca,
});
const personas = (...names: string[]): Persona[] => names.map((n) => accessPersona(n));
const modelFiles = (tree: Record<string, string>) => new Map(Object.entries(tree).filter(([p]) => p.startsWith('model/')));

/** A pull request's preview: its branch from main, the tree uploaded, its staging environment on. */
async function stage(branch: string, tree: Record<string, string>): Promise<void> {
  await fx.admin.branches.create({ deploymentId: 1, body: { name: branch, from: 'main' } });
  await uploadTree(fx.admin, 1, branch, tree);
  await fx.admin.branches.setStagingEnvironment({ deploymentId: 1, body: { enabled: true, branchName: branch } });
}

/** The impact of a staged branch against production, as the impact action runs it. */
function impact(branch: string, tree: Record<string, string>, who: Persona[] = [], c = ctx()): Promise<ImpactResult> {
  return analyseImpact(c, { branch, deployBranch: 'main', headFiles: modelFiles(tree), personas: who });
}

const breaking = (r: ImpactResult) => r.changes!.members.filter((m) => m.breaking).map((m) => [m.member, m.change]);
const access = (r: ImpactResult) => r.access!.changes.map((c) => [c.persona, c.target, c.change]);

/** Production runs `tree` (an upload to the deploy branch rebuilds it). */
async function production(tree: Record<string, string>): Promise<void> {
  await uploadTree(fx.admin, 1, 'main', tree);
  fx.em.clock.advance(60_000);
}

const FINANCE_VIEW_WITHOUT_STATUS = {
  ...ACCESS_MODEL,
  'model/views/finance_view.yml': FINANCE_VIEW.replace('includes: [count, total_amount, status, created_at]', 'includes: [count, total_amount, created_at]'),
};
const FINANCE_VIEW_OPEN = { ...ACCESS_MODEL, 'model/views/finance_view.yml': FINANCE_VIEW.replace(/ {4}access_policy:[\s\S]*$/, '') };
const SUPPORT_UNMASKED = {
  ...ACCESS_MODEL,
  'model/cubes/orders.yml': ORDERS_WITH_POLICIES.replace(
    '          excludes: [total_amount]\n        member_masking:\n          includes: [total_amount]\n',
    '',
  ),
};
const FINANCE_MASKED = {
  ...ACCESS_MODEL,
  'model/cubes/orders.yml': ORDERS_WITH_POLICIES.replace(
    '      - group: finance\n        member_level:\n          includes: "*"\n',
    '      - group: finance\n        member_level:\n          includes: "*"\n          excludes: [total_amount]\n        member_masking:\n          includes: [total_amount]\n',
  ),
};
const MANAGER_CONDITION = {
  ...ACCESS_MODEL,
  'model/cubes/orders.yml': ORDERS_WITH_POLICIES.replace('securityContext.is_manager', 'securityContext.is_director'),
};

beforeAll(async () => {
  fx = await emulatorFixture({ continueWaitPolls: 0 });
  await stage('guarded-demo', DEMO_VIEW_FOR_FINANCE);
}, SLOW);
afterAll(() => fx.close());

describe('a policy-only pull request (the demo view made finance-only)', () => {
  it(
    'without personas: no member removed, no content broken; the access review names the policy it touches',
    async () => {
      const r = await impact('guarded-demo', DEMO_VIEW_FOR_FINANCE);
      expect(breaking(r)).toEqual([]);
      // A policy moves the numbers of what uses the view: named as such, never as broken.
      expect(r.affected.filter((a) => a.effect === 'breaks')).toEqual([]);
      expect(r.affected.every((a) => a.effect === 'numbers-move')).toBe(true);
      expect(r.access).toMatchObject({ personas: [], policyTargets: ['orders_view'], changes: [] });
      expect(r.access!.notices.join('\n')).toContain('touches the access policy of orders_view (added)');
      // The preview read with group finance (its policy's) lists the view whole: nothing for a policy to explain.
      expect(r.access!.notices.join('\n')).not.toContain('view orders_view: ');
      expect(r.layer).toEqual({ whole: true, groups: { production: [], preview: ['finance'] }, unseen: [] });
      expect(r.changes!.cubes.map((c) => [c.name, c.change, c.details])).toEqual([['orders_view', 'changed', ['access policy added']]]);
    },
    SLOW,
  );

  it(
    'with personas: hidden for the one no policy grants, nothing for finance; the reports the hidden one loses',
    async () => {
      const c = ctx();
      const r = await impact('guarded-demo', DEMO_VIEW_FOR_FINANCE, personas('finance', 'nobody'), c);
      // Every token is masked as soon as it is minted: the two default reads' and two per persona.
      expect(new Set(c.reporter.secrets).size).toBeGreaterThanOrEqual(6);
      expect(breaking(r)).toEqual([]);
      expect(access(r)).toEqual([['nobody', 'orders_view', 'hidden']]);
      expect(r.access!.changes[0]!.detail).toContain('no policy applies to it on the preview');
      expect(r.changes!.access).toEqual(r.access!.changes);
      const lost = r.access!.lost;
      expect(lost.length).toBeGreaterThan(0);
      expect(lost.every((l) => l.persona === 'nobody' && l.members.every((m) => m.startsWith('orders_view.')))).toBe(true);
      expect(lost.map((l) => l.kind)).toContain('report');
    },
    SLOW,
  );
});

describe('production with policies (groups, masking, conditions, a finance-only view)', () => {
  beforeAll(async () => {
    await production(ACCESS_MODEL);
    await stage('finance-view-status', FINANCE_VIEW_WITHOUT_STATUS);
    await stage('finance-view-open', FINANCE_VIEW_OPEN);
    await stage('support-unmasked', SUPPORT_UNMASKED);
    await stage('finance-masked', FINANCE_MASKED);
    await stage('manager-condition', MANAGER_CONDITION);
  }, SLOW);
  afterAll(() => production(DEMO_MODEL));

  it(
    "a group-guarded view's breaking change is reported without personas (the read with every group) and with them",
    async () => {
      const alone = await impact('finance-view-status', FINANCE_VIEW_WITHOUT_STATUS);
      expect(breaking(alone)).toEqual([['finance_view.status', 'removed']]);
      // Masking, a JavaScript cube's policies, `*` and conditions on the security context: every member the files declare is seen.
      expect(alone.layer).toEqual({
        whole: true,
        groups: { production: ['finance', 'sales', 'support'], preview: ['finance', 'sales', 'support'] },
        unseen: [],
      });
      const r = await impact('finance-view-status', FINANCE_VIEW_WITHOUT_STATUS, personas('finance', 'support'));
      expect(breaking(r)).toEqual([['finance_view.status', 'removed']]);
      expect(access(r)).toEqual([]);
    },
    SLOW,
  );

  it(
    'exposed: the view opened to everyone, for each persona it was hidden from; no member "added"',
    async () => {
      const r = await impact('finance-view-open', FINANCE_VIEW_OPEN, personas('finance', 'support', 'nobody'));
      expect(access(r)).toEqual([
        ['support', 'finance_view', 'exposed'],
        ['nobody', 'finance_view', 'exposed'],
      ]);
      expect(r.changes!.members.filter((m) => m.change === 'added')).toEqual([]);
      expect(r.access!.policyTargets).toEqual(['finance_view']);
    },
    SLOW,
  );

  it(
    'unmasked: support reads the amount in full where it read its mask; masked: finance reads it masked where it read it in full',
    async () => {
      const r = await impact('support-unmasked', SUPPORT_UNMASKED, personas('finance', 'support'));
      expect(access(r)).toEqual([['support', 'orders.total_amount', 'unmasked']]);
      expect(breaking(r)).toEqual([]);
      expect(r.access!.rowFilters!.find((f) => f.persona === 'support' && f.target === 'orders')).toMatchObject({
        production: { all: true },
        preview: { all: true },
      });
      const m = await impact('finance-masked', FINANCE_MASKED, personas('finance', 'support'));
      // The cube's mask reaches the views over it: Cube masks the views' amount for finance too.
      expect(access(m)).toEqual([
        ['finance', 'orders.total_amount', 'masked'],
        ['finance', 'finance_view.total_amount', 'masked'],
        ['finance', 'orders_view.total_amount', 'masked'],
      ]);
      expect(m.access!.changes[0]!.detail).toContain('only member_masking gives it (group finance)');
      expect(m.access!.changes[2]!.detail).toContain('it stands for orders.total_amount: the access policy of orders reaches it through the view');
    },
    SLOW,
  );

  it(
    'a condition on a security-context attribute: the manager loses the orders when the condition names another attribute',
    async () => {
      const r = await impact('manager-condition', MANAGER_CONDITION, personas('manager', 'finance'));
      expect(access(r)).toEqual([['manager', 'orders', 'hidden']]);
      expect(breaking(r)).toEqual([]);
      expect(r.access!.changes[0]!.detail).toContain('securityContext.is_director');
    },
    SLOW,
  );
  it(
    "a tenant whose minted tokens drop the persona's groups: production's /meta hiding what the policy grants is a notice, the persona's changes not reported",
    async () => {
      await control(fx.em, 'profiles', { profiles: ['minted-context-drops-cubecloud'] });
      try {
        const r = await impact('finance-view-status', FINANCE_VIEW_WITHOUT_STATUS, personas('finance', 'support'));
        expect(r.access!.notices.join('\n')).toMatch(/persona finance: production's \/meta hides .*granted to group finance/);
        expect(r.access!.changes.filter((c) => c.persona === 'finance')).toEqual([]);
        // The same through `datamodel-ci diff --personas FILE`: the file read, the personas' tokens minted, the notice printed.
        const dir = mkdtempSync(join(tmpdir(), 'dmci-access-'));
        for (const [path, text] of Object.entries(FINANCE_VIEW_WITHOUT_STATUS)) {
          mkdirSync(dirname(join(dir, path)), { recursive: true });
          writeFileSync(join(dir, path), text);
        }
        const file = join(dir, 'personas.yml');
        writeFileSync(file, 'personas:\n  - name: finance\n    groups: [finance]\n');
        const t = cliIo(fx.em);
        expect(await runCli(['diff', '--deployment-id', '1', '--branch', 'finance-view-status', '--model-dir', dir, '--personas', file], t)).toBe(0);
        expect(t.stderr.join('\n')).toMatch(/persona finance: production's \/meta hides .*granted to group finance/);
        // And through the pr lifecycle (the root action): the personas reach the preview's impact.
        const gh = await startGitHubStandin();
        try {
          gh.addPull({ number: 31, headSha: 'a'.repeat(40), headRef: 'access' });
          const lines: string[] = [];
          const env: NodeJS.ProcessEnv = {
            ...cliIo(fx.em).env,
            DATAMODEL_CI_CA_CERT: `${fx.em.ca}\n${gh.ca}`,
            DATAMODEL_CI_DEPLOYMENT_ID: '1',
            DATAMODEL_CI_GITHUB_TOKEN: 'ghs_access_token_0123',
            DATAMODEL_CI_MODEL_DIR: dir,
            DATAMODEL_CI_PERSONAS: file,
            GITHUB_REPOSITORY: gh.repository,
            GITHUB_API_URL: gh.url,
            GITHUB_EVENT_NAME: 'pull_request',
            GITHUB_EVENT_PATH: writeEvent(pullRequestEvent('opened', { number: 31, headSha: 'a'.repeat(40) })),
          };
          const code = await runActionCommand('pr', [], { out: (l) => lines.push(l), err: (l) => lines.push(l), env });
          expect(code, lines.join('\n')).toBe(0);
          expect(lines.join('\n')).toMatch(/persona finance: production's \/meta hides .*granted to group finance/);
        } finally {
          await gh.close();
        }
      } finally {
        await control(fx.em, 'profiles', { profiles: [] });
      }
    },
    SLOW,
  );
});
