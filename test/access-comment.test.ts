/**
 * The "Who can see what" section: every change kind in words, the probes' counts as evidence, saved
 * content lost; folded when long, capped in a comment and whole in the job summary; one line without
 * personas; nothing when nothing changed and no policy is touched. Names and messages from outside are
 * inert. The outputs count changes and gains, and `fail-on-exposure` fails on a gain only.
 */
import { describe, expect, it } from 'vitest';
import { ACCESS_CHANGE_KINDS, type AccessChange, type AccessOutcome } from '../src/impact/access/types.js';
import { accessLines, accessView, renderAccess } from '../src/pr/comment/render-access.js';
import { renderPreview } from '../src/pr/comment/render-preview.js';
import { VIEW_ACCESS_ROWS, nextView } from '../src/pr/comment/view.js';
import { COMMENT_LIMIT, composeComment } from '../src/pr/comment/ledger.js';
import { presentImpact } from '../src/pr/presenters.js';
import { changeSetJson } from '../src/pr/records.js';
import type { ImpactResult } from '../src/operations/impact.js';
import { renderGfm } from './support/gfm.js';

const zero = { reports: 0, dashboards: 0, notifications: 0, workbooks: 0 };
const change = (
  persona: string,
  kind: AccessChange['change'],
  target = 'orders_view.amount',
  detail = 'group finance no longer in the policy',
): AccessChange => ({
  persona,
  target,
  change: kind,
  detail,
});

function outcome(over: Partial<AccessOutcome> = {}): AccessOutcome {
  return {
    personas: ['analyst', 'finance'],
    policyTargets: ['orders_view'],
    changes: [],
    lost: [],
    probes: [],
    notices: [],
    ...over,
  };
}

function impact(access: AccessOutcome | undefined): ImpactResult {
  return {
    base: 'main',
    head: 'preview-pr-7',
    counts: { breaking: 0, added: 0, changed: 0 },
    affected: [],
    affectedCounts: zero,
    scanned: zero,
    notices: [],
    changes: { members: [], cubes: [] },
    ...(access ? { access } : {}),
  } as unknown as ImpactResult;
}

describe('Who can see what, in the comment', () => {
  it('every change kind in words, gains marked, with the probes as evidence and the content lost', () => {
    const changes = ACCESS_CHANGE_KINDS.map((k, i) => change(i % 2 ? 'finance' : 'analyst', k, `orders_view.m${i}`));
    const a = outcome({
      changes,
      lost: [{ persona: 'analyst', kind: 'report', id: 3, name: 'Revenue by region', url: 'https://cube.example/r/3', members: ['orders_view.m0'] }],
      probes: [{ persona: 'analyst', target: 'orders_view', counted: 'orders_view.count', production: { rows: 1204 }, preview: { rows: 0 } }],
    });
    const md = renderAccess(accessView(a), { target: 'comment' }).join('\n');
    for (const words of ['hidden', '⚠️ exposed', 'masked', '⚠️ unmasked', 'fewer rows', '⚠️ more rows', 'row filter changed', '⛔ no rows at all'])
      expect(md).toContain(`| ${words} |`);
    expect(md).toContain('**Who can see what** (2 personas; 1 access policy touched): 8 changes, ⚠️ 3 gaining access');
    const rendered = renderGfm(md);
    expect(rendered.links).toEqual([{ href: 'https://cube.example/r/3', text: 'Revenue by region' }]);
    expect(rendered.text).toContain('Saved content it can no longer see: Revenue by region (report, uses orders_view.m0)');
    // The probes are folded, with counts only.
    expect(md).toContain('<details><summary>Persona probes: 1 counting query on each side (row counts only, never a value)</summary>');
    expect(rendered.tables.at(-1)?.rows).toEqual([['analyst', 'orders_view', 'orders_view.count', '1,204', '0']]);
  });

  it('folds each persona when long; a comment shows the first rows and the job summary all', () => {
    const many = Array.from({ length: 30 }, (_, i) => change('analyst', 'hidden', `orders_view.m${i}`));
    const v = accessView(outcome({ changes: [...many, change('finance', 'exposed')] }));
    const comment = renderAccess(v, { target: 'comment', runUrl: 'https://github.com/o/r/actions/runs/1' }).join('\n');
    expect(comment).toContain('<details><summary>analyst: 30 changes</summary>');
    expect(comment).toContain('<details><summary>finance: 1 change, 1 gaining access</summary>');
    expect(comment.match(/^\| hidden/gm)).toHaveLength(10);
    expect(comment).toContain('… 20 more changes [in the job summary](https://github.com/o/r/actions/runs/1).');
    expect(
      renderAccess(v, { target: 'summary' })
        .join('\n')
        .match(/^\| hidden/gm),
    ).toHaveLength(30);
    // Short: open, no fold.
    const short = renderAccess(accessView(outcome({ changes: [change('analyst', 'masked')] })), { target: 'comment' }).join('\n');
    expect(short).not.toContain('<details><summary>analyst');
    expect(short).toContain('`analyst`: 1 change');
  });

  it('without personas, one line naming the policies touched and how to add personas; nothing at all when no policy is touched', () => {
    const line = renderAccess(accessView(outcome({ personas: [], policyTargets: ['orders', 'secret_view'] })), { target: 'comment' });
    expect(line[0]).toBe(
      '**Who can see what**: this pull request touches the access policy of `orders`, `secret_view`. Name the kinds of users in a personas file (input `personas`, docs/impact.md) to see who gains or loses what.',
    );
    expect(renderAccess(accessView(outcome({ personas: [], policyTargets: [] })), { target: 'comment' })).toEqual([]);
    expect(renderAccess(accessView(outcome({ policyTargets: [] })), { target: 'comment' })).toEqual([]);
    expect(renderAccess(accessView(outcome()), { target: 'comment' })[0]).toContain('no persona sees anything differently');
  });

  it('a cube or view added under a policy: who sees it and who does not, in the comment, the ledger and a terminal', () => {
    const a = outcome({ policyTargets: [], changes: [], probes: [], newGuarded: [{ target: 'finance_orders', seenBy: ['finance'] }] });
    const want = 'New under a policy: `finance_orders`, seen by `finance`; not by `analyst`.';
    const shown = renderAccess(accessView({ ...a, personas: ['analyst', 'finance'] }), { target: 'comment' });
    expect(shown).toContain(want);
    expect(accessLines({ ...a, personas: ['analyst', 'finance'] })).toContain('  new under a policy: finance_orders, seen by finance');
    const nobody = renderAccess(accessView({ ...a, personas: ['analyst'], newGuarded: [{ target: 'finance_orders', seenBy: [] }] }), { target: 'comment' });
    expect(nobody).toContain('New under a policy: `finance_orders`, seen by none of the personas.');
  });

  it('names and messages from outside are inert: no HTML, no mention, no link', () => {
    const hostile = '<img src=x onerror=alert(1)> @octocat https://evil.example';
    const a = outcome({
      personas: [`ana|${hostile}`],
      changes: [change(`ana|${hostile}`, 'exposed', `v.${hostile}`, hostile), ...Array.from({ length: 9 }, () => change(`ana|${hostile}`, 'hidden'))],
      lost: [{ persona: `ana|${hostile}`, kind: 'report', id: 1, name: hostile, url: 'javascript:alert(1)', members: [hostile] }],
      probes: [{ persona: hostile, target: hostile, counted: hostile, production: { refused: hostile }, preview: { error: hostile } }],
      notices: [hostile],
      probesNotRun: { count: 1, why: hostile },
    });
    const md = renderAccess(accessView(a), { target: 'comment' }).join('\n');
    const rendered = renderGfm(md);
    expect(JSON.stringify(rendered.tree)).not.toContain('"tagName":"img"');
    expect(rendered.links).toEqual([]);
    // A mention shows only inside code spans, where GitHub resolves none.
    const mentions = (s: string) => s.split('@octocat').length - 1;
    expect(mentions(rendered.text)).toBe(mentions(rendered.codes.join(' ')));
    expect(mentions(rendered.codes.join(' '))).toBeGreaterThan(0);
    expect(md).toContain('<details><summary>ana|&lt;img src=x onerror=alert(1)&gt; @\u200Boctocat');
    // Every table keeps its columns: a `|` in a name does not split a cell.
    for (const t of rendered.tables) for (const row of t.rows) expect(row).toHaveLength(t.head.length);
  });

  it('the ledger keeps the first rows, and the comment renders from it', () => {
    const changes = Array.from({ length: 60 }, (_, i) => change('analyst', 'rows-narrowed', `v${i}`, 'x'.repeat(900)));
    const v = nextView(undefined, { headSha: 'abc', runId: 1 }, { state: 'ready', access: accessView(outcome({ changes })) });
    expect(v.access?.changes).toHaveLength(VIEW_ACCESS_ROWS);
    expect(v.access?.changes[0]?.detail.length).toBeLessThanOrEqual(160);
    expect(v.access?.changeTotal).toBe(60);
    const md = renderPreview(v, { target: 'comment' });
    expect(md).toContain('**Who can see what** (2 personas; 1 access policy touched): 60 changes');
    expect(md).toContain(`… ${60 - VIEW_ACCESS_ROWS} more changes in the job summary.`);
  });
});

describe("the comment stays within GitHub's limit", () => {
  it('every list and text of the review at its longest: the ledger keeps a bounded part, the comment fits', () => {
    const long = (c: string) => c.repeat(2_000);
    const a = outcome({
      personas: Array.from({ length: 100 }, (_, i) => `${long('p')}${i}`),
      policyTargets: Array.from({ length: 100 }, () => long('t')),
      changes: Array.from({ length: 500 }, (_, i) => change(`${long('p')}${i % 100}`, 'exposed', long('m'), long('d'))),
      lost: Array.from({ length: 200 }, () => ({
        persona: long('p'),
        kind: 'report' as const,
        id: 1,
        name: long('n'),
        members: [long('m'), long('m'), long('m'), long('m')],
      })),
      probes: Array.from({ length: 300 }, () => ({
        persona: long('p'),
        target: long('t'),
        counted: long('c'),
        production: { refused: long('r') },
        preview: { error: long('e') },
      })),
      notices: Array.from({ length: 50 }, () => long('x')),
      probesNotRun: { count: 9, why: long('w') },
    });
    const view = nextView(undefined, { headSha: 'abc', runId: 1 }, { state: 'ready', access: accessView(a) });
    const body = composeComment({ deploymentId: '1', ledger: { deploymentId: '1', branch: 'preview-pr-1', view } });
    // Its share of the comment, beside the other sections (the whole comment's limit is COMMENT_LIMIT).
    expect(body.length).toBeLessThan(COMMENT_LIMIT * 0.6);
  });
});

describe('in a terminal (`diff`)', () => {
  it('one line of counts, then one per change, capped; without personas, the policies touched', () => {
    const a = outcome({
      changes: [change('analyst', 'exposed'), ...Array.from({ length: 3 }, (_, i) => change('fin\u001b[31mance', 'rows-narrowed', `v${i}`, 'rows 9 → 3'))],
      lost: [{ persona: 'analyst', kind: 'report', id: 1, name: 'Revenue', members: ['orders_view.amount'] }],
      probes: [{ persona: 'analyst', target: 'v', counted: 'v.count', production: { rows: 9 }, preview: { rows: 3 } }],
    });
    expect(accessLines(a, 2)).toEqual([
      'who can see what: 2 personas, 4 changes, 1 gaining access; 1 persona probe',
      '  analyst: exposed orders_view.amount: group finance no longer in the policy',
      '  fin [31mance: rows-narrowed v0: rows 9 → 3',
      '  … 2 more changes (--json has them all)',
      '  analyst: no longer sees report Revenue',
    ]);
    expect(accessLines(outcome({ personas: [], policyTargets: ['orders'] }))).toEqual([
      'who can see what: policies touched: orders (no personas file: --personas)',
    ]);
    expect(accessLines(outcome({ personas: [], policyTargets: [] }))).toEqual([]);
  });
});

describe('outputs, fail-on-exposure and the JSON', () => {
  it('access-changed-count counts every change, exposed-count the gains; fail-on-exposure fails on a gain only', () => {
    const gains = outcome({ changes: [change('analyst', 'exposed'), change('finance', 'rows-widened', 'orders_view'), change('finance', 'hidden')] });
    const p = presentImpact(impact(gains), false, true);
    expect(p.outputs['access-changed-count']).toBe('3');
    expect(p.outputs['exposed-count']).toBe('2');
    expect(p.failure).toBe('preview-pr-7 gives 2 personas (analyst, finance) more access: 2 changes (fail-on-exposure is true)');
    expect(presentImpact(impact(gains), false, false).failure).toBeUndefined();
    const losses = outcome({ changes: [change('analyst', 'hidden'), change('analyst', 'denied-all', 'orders_view')] });
    expect(presentImpact(impact(losses), false, true).failure).toBeUndefined();
    expect(presentImpact(impact(losses), false, true).outputs['exposed-count']).toBe('0');
    const none = presentImpact(impact(undefined), false, true);
    expect([none.outputs['access-changed-count'], none.outputs['exposed-count'], none.view.access]).toEqual(['', '', undefined]);
  });

  it("the change set's JSON carries the changes and the probes, never the personas' contexts", () => {
    const a = outcome({
      changes: [change('analyst', 'denied-all', 'orders_view')],
      probes: [{ persona: 'analyst', target: 'orders_view', counted: 'orders_view.count', production: { rows: 3 }, preview: { rows: 0 } }],
      personaDefinitions: [{ name: 'analyst', groups: ['analysts'], securityContext: { tenant: 'acme' } }],
      targetMeta: [],
    });
    const json = changeSetJson(1, impact(a)) as unknown as { access: Record<string, unknown> };
    expect(Object.keys(json.access)).toEqual(['personas', 'policyTargets', 'changes', 'lost', 'probes', 'notices']);
    expect(JSON.stringify(json)).not.toContain('acme');
  });
});
