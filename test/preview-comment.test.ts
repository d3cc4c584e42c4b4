/**
 * The PR comment in every state, rendered as GitHub renders it (GFM, then GitHub's sanitiser): the
 * state in the one heading, a two-column table of steps, the links right, no entity or zero-width
 * character in what a person reads or copies, no run of blank lines, and hostile text inert.
 */
import { describe, expect, it } from 'vitest';
import { composeComment } from '../src/pr/comment/ledger.js';
import { rewriteCompilerText as hint } from '../src/model/compiler-text.js';
import { nextView, type PreviewView, type ViewError } from '../src/pr/comment/view.js';
import { renderPreview } from '../src/pr/comment/render-preview.js';
import { selectAll } from 'hast-util-select';
import { toText } from 'hast-util-to-text';
import { renderGfm, type Rendered } from './support/gfm.js';

const SHA = '4f1c2d3e5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d';
const REPO = 'https://github.com/acme/analytics';
const base: PreviewView = {
  state: 'ready',
  headSha: SHA,
  runId: 4242,
  runUrl: `${REPO}/actions/runs/4242`,
  repoUrl: REPO,
  updatedAt: '2026-11-23T20:10:00.000Z',
  branch: 'preview-pr-11',
  deployBranch: 'main',
  previewUrl: 'https://acme.cubecloud.dev/d/1/schema?branch=preview-pr-11',
  restUrl: 'https://acme.cubecloud.dev/d/1/dev-mode/preview-pr-11/cubejs-api/v1',
};

function comment(view: PreviewView, errors?: ViewError[]): { md: string; html: Rendered } {
  const md = renderPreview(view, { target: 'comment', ...(errors ? { errors } : {}) });
  return { md, html: renderGfm(md) };
}

/** What every state must satisfy. */
function wellFormed(md: string, html: Rendered): void {
  expect(html.headings).toHaveLength(1);
  expect(html.headings[0]!.level).toBe(3);
  expect(md).not.toMatch(/\n{3,}/);
  // No entity or zero-width character in what is read or copied.
  expect(html.text).not.toMatch(/&#?\w+;/);
  for (const c of html.codes) expect(c).not.toMatch(/[\u200B-\u200F\u2060\uFEFF]/);
  for (const t of html.tables) for (const row of t.rows) expect(row).toHaveLength(t.head.length);
  for (const l of html.links) expect(l.href).toMatch(/^https:\/\//);
}

const upload = { sent: 1, deleted: 0, unchanged: 4 };
const broken: ViewError = {
  file: 'model/cubes/orders.yml',
  line: 13,
  message:
    'orders cube: (measures.total.type = summ) must be one of [count, number, string, boolean, time, sum, avg, min, max, countDistinct, countDistinctApprox]',
};

describe('the PR comment, rendered as GitHub renders it', () => {
  it('updating: the state and the commit first, no table yet', () => {
    const { md, html } = comment({ ...base, state: 'updating' });
    wellFormed(md, html);
    expect(html.headings[0]!.text).toBe(`⏳ Data-model preview · updating for ${SHA.slice(0, 7)}`);
    expect(html.tables).toEqual([]);
    expect(html.links.map((l) => l.href)).toContain(`${REPO}/commit/${SHA}`);
  });

  it('opened and valid: ready, one table of steps, the preview page, the REST address as code, commit and run links', () => {
    const { md, html } = comment({ ...base, upload, validation: { valid: true, cubes: 4, errorCount: 0, errors: [] }, staging: { enabled: true } });
    wellFormed(md, html);
    expect(html.headings[0]!.text).toBe('✅ Data-model preview · ready');
    expect(html.tables).toEqual([
      {
        head: ['Step', 'Result'],
        rows: [
          ['Upload', '✅ 1 file sent, 0 deleted, 4 unchanged'],
          ['Validation', '✅ valid: 4 cubes and views'],
          ['Staging', '✅ running'],
        ],
      },
    ]);
    expect(html.links).toEqual(
      expect.arrayContaining([
        { href: base.previewUrl, text: 'preview-pr-11' },
        { href: `${REPO}/commit/${SHA}`, text: SHA.slice(0, 7) },
        { href: base.runUrl, text: '#4242' },
      ]),
    );
    expect(html.codes).toContain(base.restUrl);
    expect(html.text).toContain('Updated: 2026-11-23 20:10 UTC');
  });

  it('invalid: the count in the heading, errors first as links to their lines, a hint, no long list of values', () => {
    const { md, html } = comment({ ...base, state: 'invalid', upload, validation: { valid: false, errorCount: 1, errors: [broken] } }, [broken]);
    wellFormed(md, html);
    expect(html.headings[0]!.text).toBe('❌ Data-model preview · 1 error in 1 file');
    expect(html.links).toEqual(
      expect.arrayContaining([
        { href: `${REPO}/blob/${SHA}/model/cubes/orders.yml`, text: 'model/cubes/orders.yml' },
        { href: `${REPO}/blob/${SHA}/model/cubes/orders.yml#L13`, text: 'line 13' },
      ]),
    );
    expect(html.text).toContain('orders cube: (measures.total.type = summ) must be one of 11 allowed values. Did you mean sum?');
    expect(html.text).not.toContain('countDistinctApprox');
  });

  it('invalid: a root cause with its echoes folded under it, one line each for what the model adds and the files it also breaks', () => {
    const root: ViewError = {
      file: 'model/cubes/users.yml',
      line: 12,
      message: 'users cube: "dimensions.city" does not match any of the allowed types',
      notes: ['also breaks: model/cubes/orders.yml, model/views/orders_view.yml'],
    };
    const cycle: ViewError = {
      file: 'model/cubes/archive.yml',
      line: 3,
      message: 'Maximum call stack size exceeded',
      notes: ['circular extends: archive → archived_orders → archive'],
    };
    const errors = [root, cycle];
    const { md, html } = comment({ ...base, state: 'invalid', upload, validation: { valid: false, errorCount: 2, errors } }, errors);
    wellFormed(md, html);
    // Two root causes in two files: the echoes are not counted.
    expect(html.headings[0]!.text).toBe('❌ Data-model preview · 2 errors in 2 files');
    const items = selectAll('li', html.tree).map((li) => toText(li));
    const nested = (text: string) => items.find((t) => t.startsWith(text));
    expect(nested('also breaks: model/cubes/orders.yml, model/views/orders_view.yml')).toBeDefined();
    expect(nested('circular extends: archive → archived_orders → archive')).toBeDefined();
    // Each note is its own list item inside the error's item, right under the message.
    const rootItem = items.find((t) => t.startsWith('line 12'))!;
    expect(
      rootItem
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean),
    ).toEqual([
      'line 12: users cube: "dimensions.city" does not match any of the allowed types',
      'also breaks: model/cubes/orders.yml, model/views/orders_view.yml',
    ]);
  });

  it('failed: the fix hint the terminal prints under the failure is under it in the comment too', () => {
    const failure = {
      step: 'Preview',
      message: 'GET /api/v1/deployments -> 401: invalid token',
      hint: 'the platform refused the API key (401): check that --api-key (DATAMODEL_CI_API_KEY) holds the whole key',
    };
    const { md, html } = comment({ ...base, state: 'failed', failure });
    wellFormed(md, html);
    const paragraphs = selectAll('p', html.tree).map((p) => toText(p));
    const at = paragraphs.findIndex((p) => p.startsWith('Preview failed: GET /api/v1/deployments -> 401: invalid token'));
    expect(at).toBeGreaterThanOrEqual(0);
    expect(paragraphs[at + 1]).toBe('Hint: the platform refused the API key (401): check that --api-key (DATAMODEL_CI_API_KEY) holds the whole key');
  });

  it('fixed after a broken push, and failed after a good run: only this run shows', () => {
    const brokenRun = nextView(
      undefined,
      { headSha: 'a'.repeat(40), runId: 1 },
      { ...base, state: 'invalid', validation: { valid: false, errorCount: 1, errors: [broken] } },
    );
    const fixed = nextView(brokenRun, { headSha: SHA, runId: 2 }, { ...base, state: 'ready', upload, validation: { valid: true, errorCount: 0, errors: [] } });
    const f = comment(fixed);
    wellFormed(f.md, f.html);
    expect(f.html.text).not.toContain('summ');
    const failed = nextView(
      fixed,
      { headSha: 'b'.repeat(40), runId: 3 },
      { ...base, state: 'failed', upload, failure: { step: 'Preview', message: 'POST /build/api/v1/deployments/1/data-model/upload/finish -> 503: busy' } },
    );
    const g = comment(failed);
    wellFormed(g.md, g.html);
    expect(g.html.headings[0]!.text).toBe('❌ Data-model preview · failed');
    expect(g.html.text).toContain('Preview failed: POST /build/api/v1/deployments/1/data-model/upload/finish -> 503: busy');
    expect(g.html.text).not.toMatch(/valid|Staging/);
  });

  it('merged: one line naming the deploy branch, no staging address; in CLI deploy mode it says production was not rebuilt', () => {
    const merged = comment({ ...base, state: 'merged', merge: { deployMode: 'git', productionUpdated: true }, cleanup: { deleted: ['preview-pr-11'] } });
    wellFormed(merged.md, merged.html);
    expect(merged.html.headings[0]!.text).toBe('🔀 Data-model preview · merged into main');
    expect(merged.html.text).toContain('preview-pr-11 was merged into main');
    expect(merged.md).not.toContain('cubejs-api');
    expect(merged.html.tables).toEqual([]);
    const cli = comment({ ...base, state: 'merged', merge: { deployMode: 'cli', productionUpdated: false } });
    expect(cli.html.text).toContain('Production was not rebuilt');
  });

  it('closed without merging, and a fork PR skipped (job summary)', () => {
    const closed = comment({ ...base, state: 'closed' });
    wellFormed(closed.md, closed.html);
    expect(closed.html.headings[0]!.text).toBe('Data-model preview · closed');
    expect(closed.html.text).toContain('Closed without merging');
    const fork = renderGfm(
      renderPreview({ ...base, state: 'skipped', skipped: 'Nothing was validated: pull request #12 comes from a fork.' }, { target: 'summary' }),
    );
    expect(fork.headings[0]!.text).toBe('⏭️ Data-model preview · skipped: fork PR');
    expect(fork.text).toContain('Nothing was validated');
  });

  it('65 errors: grouped by file, the first ones in the comment, the rest counted and linked to the job summary; all in the summary', () => {
    const errors: ViewError[] = Array.from({ length: 65 }, (_, i) => ({
      file: `model/cubes/c${i % 4}.yml`,
      line: i + 1,
      message: `c${i % 4} cube: error number ${i}`,
    }));
    const view: PreviewView = { ...base, state: 'invalid', validation: { valid: false, errorCount: 65, errors: errors.slice(0, 20) } };
    const { md, html } = comment(view, errors);
    wellFormed(md, html);
    expect(html.headings[0]!.text).toBe('❌ Data-model preview · 65 errors in 4 files');
    const lineLinks = html.links.filter((l) => l.text.startsWith('line '));
    expect(lineLinks.length).toBe(15);
    expect(html.text).toContain('50 more errors are listed in the job summary');
    expect(html.links.find((l) => l.text.includes('more errors'))!.href).toBe(base.runUrl);
    const summary = renderGfm(renderPreview(view, { target: 'summary', errors }));
    expect(summary.links.filter((l) => l.text.startsWith('line '))).toHaveLength(65);
    expect(summary.headings).toHaveLength(1);
    // The stored comment stays within GitHub's limit.
    expect(composeComment({ deploymentId: '1', ledger: { deploymentId: '1', view }, render: { errors } }).length).toBeLessThan(65_000);
  });

  it('renders hostile names and messages inert: no HTML, mention, reference or link of theirs', () => {
    const evil: ViewError = {
      file: 'model/<img src=x onerror=alert(1)>|x`y.yml',
      line: 2,
      message: '@team see #12 [click](https://evil.example) <script>alert(1)</script> **bold** 3333333',
    };
    const { md, html } = comment({ ...base, state: 'invalid', branch: 'feat/`x`|y', validation: { valid: false, errorCount: 1, errors: [evil] } }, [evil]);
    wellFormed(md, html);
    expect(html.links.every((l) => l.href.startsWith(REPO) || l.href.startsWith('https://acme.cubecloud.dev'))).toBe(true);
    expect(JSON.stringify(html.tree)).not.toMatch(/"tagName":"(img|script)"/);
    expect(html.text).toContain('@\u200Bteam see #\u200B12 [click](https://evil.example) <script>alert(1)</script> **bold** 3333333');
    expect(html.codes).toContain('https://evil.example');
    expect(html.codes).toContain('model/<img src=x onerror=alert(1)>|x`y.yml');
    expect(html.codes).toContain('feat/`x`|y');
  });
});

describe('hints', () => {
  it('suggests the nearest allowed value and shortens a long list', () => {
    expect(hint('orders cube: (measures.total.type = summ) must be one of [count, number, string, boolean, time, sum, avg]')).toEqual({
      message: 'orders cube: (measures.total.type = summ) must be one of 7 allowed values',
      suggestion: 'sum',
    });
    expect(hint('x: (joins[0].relationship = manyToFew) must be one of [belongsTo, hasMany, hasOne]')).toEqual({
      message: 'x: (joins[0].relationship = manyToFew) must be one of [belongsTo, hasMany, hasOne]',
    });
    expect(hint('users is not defined')).toEqual({ message: 'users is not defined' });
    // Cube's own wording names the value only in its "Possible reasons"; the hint keeps it.
    const real =
      'orders cube: "measures.total.type" must be one of [count, number, string, boolean, time, sum, avg]. "measures.total.sql" is not allowed\n' +
      'Possible reasons (one of):\n\t* (measures.total.type = summ) must be one of [count, number, string, boolean, time, sum, avg]\n\t* (measures.total.sql = () => `amount`) is not allowed';
    expect(hint(real)).toEqual({ message: 'orders cube: "measures.total.type" must be one of 7 allowed values', given: 'summ', suggestion: 'sum' });
  });
});
