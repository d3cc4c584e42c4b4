/**
 * The agents folder checked in a `pr` run against the emulator, as the GitHub stand-in receives the
 * result over HTTPS: a pull request that removes a view an agent lists in `accessible_views` gets an error
 * on the agent's line and on the view's definition (production's file), in the validation check and in
 * the comment's Agents section, which names the agent and the eval question the removal breaks.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runActionCommand } from '../src/commands/index.js';
import { runCli } from '../src/main.js';
import type { Io } from '../src/io.js';
import { DEMO_MODEL, startGitHubStandin, type GitHubStandin } from '../packages/emulator/src/index.js';
import { cliIo, emulatorFixture, type EmulatorFixture } from './support/emulator.js';
import { pullRequestEvent, writeEvent } from './support/payloads.js';

let fx: EmulatorFixture;

beforeAll(async () => {
  fx = await emulatorFixture();
});
afterAll(() => fx.close());

const AGENTS = {
  'agents/config.yml': `spaces:
  - name: sales
agents:
  - name: order-desk
    space: sales
    runtime: plain
    accessible_views:
      - orders_view
`,
  'agents/certified_queries/by-status.md': `---
space: sales
user_request: How many orders per status?
---
SELECT status, MEASURE(count) FROM orders GROUP BY 1
`,
  'agents/eval_questions/sales.yml': `space: sales
eval_questions:
  - name: order_count
    question: How many orders are there?
    sql: SELECT MEASURE(count) FROM orders_view
  - name: per_status
    question: Orders per status?
    certifiedQuery: by-status
`,
};

function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'dmci-agents-'));
  for (const [p, c] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, p)), { recursive: true });
    writeFileSync(join(dir, p), c);
  }
  return dir;
}

async function pr(gh: GitHubStandin, number: number, modelDir: string) {
  const lines: string[] = [];
  const event = pullRequestEvent('opened', { number, headSha: 'a'.repeat(39) + String(number % 10) });
  const env: NodeJS.ProcessEnv = {
    GITHUB_ACTIONS: '',
    DATAMODEL_CI_API_URL: fx.em.baseUrl,
    DATAMODEL_CI_API_KEY: fx.em.credentials.admin,
    DATAMODEL_CI_CA_CERT: `${fx.em.ca}\n${gh.ca}`,
    DATAMODEL_CI_DEPLOYMENT_ID: '1',
    DATAMODEL_CI_GITHUB_TOKEN: 'ghs_agents_token_0123',
    DATAMODEL_CI_MODEL_DIR: modelDir,
    GITHUB_REPOSITORY: gh.repository,
    GITHUB_API_URL: gh.url,
    GITHUB_RUN_ID: String(4000 + number),
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_EVENT_NAME: 'pull_request',
    GITHUB_EVENT_PATH: writeEvent(event),
  };
  const io: Io = { out: (line) => lines.push(line), err: (line) => lines.push(line), env };
  const code = await runActionCommand('pr', [], io);
  return { code, log: lines.join('\n') };
}

const validation = (gh: GitHubStandin) => gh.checkRuns().filter((c) => c.name === 'datamodel-ci / validation');

describe('the agents folder in a pull request run', () => {
  it('a view removed from under an agent: errors on the agent line and the view definition, in the check and the comment', async () => {
    const gh = await startGitHubStandin();
    try {
      gh.addPull({ number: 61, headSha: `${'a'.repeat(39)}1`, headRef: 'drop-orders-view' });
      const { 'model/views/orders_view.yml': _dropped, ...rest } = DEMO_MODEL;
      const dir = folder({ ...rest, ...AGENTS });
      const r = await pr(gh, 61, dir);
      // The model compiles; the agents' errors fail the step as an invalid model would (fail-on-invalid).
      expect(r.code, r.log).not.toBe(0);
      expect(r.log).toContain('the agents/ folder has 3 errors');
      const [check, ...again] = validation(gh);
      expect(again).toEqual([]);
      expect(check).toMatchObject({ conclusion: 'failure' });
      expect(check!.output.title).toMatch(/: 3 errors in agents\/$/);
      const at = check!.annotations.map((a) => `${a.path}:${a.startLine}:${a.level}:${a.title}`);
      expect(at).toEqual([
        `${dir}/agents/config.yml:8:failure:agents`,
        `${dir}/agents/eval_questions/sales.yml:5:failure:agents`,
        // Production's file, where the view was defined: the pull request deletes it.
        `${dir}/model/views/orders_view.yml:2:failure:agents`,
      ]);
      expect(check!.annotations[0]!.message).toBe('agent order-desk lists view orders_view in `accessible_views`, which this pull request removes');
      const comment = gh.comments(61).at(-1)!.body;
      // The verdict under the heading leads with them: nothing above the section reads as green.
      expect(comment).toMatch(/^\*\*❌ 3 errors in `agents\/` · /m);
      expect(comment).toContain(
        "**Agents** (`agents/`: 1 agent, 1 certified query, 2 eval questions; names checked against the preview's compiled model): ❌ 3 errors",
      );
      expect(comment).toContain('- view `orders_view`, removed by this pull request, breaks agents `order-desk`; eval questions `order_count`');
      expect(comment).toContain(`- ❌ \`${dir}/agents/config.yml:8\`: agent order\\-desk lists view orders\\_view in `);
      expect(gh.violations).toEqual([]);
    } finally {
      await gh.close();
    }
  });

  it('the same folder with the view kept: nothing found, the check passes, the section says so', async () => {
    const gh = await startGitHubStandin();
    try {
      gh.addPull({ number: 62, headSha: `${'a'.repeat(39)}2`, headRef: 'add-agents' });
      const dir = folder({ ...DEMO_MODEL, ...AGENTS });
      const r = await pr(gh, 62, dir);
      expect(r.code, r.log).toBe(0);
      const [check] = validation(gh);
      expect(check).toMatchObject({ conclusion: 'success' });
      expect(check!.annotations).toEqual([]);
      expect(gh.comments(62).at(-1)!.body).toContain("eval questions; names checked against the preview's compiled model): ✅ no findings");
    } finally {
      await gh.close();
    }
  });

  it('a policy that hides the view from the empty context only: no removal, the layer every group reads is the model', async () => {
    const gh = await startGitHubStandin();
    try {
      gh.addPull({ number: 64, headSha: `${'a'.repeat(39)}4`, headRef: 'guard-orders-view' });
      const guarded = `${DEMO_MODEL['model/views/orders_view.yml']!.trimEnd()}\n    access_policy:\n      - group: finance\n        member_level:\n          includes: "*"\n`;
      const dir = folder({ ...DEMO_MODEL, 'model/views/orders_view.yml': guarded, ...AGENTS });
      const r = await pr(gh, 64, dir);
      expect(r.code, r.log).toBe(0);
      const [check] = validation(gh);
      expect(check!.annotations).toEqual([]);
      const comment = gh.comments(64).at(-1)!.body;
      expect(comment).toContain("names checked against the preview's compiled model): ✅ no findings");
      expect(comment).not.toContain('removed by this pull request');
    } finally {
      await gh.close();
    }
  });

  it('no agents folder: no section', async () => {
    const gh = await startGitHubStandin();
    try {
      gh.addPull({ number: 63, headSha: `${'a'.repeat(39)}3`, headRef: 'no-agents' });
      const r = await pr(gh, 63, folder(DEMO_MODEL));
      expect(r.code, r.log).toBe(0);
      expect(gh.comments(63).at(-1)!.body).not.toContain('**Agents**');
    } finally {
      await gh.close();
    }
  });

  it('plan names the findings in its review, by file and line, with what the removal breaks', async () => {
    const { 'model/views/orders_view.yml': _dropped, ...rest } = DEMO_MODEL;
    const dir = folder({ ...rest, ...AGENTS });
    const t = cliIo(fx.em);
    const code = await runCli(['plan', '--deployment-id', '1', '--model-dir', dir], t);
    const out = t.stdout.join('\n');
    expect(code, t.stderr.join('\n')).toBe(1);
    expect(out).toMatch(
      /^Agents \(agents\/\): 1 agent, 1 certified query, 2 eval questions; names checked against the preview's compiled model: 3 errors, 0 warnings$/m,
    );
    expect(out).toMatch(/^ {2}REMOVED view orders_view breaks agents order-desk; eval questions order_count$/m);
    expect(out).toContain(
      `  ERROR ${dir}/agents/config.yml:8: agent order-desk lists view orders_view in \`accessible_views\`, which this pull request removes`,
    );
  }, 120_000);

  it('plan --json carries the check: its findings by file and line, what the removal breaks, the model used', async () => {
    const { 'model/views/orders_view.yml': _dropped, ...rest } = DEMO_MODEL;
    const dir = folder({ ...rest, ...AGENTS });
    const t = cliIo(fx.em);
    const code = await runCli(['plan', '--deployment-id', '1', '--model-dir', dir, '--json'], t);
    expect(code, t.stderr.join('\n')).toBe(1);
    const agents = JSON.parse(t.stdout.join('\n')).result.agents;
    expect(agents).toMatchObject({ folder: 'agents', source: expect.stringMatching(/meta|compiled/), counts: { agents: 1, evalQuestions: 2 } });
    expect(agents.findings.filter((f: { level: string }) => f.level === 'error')).toHaveLength(3);
    expect(agents.findings[0]).toMatchObject({ file: `${dir}/agents/config.yml`, line: 8 });
    expect(agents.broken.map((b: { name: string }) => b.name)).toContain('orders_view');
  }, 120_000);
});
