import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMENT_LIMIT, commentMarker, composeComment, encodeLedger, findStickyComments, parseComment, type Ledger } from '../src/pr/comment/ledger.js';
import { nextView, type PreviewView } from '../src/pr/comment/view.js';
import { readLedger, upsertStickyComment, type UpsertOptions } from '../src/pr/comment/thread.js';
import { createGitHubApi } from '../src/github/octokit.js';
import type { GitHubApi } from '../src/github/types.js';
import { BOT_LOGIN, startGitHubStandin, type GitHubStandin } from '../packages/emulator/src/index.js';

/** The `pull_request.opened` example GitHub publishes (via @octokit/webhooks-examples). */
interface OpenedExample {
  action: string;
  number: number;
  pull_request: { title: string; user: { login: string }; head: { sha: string; ref: string }; base: { ref: string } };
  repository: { full_name: string };
}
const definitions = createRequire(import.meta.url)('@octokit/webhooks-examples') as {
  name: string;
  examples: OpenedExample[];
}[];
const opened = definitions.find((d) => d.name === 'pull_request')?.examples.find((e) => e.action === 'opened');
if (!opened) throw new Error('no pull_request.opened example in @octokit/webhooks-examples');

describe('composeComment / parseComment', () => {
  const view: PreviewView = {
    state: 'ready',
    headSha: 'a'.repeat(40),
    runId: 7,
    branch: 'preview-pr-2',
    validation: { valid: true, errorCount: 0, errors: [] },
  };
  const ledger: Ledger = { deploymentId: 'dep-1', branch: 'feature/x', devBranch: 'pr-2', headSha: 'a'.repeat(40), runId: 7, state: 'open', view };

  it('round-trips deployment and the ledger facts, and renders the view (which the ledger does not keep)', () => {
    const body = composeComment({ deploymentId: 'dep-1', ledger });
    expect(body.split('\n')[0]).toBe('<!-- datamodel-ci:comment deployment=dep-1 -->');
    expect(body).toContain('### ✅ Data-model preview · ready');
    const { view: _view, ...facts } = ledger;
    expect(parseComment(body)).toEqual({ deploymentId: 'dep-1', ledger: facts });
  });

  it('round-trips a ledger with hostile content', () => {
    const hostile: Ledger = {
      deploymentId: 'dep --> "x" <!--',
      branch: 'feat/--><!-- datamodel-ci:ledger e30= -->"quoted"',
      devBranch: 'line\nbreak\u0000',
      headSha: 'b'.repeat(40),
      runId: 123456789012,
      updatedAt: '2024-05-01T00:00:00.000Z',
      state: 'open',
      view: {
        ...view,
        branch: 'feat/--><!-- x -->',
        validation: { valid: false, errorCount: 1, errors: [{ file: 'a-->b.yml', message: '<!-- forged -->' }] },
        state: 'invalid',
      },
    };
    const body = composeComment({ deploymentId: hostile.deploymentId, ledger: hostile });
    // Every hidden comment opens and closes on its own line: nothing in the ledger or the view ends one early.
    for (const line of body.split('\n').filter((l) => l.includes('<!--'))) expect(line).toMatch(/^<!-- [^>]* -->$/);
    expect(body.match(/<!--/g)).toHaveLength(2);
    expect(body.split('\n')[0]).not.toContain('"');
    const { view: _view, ...facts } = hostile;
    expect(parseComment(body)).toEqual({ deploymentId: hostile.deploymentId, ledger: facts });
  });

  it('ignores a ledger that names another deployment, comments that are not ours, and a view that does not parse', () => {
    const body = composeComment({ deploymentId: 'a', ledger: { deploymentId: 'a' } }).replace(
      /\n.*\n?$/,
      `\n<!-- datamodel-ci:ledger ${encodeLedger({ deploymentId: 'b', devBranch: 'main' })} -->\n`,
    );
    expect(parseComment(body)).toMatchObject({ deploymentId: 'a', ledger: undefined });
    expect(parseComment('hello\n<!-- datamodel-ci:comment deployment=a -->').deploymentId).toBeUndefined();
    expect(parseComment('<!-- datamodel-ci:ledger !!! -->').ledger).toBeUndefined();
    expect(parseComment(`${commentMarker('a')}\n<!-- datamodel-ci:ledger bm90IGpzb24= -->`).ledger).toBeUndefined();
    const odd = `${commentMarker('a')}\n<!-- datamodel-ci:ledger ${encodeLedger({ deploymentId: 'a', view: { state: 'exploded' } as unknown as PreviewView })} -->`;
    expect(parseComment(odd).ledger).toEqual({ deploymentId: 'a' });
  });

  it('reads a body GitHub stored with CRLF line ends', () => {
    const body = composeComment({ deploymentId: 'd', ledger: { deploymentId: 'd', view } });
    expect(parseComment(body.replace(/\n/g, '\r\n'))).toEqual(parseComment(body));
    expect(() => composeComment({ deploymentId: '', ledger: { deploymentId: '' } })).toThrow(/empty/);
  });

  it('keeps the body under 65 000 characters, showing fewer errors until it fits', () => {
    const errors = Array.from({ length: 400 }, (_, i) => ({ file: `model/cubes/c${i}.yml`, line: 3, message: 'x'.repeat(900) }));
    const big: PreviewView = {
      ...view,
      state: 'invalid',
      repoUrl: 'https://github.com/o/r',
      validation: { valid: false, errorCount: 400, errors: errors.slice(0, 20) },
    };
    const body = composeComment({ deploymentId: 'd', ledger: { deploymentId: 'd', view: big }, render: { errors, commentErrors: 400 } });
    expect(body.length).toBeLessThan(COMMENT_LIMIT);
    expect(body).toMatch(/more errors are listed in the job summary/);
  });
});

describe('upsertStickyComment against the GitHub stand-in', () => {
  let standin: GitHubStandin;
  let api: GitHubApi;
  const example = opened;
  const pr = example.number;
  const head = example.pull_request.head.sha;
  const runUrl = 'https://github.com/Codertocat/Hello-World/actions/runs/1';

  /** One run that writes a view saying `failure` (a simple way to put text in the comment). */
  function run(step: string, message: string, overrides: Partial<UpsertOptions> = {}) {
    const headSha = overrides.headSha ?? head;
    return upsertStickyComment(api, {
      pr,
      deploymentId: 'dep-1',
      headSha,
      runId: 1,
      runUrl,
      update: (current) => ({
        ledger: {
          ...current?.ledger,
          branch: example.pull_request.head.ref,
          devBranch: `pr-${pr}`,
          state: 'open',
          view: { state: 'failed', headSha, failure: { step, message } },
        },
      }),
      ...overrides,
    });
  }

  beforeAll(async () => {
    standin = await startGitHubStandin({ repository: example.repository.full_name });
    standin.addPull({
      number: pr,
      headSha: head,
      headRef: example.pull_request.head.ref,
      baseRef: example.pull_request.base.ref,
      title: example.pull_request.title,
      user: example.pull_request.user.login,
    });
    api = createGitHubApi({
      token: 'ghs_test',
      repository: example.repository.full_name,
      apiUrl: standin.url,
      ca: standin.ca,
      userAgent: 'datamodel-ci-test',
    });
  });

  afterAll(async () => {
    expect(standin.violations).toEqual([]);
    await standin.close();
  });

  it('reads the PR created from the pull_request.opened example', async () => {
    expect(await api.getPull(pr)).toMatchObject({
      number: 2,
      state: 'open',
      merged: false,
      headSha: example.pull_request.head.sha,
      headRef: 'changes',
      baseRef: 'master',
      title: example.pull_request.title,
      fork: false,
      closedAt: null,
    });
    expect(await api.getPull(9_999)).toBeUndefined();
    const req = standin.requests.at(-2)!;
    expect(req.headers.authorization).toBe('token ghs_test');
    expect(req.headers['user-agent']).toContain('datamodel-ci-test');
  });

  it('creates the comment once, then updates the same one', async () => {
    const first = await run('preview', 'Preview of `dep-1`');
    expect(first).toMatchObject({ written: true, created: true, duplicates: [] });
    expect(standin.comments(pr)).toHaveLength(1);

    const second = await run('validate', '2 errors in models/a|b.sql @team', { runId: 2 });
    expect(second).toMatchObject({ written: true, created: false, commentId: first.commentId });
    const comments = standin.comments(pr);
    expect(comments).toHaveLength(1);
    expect(comments[0]!.user).toBe(BOT_LOGIN);
    const parsed = parseComment(comments[0]!.body);
    expect(comments[0]!.body).toContain('**validate failed:** 2 errors in models/a\\|b\\.sql @\u200Bteam');
    expect(parsed.ledger).toMatchObject({ deploymentId: 'dep-1', headSha: head, runId: 2, devBranch: 'pr-2', branch: 'changes' });
    expect(await readLedger(api, pr, 'dep-1')).toEqual(parsed.ledger);
  });

  it('does not write once a newer commit owns the PR', async () => {
    const before = standin.comments(pr)[0]!.body;
    const newer = 'c'.repeat(40);
    standin.setHead(pr, newer);
    const stale = await run('validate', 'old result');
    expect(stale).toMatchObject({ written: false, reason: 'stale' });
    expect(standin.comments(pr)[0]!.body).toBe(before);

    const fresh = await run('validate', 'new result', { headSha: newer, runId: 3 });
    expect(fresh).toMatchObject({ written: true, created: false });
    expect(parseComment(standin.comments(pr)[0]!.body).ledger?.headSha).toBe(newer);
    standin.setHead(pr, head);
  });

  it('writes nothing when update returns null', async () => {
    const before = standin.comments(pr)[0]!.body;
    expect(await run('x', 'y', { update: () => null })).toMatchObject({ written: false, reason: 'skipped' });
    expect(standin.comments(pr)[0]!.body).toBe(before);
  });

  it('keeps one comment per deployment', async () => {
    const other = await run('preview', 'other deployment', { deploymentId: 'dep-2' });
    expect(other).toMatchObject({ written: true, created: true });
    await run('preview', 'other deployment, again', { deploymentId: 'dep-2' });
    await run('dbt', 'dbt synced');
    const ids = standin.comments(pr).map((c) => parseComment(c.body).deploymentId);
    expect(ids).toEqual(['dep-1', 'dep-2']);
    expect(standin.comments(pr)[1]!.body).toContain('other deployment, again');
  });

  it('finds its comment after 120 others (pagination) and never creates a second one', async () => {
    const busy = pr + 100;
    standin.addPull({ number: busy, headSha: head, headRef: 'busy', title: 'busy' });
    for (let i = 0; i < 120; i++) standin.addComment(busy, `comment ${i}`, i % 10 === 0 ? 'renovate[bot]' : 'octocat');
    const created = await run('preview', 'p', { pr: busy });
    expect(created).toMatchObject({ written: true, created: true });
    for (let i = 0; i < 5; i++) standin.addComment(busy, `later ${i}`);

    const before = standin.requests.length;
    const again = await run('validate', 'v', { pr: busy });
    expect(again).toMatchObject({ written: true, created: false, commentId: created.commentId });
    const ours = standin.comments(busy).filter((c) => parseComment(c.body).deploymentId === 'dep-1');
    expect(ours).toHaveLength(1);
    expect(standin.comments(busy)).toHaveLength(126);
    const pages = standin.requests.slice(before).filter((r) => r.method === 'GET' && r.path.endsWith('/comments'));
    expect(pages.map((r) => [r.query.get('per_page'), r.query.get('page') ?? '1'])).toEqual([
      ['100', '1'],
      ['100', '2'],
    ]);
    expect(await api.listComments(busy)).toHaveLength(126);
  });

  it('pages through the stand-in default of 30 with a correct Link header', async () => {
    const busy = pr + 100;
    const res = await fetchStandin(`/repos/${standin.repository}/issues/${busy}/comments?page=2`);
    expect(res.status).toBe(200);
    expect((await res.json()) as unknown[]).toHaveLength(30);
    const link = res.headers.get('link') ?? '';
    expect(link).toContain(`<${standin.url}/repos/${standin.repository}/issues/${busy}/comments?page=3&per_page=30>; rel="next"`);
    expect(link).toContain('page=5&per_page=30>; rel="last"');
    expect(link).toContain('rel="prev"');
  });

  it('updates the oldest of two racing comments and reports the other', async () => {
    const racy = pr + 200;
    standin.addPull({ number: racy, headSha: head, headRef: 'racy' });
    // A human cannot take the comment over by copying our marker and a ledger.
    const forged = standin.addComment(racy, composeComment({ deploymentId: 'dep-1', ledger: { deploymentId: 'dep-1', devBranch: 'main' } }));
    const a = await run('preview', 'a', { pr: racy });
    const copy = standin.addComment(racy, standin.comments(racy).at(-1)!.body, BOT_LOGIN);
    const b = await run('validate', 'b', { pr: racy });
    expect(b).toMatchObject({ written: true, created: false, commentId: a.commentId, duplicates: [copy.id] });
    const after = standin.comments(racy);
    expect(after.find((c) => c.id === copy.id)!.body).toBe(copy.body);
    expect(after.find((c) => c.id === forged.id)!.body).toBe(forged.body);
    expect(after.find((c) => c.id === a.commentId)!.body).toContain('**validate failed:** b');
    expect(findStickyComments(await api.listComments(racy), 'dep-1').map((c) => c.id)).toEqual([a.commentId, copy.id]);
    expect((await readLedger(api, racy, 'dep-1'))?.devBranch).toBe(`pr-${pr}`);
  });

  it('stays within GitHub limits with a very long message', async () => {
    const big = pr + 300;
    standin.addPull({ number: big, headSha: head, headRef: 'big' });
    const result = await run('validate', 'error | '.repeat(20_000), {
      pr: big,
      update: () => ({
        ledger: {
          view: nextView(undefined, { headSha: head, runId: 1 }, { state: 'failed', failure: { step: 'validate', message: 'error | '.repeat(20_000) } }),
        },
      }),
    });
    expect(result).toMatchObject({ written: true, created: true });
    const body = standin.comments(big)[0]!.body;
    expect(body.length).toBeLessThan(COMMENT_LIMIT);
  });

  it('writes the cleanup section after the PR is merged', async () => {
    standin.closePull(pr, true);
    expect(await api.getPull(pr)).toMatchObject({ state: 'closed', merged: true });
    const ledger = await readLedger(api, pr, 'dep-1');
    const result = await run('cleanup', `Removed ${ledger?.devBranch ?? ''}`, {
      update: (current) => ({ ledger: { ...current?.ledger, state: 'cleaned', view: { state: 'merged', headSha: head, deployBranch: 'main' } } }),
    });
    expect(result).toMatchObject({ written: true, created: false });
    expect(await readLedger(api, pr, 'dep-1')).toMatchObject({ state: 'cleaned', devBranch: 'pr-2' });
  });

  async function fetchStandin(path: string): Promise<Response> {
    const { Agent, fetch } = await import('undici');
    const res = await fetch(`${standin.url}${path}`, {
      headers: { 'user-agent': 'test', authorization: 'token ghs_test' },
      dispatcher: new Agent({ connect: { ca: standin.ca } }),
    });
    return res;
  }
});

describe('the GitHub stand-in checks requests against GitHub REST description', () => {
  it('answers 422 and records a violation for a request GitHub would reject', async () => {
    const standin = await startGitHubStandin();
    try {
      standin.addPull({ number: 1, headSha: 'a'.repeat(40), headRef: 'x' });
      const api = createGitHubApi({ token: 'ghs_test', repository: standin.repository, apiUrl: standin.url, ca: standin.ca });
      await expect(api.createComment(1, 'x'.repeat(70_000))).rejects.toMatchObject({ status: 422 });
      await expect(api.updateComment(1, 5 as unknown as string)).rejects.toMatchObject({ status: 422 });
      expect(standin.violations.map((v) => v.operationId)).toEqual(['issues/create-comment', 'issues/update-comment']);
      expect(standin.violations[0]!.errors.join()).toContain('too long');
      expect(standin.violations[1]!.errors.join()).toContain('body/body must be string');
    } finally {
      await standin.close();
    }
  });
});
