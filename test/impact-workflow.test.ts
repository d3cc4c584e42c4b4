/**
 * The impact step against the emulator over HTTPS: production's and a staging environment's `/meta`
 * from Cube's compiler, the seeded reports, dashboard and notifications, and what a key that may not
 * read everything gets (notices, never a failure, nothing changed on the platform).
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_MODEL } from '../packages/emulator/src/index.js';
import type { PlatformClient } from '../src/client/index.js';
import { MemoryReporter } from '../src/report/reporter.js';
import type { OpContext } from '../src/operations/context.js';
import { enableStaging } from '../src/operations/enable-staging.js';
import { analyseImpact, impactSummaryLine } from '../src/operations/impact.js';
import { walkModel } from '../src/model/local-model.js';
import { localModelFiles } from '../src/model/model-files.js';
import { ensureSharedBranch } from '../src/operations/start-dev-branch.js';
import { uploadModel } from '../src/operations/upload-model.js';
import { runCli } from '../src/main.js';
import { cliIo, localOf, emulatorFixture, snapshot, type EmulatorFixture } from './support/emulator.js';

let fx: EmulatorFixture;
beforeAll(async () => {
  fx = await emulatorFixture();
});
afterAll(() => fx.close());

function ctx(client: PlatformClient = fx.admin): OpContext & { reporter: MemoryReporter } {
  return { client, deploymentId: 1, reporter: new MemoryReporter(), dryRun: false, ca: fx.em.ca };
}

function modelDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'dmci-impact-'));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return dir;
}

/** The demo model without `customers.country` (and the view's include of it). */
const WITHOUT_COUNTRY = {
  ...DEMO_MODEL,
  'model/cubes/customers.yml': DEMO_MODEL['model/cubes/customers.yml']!.replace('      - name: country\n        sql: country\n        type: string\n', ''),
  'model/views/orders_view.yml': DEMO_MODEL['model/views/orders_view.yml']!.replace('          - country\n', ''),
};

/** A shared branch holding `files`, its staging environment on. */
async function branchWith(name: string, files: Record<string, string>, staging = true): Promise<string> {
  const dir = modelDir(files);
  await ensureSharedBranch(ctx(), name, 'main');
  await uploadModel(ctx(), { branch: name, modelDir: dir, local: await localOf(dir), concurrency: 4, commitMessage: name });
  if (staging) await enableStaging(ctx(), { branch: name, smokeTest: false });
  return dir;
}

describe('impact', () => {
  it('a member removed: breaking, under the cube and the view, with every report, dashboard and notification that uses it', async () => {
    const dir = await branchWith('preview-pr-40', WITHOUT_COUNTRY);
    const before = snapshot(fx.em);
    const c = ctx();
    const r = await analyseImpact(c, { branch: 'preview-pr-40', deployBranch: 'main', headFiles: await localModelFiles(await walkModel(dir), dir) });
    expect(r.unavailable).toBeUndefined();
    expect(r.changes!.members.map((m) => [m.member, m.change, m.details[0]])).toEqual([
      ['customers.country', 'removed', 'removed'],
      ['orders_view.customers_country', 'view-lost', 'customers.country removed'],
    ]);
    expect(r.counts).toEqual({ breaking: 2, added: 0, changed: 0 });
    expect(r.scanned).toEqual({ report: 4, dashboard: 3, notification: 5 });
    expect(r.affected.map((a) => [a.kind, a.name])).toEqual([
      ['report', 'Revenue by country'],
      ['dashboard', 'Revenue board 1 · Revenue overview'],
      ['notification', 'Notification 3 (At 09:00, Monday through Friday)'],
    ]);
    expect(r.affected[0]!.uses).toEqual([{ member: 'orders_view.customers_country', place: 'dimensions', change: 'customers.country removed' }]);
    // A filter of the published and the draft dashboard, and a chart that shows the report.
    expect(r.affected[1]!.uses.map((u) => u.place)).toEqual([
      'filter “Country” (published and draft)',
      'widget “Revenue by country” (report “Revenue by country”) (published and draft)',
    ]);
    // The notification filters on it, and sends the dashboard.
    expect(r.affected[2]!.uses.map((u) => u.place)).toEqual(['filters', 'the dashboard it sends (Revenue board 1 · Revenue overview)']);
    expect(impactSummaryLine(r)).toBe('2 breaking, 0 added, 0 changed; 1 report, 1 dashboard and 1 notification affected');
    expect(r.notices).toEqual([]);
    // Reads and token mints only.
    expect(snapshot(fx.em)).toBe(before);
    // The minted tokens are masked.
    expect(c.reporter.secrets.length).toBeGreaterThanOrEqual(2);
  });

  it('no change: says so, and nothing is affected', async () => {
    await branchWith('preview-pr-41', DEMO_MODEL);
    const r = await analyseImpact(ctx(), { branch: 'preview-pr-41', deployBranch: 'main' });
    expect(impactSummaryLine(r)).toBe('no member changes; no content affected');
  });

  it('a key that may not mint environment tokens and may not list notifications: the diff still runs with the deployment token; notices say what was not done', async () => {
    await branchWith('preview-pr-42', WITHOUT_COUNTRY);
    const c = ctx(fx.member);
    const r = await analyseImpact(c, { branch: 'preview-pr-42', deployBranch: 'main' });
    expect(r.counts.breaking).toBe(2);
    expect(r.scanned.notification).toBe(0);
    expect(r.affected.map((a) => a.kind)).toEqual(['report', 'dashboard']);
    expect(r.notices).toEqual([
      expect.stringMatching(
        /^this API key may not mint data-API tokens for production \(POST \/api\/v1\/deployments\/1\/environments\/1-production\/tokens -> 403: .*admin.*\): read its \/meta with the deployment's data-API token$/,
      ),
      expect.stringMatching(/^this API key may not mint data-API tokens for the staging environment of preview-pr-42 /),
      expect.stringMatching(/^notifications were not checked: this API key may not read them \(GET \/api\/v1\/deployments\/1\/notifications -> 403: /),
    ]);
    expect(c.reporter.lines.filter((l) => l.level === 'notice')).toHaveLength(3);
  });

  it('no staging environment: not compared, and it says how to get one; the content is still read', async () => {
    await branchWith('preview-pr-43', DEMO_MODEL, false);
    const c = ctx();
    const r = await analyseImpact(c, { branch: 'preview-pr-43', deployBranch: 'main' });
    expect(r.changes).toBeUndefined();
    expect(r.unavailable).toBe('preview-pr-43 has no staging environment (enable it first: datamodel-ci enable-staging, or the enable-staging action)');
    expect(r.scanned.report).toBe(4);
    expect(c.reporter.lines.find((l) => l.level === 'warning')?.message).toContain('the semantic layers were not compared');
  });

  it("a staging model that does not compile: said from the platform's validation, in the compiler's words, before any /meta", async () => {
    const broken = { ...DEMO_MODEL, 'model/cubes/orders.yml': DEMO_MODEL['model/cubes/orders.yml']!.replace('type: sum', 'type: summ') };
    await branchWith('preview-pr-44', broken);
    const r = await analyseImpact(ctx(), { branch: 'preview-pr-44', deployBranch: 'main' });
    expect(r.changes).toBeUndefined();
    expect(r.unavailable).toMatch(/^the preview's model does not compile: model\/cubes\/orders\.yml: .*summ/s);
  });
});

describe('datamodel-ci diff', () => {
  const io = (extra: NodeJS.ProcessEnv = {}) => cliIo(fx.em, extra);

  it('--json prints the outputs and the whole change set; exit 0 without fail-on-breaking, 1 with it', async () => {
    const dir = await branchWith('preview-pr-45', WITHOUT_COUNTRY);
    const t = io();
    expect(await runCli(['diff', '--deployment-id', '1', '--branch', 'preview-pr-45', '--model-dir', dir, '--json'], t)).toBe(0);
    const out = JSON.parse(t.stdout.at(-1)!) as {
      command: string;
      outputs: Record<string, string>;
      result: { members: { member: string }[]; affected: { name: string }[] };
    };
    expect(out.command).toBe('impact');
    expect(out.outputs).toMatchObject({ 'breaking-count': '2', 'added-count': '0', 'changed-count': '0', 'affected-content-count': '3', status: 'breaking' });
    expect(out.result.members.map((m) => m.member)).toEqual(['customers.country', 'orders_view.customers_country']);
    expect(out.result.affected.map((a) => a.name)).toContain('Revenue by country');
    // In a terminal the file goes to a folder of the run's own (never a fixed shared one), named in the outputs.
    const changeSetFile = out.outputs['change-set-file']!;
    expect([dirname(dirname(changeSetFile)), basename(changeSetFile)]).toEqual([tmpdir(), 'impact-1-preview-pr-45.json']);
    expect(basename(dirname(changeSetFile))).toMatch(/^datamodel-ci-\w+$/);
    expect(JSON.parse(readFileSync(changeSetFile, 'utf8'))).toMatchObject({ head: 'preview-pr-45', counts: { breaking: 2 } });
    const failing = io();
    expect(await runCli(['diff', '--deployment-id', '1', '--branch', 'preview-pr-45', '--model-dir', dir, '--fail-on-breaking'], failing)).toBe(1);
    // The failure names the members and the content, not only their counts.
    expect(failing.stderr.join('\n')).toContain(
      'preview-pr-45 makes 2 breaking changes to the semantic layer (dimension customers.country: removed; dimension orders_view.customers_country: customers.country removed), used by 3 reports, dashboards and notifications (report "Revenue by country"; dashboard "Revenue board 1 · Revenue overview"; notification "Notification 3 (At 09:00, Monday through Friday)") (fail-on-breaking is true)',
    );
  });

  it('prints the review by name: the members (breaking ones marked), the content they hit, a failed key query; --out puts the files where asked', async () => {
    const dir = await branchWith('preview-pr-46', WITHOUT_COUNTRY);
    const out = join(mkdtempSync(join(tmpdir(), 'dmci-out-')), 'review');
    // A team key query on the member the branch removes: production answers it, the preview cannot.
    const queries = join(dir, 'key-queries.json');
    writeFileSync(
      queries,
      JSON.stringify({ queries: [{ name: 'Orders by country', query: { measures: ['orders_view.count'], dimensions: ['orders_view.customers_country'] } }] }),
    );
    const t = io();
    const args = ['diff', '--deployment-id', '1', '--branch', 'preview-pr-46', '--model-dir', dir, '--out', out, '--data', '--data-diff-queries', queries];
    expect(await runCli(args, t)).toBe(0);
    const log = t.stderr.join('\n');
    expect(log).toMatch(/^ {2}MEMBER +CHANGE +WHAT$/m);
    expect(log).toMatch(/^ {2}customers\.country +removed +BREAKING +removed$/m);
    expect(log).toMatch(/^ {2}orders_view\.customers_country +view-lost +BREAKING +customers\.country removed$/m);
    expect(log).toContain('Content the breaking changes hit (3):');
    expect(log).toMatch(/^ {2}report +Revenue by country +orders_view\.customers_country$/m);
    expect(log).toMatch(/^ {2}dashboard +Revenue board 1 · Revenue overview +orders_view\.customers_country$/m);
    expect(log).toMatch(/^ {2}notification +Notification 3 \(At 09:00, Monday through Friday\) +orders_view\.customers_country$/m);
    // The report's query fails on the preview (its member is gone): named, in the log line and in the table.
    expect(log).toMatch(
      /data diff: 1 key query in [\d.]+ s: 0 changed, 0 unchanged, 0 new, 1 failed \("Orders by country" on preview: POST \S+\/load -> 400: /,
    );
    expect(log).toMatch(/^Numbers \(production → preview, 1 key query\): 0 changed, 1 failed \(Orders by country\)$/m);
    expect(log).toMatch(/^ {2}Orders by country +failed +FAILED on preview: POST \S+\/load -> 400: /m);
    const file = join(out, 'impact-1-preview-pr-46.json');
    expect(log).toContain(`Detail files: change set ${file}; data diff ${join(out, 'data-diff-1-preview-pr-46.json')}`);
    expect(t.stdout).toContain(`change-set-file=${file}`);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ head: 'preview-pr-46' });
    // A folder that cannot be made is refused before any call.
    const before = { ...fx.em.counts };
    const bad = io();
    expect(await runCli(['diff', '--deployment-id', '1', '--branch', 'preview-pr-46', '--out', join(file, 'below-a-file')], bad)).toBe(2);
    expect(bad.stderr.join('\n')).toContain(`out: got ${JSON.stringify(join(file, 'below-a-file'))}, expected a folder the run may create and write to`);
    expect(fx.em.counts).toEqual(before);
  });

  it('bad input is refused before any call (exit 2, naming the input)', async () => {
    const before = { ...fx.em.counts };
    const t = io({ DATAMODEL_CI_FAIL_ON_BREAKING: 'sometimes' });
    expect(await runCli(['diff', '--deployment-id', '1', '--branch', 'preview-pr-45'], t)).toBe(2);
    expect(t.stderr.join('\n')).toContain('fail-on-breaking: got "sometimes", expected true or false');
    const bad = io();
    expect(await runCli(['diff', '--deployment-id', '1', '--branch', 'Bad Branch'], bad)).toBe(2);
    expect(bad.stderr.join('\n')).toContain('branch: got "Bad Branch"');
    // A model-dir without a model: said so, with the folder nearby that holds one; never an empty side.
    const parent = modelDir({ 'analytics/cube.js': '', 'analytics/model/cubes/a.yml': 'cubes: []\n', 'README.md': '' });
    const empty = io();
    expect(await runCli(['diff', '--deployment-id', '1', '--branch', 'preview-pr-45', '--model-dir', parent], empty)).toBe(2);
    expect(empty.stderr.join('\n')).toContain(
      `model-dir: got ${JSON.stringify(parent)}, expected a folder whose model/ (or schema/) holds the data model's YAML or JS files: it holds none`,
    );
    expect(fx.em.counts).toEqual(before);
  });
});
