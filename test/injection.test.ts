/**
 * Outside text in the PR comment and the job summary is inert: file names and platform messages with
 * `-->`, `<script>`, `@team`, markdown links and backticks. Runs the root action through the harness.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseComment } from '../src/pr/comment/ledger.js';
import { DEMO_MODEL, startEmulator, startGitHubStandin, type Emulator, type GitHubStandin } from '../packages/emulator/src/index.js';
import { runAction } from './harness/runner.js';
import { renderGfm } from './support/gfm.js';
import { pullRequestEvent } from './support/payloads.js';

let em: Emulator;
let gh: GitHubStandin;
const repo = mkdtempSync(join(tmpdir(), 'dmci-inject-'));

beforeAll(async () => {
  em = await startEmulator({ seed: 'demo' });
  gh = await startGitHubStandin();
  const files: Record<string, string> = {
    ...DEMO_MODEL,
    // A file name full of markup, and a model whose error messages quote hostile text.
    'model/cubes/x --> <script>alert(1)</script> @team [click](https://evil.example) `tick`.yml': 'cubes: []\n',
    'model/cubes/evil.yml':
      'cubes:\n  - name: evil\n    sql_table: t\n    measures:\n      - name: m\n        type: "<script>alert(1)</script> @team --> [click](https://evil.example) `x`"\n',
  };
  for (const [p, c] of Object.entries(files)) {
    mkdirSync(dirname(join(repo, 'cube', p)), { recursive: true });
    writeFileSync(join(repo, 'cube', p), c);
  }
});
afterAll(async () => {
  await em.close();
  await gh.close();
});

describe('injection', () => {
  it('renders hostile file names and platform messages inert in the comment and the summary', async () => {
    gh.addPull({ number: 66, headSha: '6'.repeat(40), headRef: 'evil' });
    const caFile = join(repo, 'ca.pem');
    writeFileSync(caFile, `${em.ca}\n${gh.ca}`);
    const r = await runAction({
      actionDir: resolve('.'),
      repoDir: resolve('.'),
      workspace: repo,
      eventName: 'pull_request',
      event: pullRequestEvent('opened', { number: 66, headSha: '6'.repeat(40), title: 'evil <script> @team -->' }),
      inputs: { 'api-url': em.baseUrl, 'api-key': em.credentials.admin, 'deployment-id': 1, 'model-dir': 'cube', 'ca-cert': caFile, 'fail-on-invalid': false },
      github: { api_url: gh.url, repository: gh.repository, token: 'ghs_inject_token_0123456' },
    });
    expect(r.exitCode, r.log.join('\n')).toBe(0);
    expect(r.outputs.valid).toBe('false');
    const body = gh.comments(66)[0]!.body;
    // Rendered as GitHub renders it: the hostile text is there, as text, and does nothing.
    for (const [where, md] of [
      ['comment', body.replace(/<!-- datamodel-ci:[^>]*-->/g, '')],
      ['summary', r.summary],
    ] as const) {
      const html = renderGfm(md);
      expect(html.text, where).toContain('<script>alert(1)</script>');
      expect(JSON.stringify(html.tree), where).not.toMatch(/"tagName":"(script|img|iframe)"/);
      expect(
        html.links.filter((l) => l.href.includes('evil.example')),
        where,
      ).toEqual([]);
      expect(html.text, where).not.toMatch(/(^|[^\u200B\w])@team/);
      expect(md, where).not.toContain('-->');
    }
    // The markers still parse: the comment was not broken open.
    expect(parseComment(body)).toMatchObject({ deploymentId: '1' });
    expect(gh.comments(66)).toHaveLength(1);
  });
});
