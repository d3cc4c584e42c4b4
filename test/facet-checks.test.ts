/**
 * A check per facet of the review, as the GitHub stand-in receives them over HTTPS from a `pr` run against
 * the emulator: "datamodel-ci / impact" (breaking changes annotated on the lines that declare them, and on
 * the view includes that bring them in), "datamodel-ci / cost", and "datamodel-ci / access" or
 * "datamodel-ci / numbers" only when their facet ran or a `fail-on-…` input asks for it.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runActionCommand } from '../src/commands/index.js';
import type { Io } from '../src/io.js';
import { DEMO_MODEL, startGitHubStandin, type GitHubStandin } from '../packages/emulator/src/index.js';
import { emulatorFixture, type EmulatorFixture } from './support/emulator.js';
import { pullRequestEvent, writeEvent } from './support/payloads.js';

let fx: EmulatorFixture;

beforeAll(async () => {
  fx = await emulatorFixture();
});
afterAll(() => fx.close());

/** `customers.country` made a number: breaking for the cube's member and for the view member `orders_view.customers_country`. */
const RETYPED = {
  ...DEMO_MODEL,
  'model/cubes/customers.yml': DEMO_MODEL['model/cubes/customers.yml']!.replace('sql: country\n        type: string', 'sql: country\n        type: number'),
};

function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'dmci-facets-'));
  for (const [p, c] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, p)), { recursive: true });
    writeFileSync(join(dir, p), c);
  }
  return dir;
}

/** The 1-based line of `files[path]` that holds `text`. */
const lineOf = (files: Record<string, string>, path: string, text: string) => files[path]!.split('\n').findIndex((l) => l.includes(text)) + 1;

async function pr(
  gh: GitHubStandin,
  number: number,
  modelDir: string,
  extra: Record<string, string> = {},
  command: 'pr' | 'upload-model' | 'enable-staging' | 'impact' = 'pr',
  changed?: number,
) {
  const lines: string[] = [];
  const event = pullRequestEvent('opened', { number, headSha: 'e'.repeat(39) + String(number % 10) });
  // The files GitHub lists for the pull request (gh.setFiles), counted in the event as GitHub does.
  if (changed) (event.pull_request as { changed_files: number }).changed_files = changed;
  const env: NodeJS.ProcessEnv = {
    GITHUB_ACTIONS: '',
    DATAMODEL_CI_API_URL: fx.em.baseUrl,
    DATAMODEL_CI_API_KEY: fx.em.credentials.admin,
    DATAMODEL_CI_CA_CERT: `${fx.em.ca}\n${gh.ca}`,
    DATAMODEL_CI_DEPLOYMENT_ID: '1',
    DATAMODEL_CI_GITHUB_TOKEN: 'ghs_facets_token_0123',
    DATAMODEL_CI_MODEL_DIR: modelDir,
    GITHUB_REPOSITORY: gh.repository,
    GITHUB_API_URL: gh.url,
    GITHUB_RUN_ID: String(2000 + number),
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_EVENT_NAME: 'pull_request',
    GITHUB_EVENT_PATH: writeEvent(event),
    ...extra,
  };
  const io: Io = { out: (line) => lines.push(line), err: (line) => lines.push(line), env };
  const code = await runActionCommand(command, [], io);
  return { code, log: lines.join('\n') };
}

const named = (gh: GitHubStandin, facet: string) => gh.checkRuns().filter((c) => c.name === `datamodel-ci / ${facet}`);

describe('a check per facet on the GitHub stand-in', () => {
  it('a breaking change: the impact check neutral, its annotations on the declaring line and the view include; cost on its own; no access or numbers check', async () => {
    const gh = await startGitHubStandin();
    try {
      gh.addPull({ number: 41, headSha: `${'e'.repeat(39)}1`, headRef: 'retype-country' });
      const dir = folder(RETYPED);
      const r = await pr(gh, 41, dir);
      expect(r.code, r.log).toBe(0);
      expect(named(gh, 'validation')).toMatchObject([{ conclusion: 'success' }]);
      const [impact, ...again] = named(gh, 'impact');
      expect(again).toEqual([]);
      expect(impact).toMatchObject({ conclusion: 'neutral', headSha: `${'e'.repeat(39)}1` });
      expect(impact!.output.title).toMatch(/^2 breaking changes/);
      const at = impact!.annotations.map((a) => `${a.path}:${a.startLine}:${a.level}`);
      // The cube's member where it is declared, and the view's include (`- country`) that brings it in
      // (a model-dir outside the working directory keeps its absolute path, as the validation check's do).
      expect(at).toEqual(
        expect.arrayContaining([
          `${dir}/model/cubes/customers.yml:${lineOf(RETYPED, 'model/cubes/customers.yml', '- name: country')}:warning`,
          `${dir}/model/views/orders_view.yml:${lineOf(RETYPED, 'model/views/orders_view.yml', '- country')}:warning`,
        ]),
      );
      expect(at).toHaveLength(2);
      const onView = impact!.annotations.find((a) => a.path.endsWith('model/views/orders_view.yml'))!;
      expect(onView.message).toContain('`orders_view.customers_country`');
      expect(onView.message).toContain('`customers.country`');
      expect(impact!.output.summary).toContain(`\`${dir}/model/cubes/customers.yml:${lineOf(RETYPED, 'model/cubes/customers.yml', '- name: country')}\``);
      // No personas, data-diff off, no gate asks: those facets did not run, and no check pretends they did.
      expect(named(gh, 'access')).toEqual([]);
      expect(named(gh, 'numbers')).toEqual([]);
      const [cost] = named(gh, 'cost');
      // Both sides' files read, neither with a pre-aggregation, production's Cube read: established and clear.
      expect(cost).toMatchObject({ conclusion: 'success' });
      expect(cost!.output.summary).toContain('No pre\\-aggregation on either side');
      expect(cost!.output.summary).toMatch(/Production\\'s Cube [\d\\.]+ accepts every key/);
      // The summary names members as code; the annotations as plain text in backticks.
      expect(impact!.output.summary).toContain('Breaking\\: `customers.country` \\(dimension\\)');
      expect(gh.violations).toEqual([]);
    } finally {
      await gh.close();
    }
  });

  it('fail-on-breaking makes the impact check a failure with error annotations; fail-on-exposure without personas a failing access check that says why', async () => {
    const gh = await startGitHubStandin();
    try {
      gh.addPull({ number: 42, headSha: `${'e'.repeat(39)}2`, headRef: 'retype-gated' });
      const r = await pr(gh, 42, folder(RETYPED), { DATAMODEL_CI_FAIL_ON_BREAKING: 'true', DATAMODEL_CI_FAIL_ON_EXPOSURE: 'true' });
      expect(r.code).not.toBe(0);
      const [impact] = named(gh, 'impact');
      expect(impact).toMatchObject({ conclusion: 'failure' });
      expect(impact!.annotations.map((a) => a.level)).toEqual(['failure', 'failure']);
      const [access] = named(gh, 'access');
      expect(access).toMatchObject({ conclusion: 'failure' });
      expect(access!.output.title).toContain('not compared: no personas file');
      expect(named(gh, 'numbers')).toEqual([]);
      expect(gh.violations).toEqual([]);
    } finally {
      await gh.close();
    }
  });

  it('a removed member: annotated where it was, on the line the diff shows beside the removal, in the cube and in the view', async () => {
    const gh = await startGitHubStandin();
    try {
      const removed = {
        ...DEMO_MODEL,
        'model/cubes/orders.yml': DEMO_MODEL['model/cubes/orders.yml']!.replace('      - name: status\n        sql: status\n        type: string\n', ''),
        'model/views/orders_view.yml': DEMO_MODEL['model/views/orders_view.yml']!.replace('          - status\n', ''),
      };
      gh.addPull({ number: 45, headSha: `${'e'.repeat(39)}5`, headRef: 'drop-status' });
      const dir = folder(removed);
      // GitHub lists the view's file only (as if the cube had changed in an earlier push): its annotation goes first, and the summary counts it.
      gh.setFiles(45, [`${dir}/model/views/orders_view.yml`]);
      const r = await pr(gh, 45, dir, {}, 'pr', 1);
      expect(r.code, r.log).toBe(0);
      const [impact] = named(gh, 'impact');
      expect(impact).toMatchObject({ conclusion: 'neutral' });
      const at = Object.fromEntries(impact!.annotations.map((a) => [a.message.split(' (')[0], `${a.path}:${a.startLine}`]));
      expect(at).toEqual({
        'Breaking: `orders.status`': `${dir}/model/cubes/orders.yml:${lineOf(removed, 'model/cubes/orders.yml', '- name: created_at')}`,
        'Breaking: `orders_view.status`': `${dir}/model/views/orders_view.yml:${lineOf(removed, 'model/views/orders_view.yml', '- created_at')}`,
      });
      expect(impact!.annotations.every((a) => a.message.includes('(removed here)'))).toBe(true);
      expect(impact!.annotations.map((a) => a.path)).toEqual([`${dir}/model/views/orders_view.yml`, `${dir}/model/cubes/orders.yml`]);
      expect(impact!.output.summary).toContain('1 annotated line is in files this pull request changes');
    } finally {
      await gh.close();
    }
  });

  it('the impact action writes the same facet checks on the pull request (upload-model to a seeded branch, enable-staging, impact)', async () => {
    const gh = await startGitHubStandin();
    try {
      gh.addPull({ number: 46, headSha: `${'e'.repeat(39)}6`, headRef: 'impact-step' });
      const dir = folder(RETYPED);
      const step = { DATAMODEL_CI_BRANCH: 'feature-revenue', DATAMODEL_CI_FAIL_ON_BREAKING: 'true' };
      const up = await pr(gh, 46, dir, step, 'upload-model');
      expect(up.code, up.log).toBe(0);
      // Before staging runs, the layers cannot be compared: fail-on-breaking makes that a failure that says so.
      const early = await pr(gh, 46, dir, step, 'impact');
      expect(early.code).not.toBe(0);
      expect(named(gh, 'impact')).toMatchObject([{ conclusion: 'failure', annotations: [] }]);
      expect(named(gh, 'impact')[0]!.output.title).toMatch(
        /^Breaking changes not established: the semantic layers were not compared \(feature-revenue has no staging environment/,
      );
      expect((await pr(gh, 46, dir, step, 'enable-staging')).code).toBe(0);
      const r = await pr(gh, 46, dir, step, 'impact');
      expect(r.code).not.toBe(0);
      const impact = named(gh, 'impact').at(-1);
      expect(impact).toMatchObject({ conclusion: 'failure', headSha: `${'e'.repeat(39)}6` });
      expect(impact!.annotations.map((a) => `${a.path}:${a.startLine}`)).toEqual([
        `${dir}/model/cubes/customers.yml:${lineOf(RETYPED, 'model/cubes/customers.yml', '- name: country')}`,
        `${dir}/model/views/orders_view.yml:${lineOf(RETYPED, 'model/views/orders_view.yml', '- country')}`,
      ]);
      expect(named(gh, 'cost').at(-1)).toMatchObject({ conclusion: 'success' });
    } finally {
      await gh.close();
    }
  });

  it('no change to the semantic layer: the impact check succeeds with no annotation', async () => {
    const gh = await startGitHubStandin();
    try {
      gh.addPull({ number: 43, headSha: `${'e'.repeat(39)}3`, headRef: 'same' });
      const r = await pr(gh, 43, folder(DEMO_MODEL));
      expect(r.code, r.log).toBe(0);
      expect(named(gh, 'impact')).toMatchObject([{ conclusion: 'success', annotations: [] }]);
      expect(named(gh, 'impact')[0]!.output.title).toMatch(/^No breaking change/);
    } finally {
      await gh.close();
    }
  });

  it('impact: false writes no facet check at all', async () => {
    const gh = await startGitHubStandin();
    try {
      gh.addPull({ number: 44, headSha: `${'e'.repeat(39)}4`, headRef: 'no-impact' });
      const r = await pr(gh, 44, folder(RETYPED), { DATAMODEL_CI_IMPACT: 'false' });
      expect(r.code, r.log).toBe(0);
      expect(gh.checkRuns().map((c) => c.name)).toEqual(['datamodel-ci / validation']);
    } finally {
      await gh.close();
    }
  });
});
