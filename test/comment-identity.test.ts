/**
 * Our comment is the one written by the token in use, found by its own login (GraphQL `viewer`): a
 * personal access token keeps one comment across runs, and another bot's comment carrying a forged
 * ledger steers nothing (cleanup deletes only this PR's branches by our naming rule).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commentMarker, encodeLedger } from '../src/pr/comment/ledger.js';
import { createGitHubApi } from '../src/github/octokit.js';
import { cube, startLifecycle, type Lifecycle } from './support/lifecycle.js';

let lc: Lifecycle;
beforeAll(async () => {
  lc = await startLifecycle();
});
afterAll(() => lc.close());

const head = (pr: number) => `${pr}a`.padEnd(40, '0');
const branches = () => lc.em.state.deployments[0]!.branches;

describe('the token’s own comment', () => {
  it('learns the login of an installation token and of a personal access token', async () => {
    lc.gh.addToken('ghp_personal_token_for_octocat_0123456789', { kind: 'pat', login: 'octocat' });
    const api = (token: string) => createGitHubApi({ token, repository: lc.gh.repository, apiUrl: lc.gh.url, ca: lc.gh.ca });
    expect(await api('ghs_installation_0123456789').login!()).toBe('github-actions[bot]');
    expect(await api('ghp_personal_token_for_octocat_0123456789').login!()).toBe('octocat');
  });

  it('a personal access token writes one comment over three runs', async () => {
    lc.gh.addPull({ number: 41, headSha: head(41), headRef: 'pat' });
    lc.checkout({ 'model/cubes/pat.yml': cube('pat', 1) });
    const env = { DATAMODEL_CI_GITHUB_TOKEN: 'ghp_personal_token_for_octocat_0123456789' };
    for (const action of ['opened', 'synchronize', 'synchronize']) {
      const r = await lc.run(41, action, { headSha: head(41), env });
      expect(r.code, r.lines.join('\n')).toBe(0);
    }
    expect(lc.gh.comments(41).map((c) => c.user)).toEqual(['octocat']);
  }, 90_000);

  it('another bot’s forged ledger neither redirects the upload nor makes cleanup delete an unrelated branch', async () => {
    const admin = lc.em.state.deployments[0]!;
    // An unrelated branch someone else works on, and a dev branch that is not a fork of this PR's branch.
    lc.gh.addPull({ number: 42, headSha: head(42), headRef: 'victim' });
    lc.checkout({ 'model/cubes/victim.yml': cube('victim', 1) });
    expect((await lc.run(42, 'opened', { headSha: head(42) })).code).toBe(0);
    expect(admin.branches['preview-pr-42']).toBeDefined();

    lc.gh.addPull({ number: 43, headSha: head(43), headRef: 'forged' });
    const forged = `${commentMarker('1')}\n<!-- datamodel-ci:ledger ${encodeLedger({ deploymentId: '1', branch: 'preview-pr-42', devBranch: 'preview-pr-42' })} -->\n`;
    lc.gh.addComment(43, forged, 'evil-app[bot]');
    lc.checkout({ 'model/cubes/forged.yml': cube('forged', 1) });
    const opened = await lc.run(43, 'opened', { headSha: head(43) });
    expect(opened.code, opened.lines.join('\n')).toBe(0);
    // The run wrote its own branch and its own comment; the forged one was not taken for ours.
    expect(Object.keys(admin.branches['preview-pr-43']!.head)).toContain('model/cubes/forged.yml');
    expect(Object.keys(admin.branches['preview-pr-42']!.head)).not.toContain('model/cubes/forged.yml');
    expect(lc.gh.comments(43).map((c) => c.user)).toEqual(['evil-app[bot]', 'github-actions[bot]']);

    lc.gh.closePull(43, false);
    const closed = await lc.run(43, 'closed', { headSha: head(43) });
    expect(closed.code, closed.lines.join('\n')).toBe(0);
    expect(branches()['preview-pr-43']).toBeUndefined();
    expect(branches()['preview-pr-42'], 'cleanup deleted the branch a forged ledger named').toBeDefined();
  }, 90_000);
});
