/**
 * The pure parts of merge queues and monorepos: the `deployments` input, the queue's branch names and its
 * event, which folders a change touches, and the comment of several models (its ledger read back, its
 * sections rendered, forged parts dropped).
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { inputsOf, actionSpec } from '../src/action-spec.js';
import { branchForQueue, prOfBranch, prOfQueueBranch } from '../src/branch-names.js';
import { InputError } from '../src/client/errors.js';
import { MAX_MODELS, parseDeployments } from '../src/deployments-input.js';
import { mergeGroupFromPayload } from '../src/github/event.js';
import { touches } from '../src/pr/changed-files.js';
import { underFolder } from '../src/deployments-input.js';
import { composeComment, encodeLedger, MODELS_COMMENT, parseComment, type Ledger } from '../src/pr/comment/ledger.js';
import type { PreviewView } from '../src/pr/comment/view.js';
import { InputReader, readCommon } from '../src/settings.js';

const API = 'https://acme.cubecloud.dev';
const refused = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    if (e instanceof InputError) return e.message;
    throw e;
  }
  throw new Error('expected an InputError');
};

describe('the deployments input', () => {
  it('reads folder → id, a string id, and a map with its own tenant, in the order given', () => {
    const t = parseDeployments('./analytics/: 12\nfinance:\n  deployment-id: "34"\n  api-url: https://eu.acme.cubecloud.dev\nops/warehouse: 5\n', API);
    expect(t).toEqual([
      { key: 'analytics', modelDir: 'analytics', deploymentId: 12, apiUrl: API },
      { key: 'finance', modelDir: 'finance', deploymentId: 34, apiUrl: 'https://eu.acme.cubecloud.dev' },
      { key: 'ops/warehouse', modelDir: 'ops/warehouse', deploymentId: 5, apiUrl: API },
    ]);
    expect(parseDeployments('{"analytics": 1, "finance": {"deployment-id": 2}}', API).map((x) => x.deploymentId)).toEqual([1, 2]);
    // The same id on another tenant is another deployment.
    expect(parseDeployments('a: 1\nb: { deployment-id: 1, api-url: "https://other.cubecloud.dev" }', API)).toHaveLength(2);
  });

  it('refuses what it cannot use, naming the entry', () => {
    expect(refused(() => parseDeployments('analytics: 1\nanalytics: 2', API))).toMatch(
      /^deployments: got "analytics: 1", expected a map .*Map keys must be unique/,
    );
    expect(refused(() => parseDeployments('analytics: 0', API))).toMatch(/^deployments \(entry analytics\): got 0, expected the id/);
    expect(refused(() => parseDeployments('/abs: 1', API))).toMatch(/^deployments \(entry "\/abs"\): got "\/abs", expected a folder inside/);
    expect(refused(() => parseDeployments('".": 1\nfinance: 2', API))).toMatch(/entries \. and finance.*apart/);
    expect(refused(() => parseDeployments('a: { api-url: "https://x.dev" }', API))).toMatch(
      /^deployments \(entry a\)\.deployment-id: got nothing, expected the id/,
    );
    const many = Array.from({ length: MAX_MODELS + 1 }, (_, i) => `m${i}: ${i + 1}`).join('\n');
    expect(refused(() => parseDeployments(many, API))).toContain(`expected at most ${MAX_MODELS} models`);
  });

  it('replaces deployment-id and model-dir in the settings: the first model names the run', () => {
    const reader = (given: Record<string, string>) =>
      new InputReader(
        (n) => given[n],
        inputsOf(actionSpec('pr')).map((i) => ({ ...i })),
      );
    const s = readCommon(reader({ 'api-url': API, deployments: 'analytics: 3\nfinance: 4', 'model-dir': '.' }));
    expect(s).toMatchObject({ deploymentId: 3, modelDir: 'analytics', targets: [{ key: 'analytics' }, { key: 'finance' }] });
    expect(readCommon(reader({ 'api-url': API, 'deployment-id': '7' })).targets).toBeUndefined();
    expect(refused(() => readCommon(reader({ 'api-url': API, deployments: 'a: 3', 'model-dir': 'a' })))).toMatch(/^model-dir: got "a", expected empty/);
    expect(refused(() => readCommon(reader({ 'api-url': API })))).toMatch(/^deployment-id: got nothing/);
    // Other actions do not take it: a stray variable changes nothing.
    const validate = new InputReader((n) => ({ 'api-url': API, 'deployment-id': '2', deployments: 'a: 9' })[n], inputsOf(actionSpec('validate')));
    expect(readCommon(validate)).toMatchObject({ deploymentId: 2 });
    expect(inputsOf(actionSpec('pr')).find((i) => i.name === 'deployment-id')?.required).toBe(false);
    expect(inputsOf(actionSpec('validate')).find((i) => i.name === 'deployment-id')?.required).toBe(true);
  });
});

describe('merge queue names and events', () => {
  it("names a queue entry's branch from the PR and the group's commit, and tells it from a PR's", () => {
    const name = branchForQueue('preview-', 12, 'ABCDEF0123456789'.repeat(2) + '01234567');
    expect(name).toBe('preview-mq-12-abcdef012345');
    expect(prOfQueueBranch('preview-', name)).toBe(12);
    expect(prOfBranch('preview-', name)).toBeUndefined();
    expect(prOfQueueBranch('preview-', 'preview-pr-12')).toBeUndefined();
    expect(prOfQueueBranch('other-', name)).toBeUndefined();
  });

  it("reads GitHub's merge_group example, and refuses a group that is not a queue's", () => {
    const examples = (createRequire(import.meta.url)('@octokit/webhooks-examples') as { name: string; examples: Record<string, unknown>[] }[]).find(
      (d) => d.name === 'merge_group',
    )!.examples;
    const group = mergeGroupFromPayload(examples[0]);
    expect(group).toEqual({
      headSha: '2ffea6db159f6b6c47a24e778fb9ef40cf6b1c7d',
      headRef: 'refs/heads/gh-readonly-queue/main/pr-104-929f8209d40f77f4abc622a499c93a83babdbe64',
      baseSha: '380387fbc80638b734a49e1be1c4dfec1c01b33c',
      baseRef: 'refs/heads/main',
      pr: 104,
    });
    const bad = structuredClone(examples[0]!) as { merge_group: Record<string, unknown> };
    bad.merge_group.head_ref = 'refs/heads/feature';
    expect(refused(() => mergeGroupFromPayload(bad))).toMatch(/^event payload\.merge_group\.head_ref: got "refs\/heads\/feature", expected a merge queue ref/);
  });
});

describe('which folders a change touches', () => {
  it('a path under the folder (not one that only starts like it); `.` holds everything; unknown touches all', () => {
    expect(underFolder('analytics/model/a.yml', 'analytics')).toBe(true);
    expect(underFolder('analytics-old/a.yml', 'analytics')).toBe(false);
    expect(underFolder('README.md', '.')).toBe(true);
    expect(touches({ known: true, files: ['finance/cube.js'] }, './analytics/')).toBe(false);
    expect(touches({ known: false, why: 'a cut list' }, 'analytics')).toBe(true);
  });
});

describe('the comment of several models', () => {
  const view = (state: PreviewView['state'], extra: Partial<PreviewView> = {}): PreviewView => ({ state, headSha: 'a'.repeat(40), runId: 7, ...extra });
  const ledger: Ledger = {
    deploymentId: MODELS_COMMENT,
    models: [
      {
        key: 'analytics',
        deploymentId: '1',
        branch: 'preview-pr-5',
        state: 'open',
        view: view('invalid', { validation: { valid: false, errorCount: 1, errors: [{ message: 'bad' }] } }),
      },
      { key: 'finance', deploymentId: '3', state: 'untouched', untouched: 'no change' },
    ],
  };

  it('reads its sections back from the ledger, in order', () => {
    const body = composeComment({ deploymentId: MODELS_COMMENT, ledger });
    expect(parseComment(body).ledger?.models?.map((m) => [m.key, m.deploymentId, m.branch ?? null, m.untouched ?? null])).toEqual([
      ['analytics', '1', 'preview-pr-5', null],
      ['finance', '3', null, 'no change'],
    ]);
  });

  it('leads with the worst state, then a section per model; a model not previewed says so in a line', () => {
    const body = composeComment({ deploymentId: MODELS_COMMENT, ledger }).replace(/<!--[\s\S]*?-->\n?/g, '');
    const headings = body.split('\n').filter((l) => l.startsWith('#'));
    expect(headings).toEqual([
      '### ❌ Data-model previews · 2 models: 1 invalid, 1 not previewed',
      '#### ❌ `analytics/` (deployment 1) · 1 error in 1 file',
      '#### ⏭️ `finance/` (deployment 3) · not previewed',
    ]);
    expect(body).toContain('The pull request changes no file under `finance/`: nothing to preview.');
  });

  it('drops a section without a folder, and a forged merge commit', () => {
    const forged = {
      ...ledger,
      models: [...ledger.models!, { deploymentId: '9', branch: 'x' }],
      view: view('merged', { queue: { sha: '<script>' } }),
    };
    const parsed = parseComment(`<!-- datamodel-ci:comment deployment=models -->\n<!-- datamodel-ci:ledger ${encodeLedger(forged as Ledger)} -->\n`).ledger!;
    expect(parsed.models?.map((m) => m.key)).toEqual(['analytics', 'finance']);
    expect(parsed.view?.queue).toBeUndefined();
  });
});
