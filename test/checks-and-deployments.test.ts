/**
 * Where a preview shows up on GitHub besides the comment: the "datamodel-ci / validation" check run
 * (every error an annotation, 50 per request) or, without `checks: write`, the step's annotations (10
 * shown, the rest counted), each worded by the one rewriter of the compiler's text as the comment words
 * it; and a GitHub deployment per PR ("View deployment"), inactive once closed.
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

/** A model with `broken` cubes whose measure type is wrong: one error each. */
function model(broken: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'dmci-checks-'));
  const files: Record<string, string> = { ...DEMO_MODEL };
  for (let i = 0; i < broken; i++) {
    files[`model/cubes/b${i}.yml`] =
      `cubes:\n  - name: b${i}\n    sql_table: public.b${i}\n    measures:\n      - name: total\n        sql: amount\n        type: summ\n`;
  }
  for (const [p, c] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, p)), { recursive: true });
    writeFileSync(join(dir, p), c);
  }
  return dir;
}

async function pr(gh: GitHubStandin, number: number, action: string, modelDir: string, extra: Record<string, string> = {}) {
  const lines: { stream: 'out' | 'err'; line: string }[] = [];
  const env: NodeJS.ProcessEnv = {
    GITHUB_ACTIONS: '',
    DATAMODEL_CI_API_URL: fx.em.baseUrl,
    DATAMODEL_CI_API_KEY: fx.em.credentials.admin,
    DATAMODEL_CI_CA_CERT: `${fx.em.ca}\n${gh.ca}`,
    DATAMODEL_CI_DEPLOYMENT_ID: '1',
    DATAMODEL_CI_GITHUB_TOKEN: 'ghs_checks_token_0123',
    DATAMODEL_CI_MODEL_DIR: modelDir,
    DATAMODEL_CI_FAIL_ON_INVALID: 'false',
    GITHUB_REPOSITORY: gh.repository,
    GITHUB_API_URL: gh.url,
    GITHUB_RUN_ID: String(1000 + number),
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_EVENT_NAME: 'pull_request',
    GITHUB_EVENT_PATH: writeEvent(pullRequestEvent(action, { number, headSha: 'd'.repeat(39) + String(number % 10), merged: action === 'closed' })),
    ...extra,
  };
  const io: Io = { out: (line) => lines.push({ stream: 'out', line }), err: (line) => lines.push({ stream: 'err', line }), env };
  const code = await runActionCommand('pr', [], io);
  return { code, lines: lines.map((l) => l.line) };
}

describe('the validation check run', () => {
  it('puts all 65 errors on the check, 50 per request, and the comment shows the first ones', async () => {
    const gh = await startGitHubStandin();
    try {
      gh.addPull({ number: 31, headSha: `${'d'.repeat(39)}1`, headRef: 'many' });
      const r = await pr(gh, 31, 'opened', model(65));
      expect(r.code, r.lines.join('\n')).toBe(0);
      const check = gh.checkRuns().find((c) => c.name === 'datamodel-ci / validation')!;
      expect(check).toMatchObject({ conclusion: 'failure', headSha: `${'d'.repeat(39)}1` });
      expect(check.annotations).toHaveLength(65);
      const updates = gh.requests.filter((q) => q.method === 'PATCH' && q.path.includes('/check-runs/'));
      expect(updates).toHaveLength(1);
      expect(new Set(check.annotations.map((a) => a.path)).size).toBe(65);
      // The compiler's text as the one rewriter words it (src/model/compiler-text.ts): the mistake and a
      // near miss, never the validator's false second cause (`sql` "is not allowed") or its reasons.
      for (const a of check.annotations)
        expect(a.message).toMatch(/^b\d+ cube: "measures\.total\.type" must be one of 11 allowed values, not `summ`\. Did you mean `sum`\?$/);
      expect(r.lines.filter((l) => l.startsWith('error:'))).toEqual([]);
      const body = gh.comments(31)[0]!.body;
      expect(body).toContain('### ❌ Data-model preview · 65 errors in 65 files');
      expect(body).toContain('50 more errors are listed in the job summary');
      expect(body).toContain('must be one of 11 allowed values, not `summ`. Did you mean `sum`?');
      expect(body).not.toMatch(/is not allowed|Possible reasons/);
      expect(gh.violations).toEqual([]);
    } finally {
      await gh.close();
    }
  });

  it('without checks: write, annotates 10 errors on the step and says how many were not shown', async () => {
    const gh = await startGitHubStandin({ permissions: { checks: 'none', deployments: 'write', 'pull-requests': 'write', issues: 'write' } });
    try {
      gh.addPull({ number: 32, headSha: `${'d'.repeat(39)}2`, headRef: 'no-checks' });
      const r = await pr(gh, 32, 'opened', model(12), { GITHUB_ACTIONS: 'false' });
      expect(r.code).toBe(0);
      expect(gh.checkRuns()).toEqual([]);
      const errors = r.lines.filter((l) => l.startsWith('error: '));
      expect(errors.length).toBe(10);
      // The terminal says what the annotations and the comment say: one line, the mistake and a near miss.
      for (const l of errors)
        expect(l).toMatch(
          /^error: \S+\/b\d+\.yml:\d+(:\d+)?: b\d+ cube: "measures\.total\.type" must be one of 11 allowed values, not `summ`\. Did you mean `sum`\?$/,
        );
      expect(r.lines.join('\n')).not.toMatch(/is not allowed|Possible reasons/);
      expect(r.lines.join('\n')).toContain('2 more errors are not shown as annotations (GitHub shows 10 per step)');
      expect(r.lines.join('\n')).toContain('checks: write');
    } finally {
      await gh.close();
    }
  });
});

describe('the GitHub deployment of a PR', () => {
  it('points "View deployment" at the preview, and is made inactive when the PR closes', async () => {
    const gh = await startGitHubStandin();
    try {
      gh.addPull({ number: 33, headSha: `${'d'.repeat(39)}3`, headRef: 'deploy-me' });
      const dir = model(0);
      expect((await pr(gh, 33, 'opened', dir)).code).toBe(0);
      const [deployment] = gh.deployments();
      expect(deployment).toMatchObject({ environment: 'preview-pr-33', ref: `${'d'.repeat(39)}3`, transientEnvironment: true, productionEnvironment: false });
      expect(deployment!.statuses.at(-1)).toMatchObject({
        state: 'success',
        environmentUrl: `${new URL(fx.em.baseUrl).origin}/d/1/schema?branch=preview-pr-33`,
      });
      gh.closePull(33, false);
      expect((await pr(gh, 33, 'closed', dir)).code).toBe(0);
      expect(gh.deployments()[0]!.statuses.at(-1)).toMatchObject({ state: 'inactive' });
      expect(gh.violations).toEqual([]);
    } finally {
      await gh.close();
    }
  });

  it('goes on with a notice when the token may not write deployments', async () => {
    const gh = await startGitHubStandin({ permissions: { checks: 'write', deployments: 'none', 'pull-requests': 'write', issues: 'write' } });
    try {
      gh.addPull({ number: 34, headSha: `${'d'.repeat(39)}4`, headRef: 'no-deploy' });
      const r = await pr(gh, 34, 'opened', model(0));
      expect(r.code).toBe(0);
      expect(gh.deployments()).toEqual([]);
      expect(r.lines.join('\n')).toContain('no GitHub deployment: the token may not write deployments');
    } finally {
      await gh.close();
    }
  });
});
