/**
 * The comment read in ten seconds (issue 38): the verdict in one line under the heading, a red comment's
 * errors before anything else, the steps folded when all are green, whose numbers they are, the content
 * whose numbers move named, members named by kind, a lean ledger, and a 40-model pull request with every
 * section on under GitHub's limit with each section's headline kept.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { affectedContent, type ContentItem } from '../src/impact/base/affected.js';
import type { ChangeSet, MemberChange } from '../src/impact/base/diff.js';
import { contextShown } from '../src/impact/data/types.js';
import { impactSummaryLine } from '../src/operations/impact.js';
import {
  COMMENT_LIMIT,
  GITHUB_COMMENT_LIMIT,
  composeComment,
  decodeLedger,
  encodeLedger,
  parseComment,
  type Ledger,
  type ModelLedger,
} from '../src/pr/comment/ledger.js';
import { membersByKind } from '../src/pr/comment/render-impact.js';
import { renderNumbers, whose } from '../src/pr/comment/render-numbers.js';
import { renderPreview } from '../src/pr/comment/render-preview.js';
import { verdict } from '../src/pr/comment/render-verdict.js';
import { keepRunView, readRunView } from '../src/pr/comment/view-store.js';
import type { PreviewView } from '../src/pr/comment/view.js';
import { fullAccess, fullImpact, fullNumbers, fullView } from './support/full-view.js';

const SHA = '4f1c2d3e5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d';
const base: PreviewView = { state: 'ready', headSha: SHA, runId: 9, repoUrl: 'https://github.com/acme/analytics', branch: 'preview-pr-3' };
const green = { upload: { sent: 1, deleted: 0, unchanged: 4 }, validation: { valid: true, errorCount: 0, errors: [], cubes: 5 }, staging: { enabled: true } };

describe('the verdict line', () => {
  it('says what the pull request does in one line under the heading, facet by facet', () => {
    const impact = {
      ...fullImpact(),
      breakingTotal: 2,
      content: { breaks: { report: 3, dashboard: 0, notification: 0 }, numbers: { report: 0, dashboard: 2, notification: 0 } },
    };
    const access = {
      ...fullAccess(),
      personas: ['analyst'],
      changes: [{ persona: 'analyst', target: 'orders', change: 'rows-narrowed' as const, detail: 'rows 5,000 → 4,483' }],
      probes: [{ persona: 'analyst', target: 'orders', counted: 'orders.count', production: { rows: 5000 }, preview: { rows: 4483 } }],
      changeTotal: 1,
    };
    const cost = {
      rollups: { groups: [], rebuilt: [], truncated: [], totals: { changes: 8, lost: 8, rebuilt: 0, truncated: 0 }, planned: 8, notRun: 0, notices: [] },
    };
    const v: PreviewView = { ...base, ...green, impact, access, cost };
    expect(verdict(v)).toBe(
      '**2 breaking · 3 reports hit · numbers move on 2 dashboards · `analyst` sees 517 fewer rows of `orders` · 8 key queries leave their rollup**',
    );
    const lines = renderPreview(v, { target: 'comment' }).split('\n');
    expect(lines[0]).toBe('### ✅ Data-model preview · ready');
    expect(lines[2]).toBe(verdict(v));
  });

  it('a change that moves nothing says so; a change that breaks nothing says what it adds', () => {
    const none = {
      ...fullImpact(),
      breakingTotal: 0,
      valuesTotal: 0,
      otherTotal: 0,
      counts: { added: 0, changed: 0 },
      content: undefined,
      affectedTotal: 0,
      movingTotal: 0,
    };
    expect(verdict({ ...base, ...green, impact: none })).toBe('✅ valid · no change to the semantic layer');
    expect(verdict({ ...base, ...green, impact: { ...none, otherTotal: 2, counts: { added: 2, changed: 0 } } })).toBe('✅ valid · nothing breaks · 2 added');
    expect(verdict({ ...base, ...green })).toBe('✅ valid');
  });

  it('definitions that differ while every key query reads the same are said as such, not as numbers that move', () => {
    const impact = {
      ...fullImpact(),
      breakingTotal: 0,
      content: { breaks: { report: 0, dashboard: 0, notification: 0 }, numbers: { report: 1, dashboard: 0, notification: 0 } },
    };
    const numbers = { ...fullNumbers(), total: 8, changed: 0 };
    expect(verdict({ ...base, ...green, impact, numbers })).toBe('**1 report computed differently, numbers unchanged in 8 key queries**');
  });

  it('only a ready preview has one: a red or closed comment leads with what went wrong or what happened', () => {
    for (const state of ['invalid', 'failed', 'updating', 'merged', 'closed'] as const)
      expect(verdict({ ...base, state, impact: fullImpact() })).toBeUndefined();
  });
});

describe('a red comment', () => {
  const errors = [{ file: 'model/cubes/orders.yml', line: 8, message: 'orders cube: "measures.amount.type" must be one of [count, sum], not summ' }];
  const invalid: PreviewView = { ...base, ...green, state: 'invalid', validation: { valid: false, errorCount: 1, errors } };

  it('shows its errors first, and nothing above them reads as green', () => {
    const md = renderPreview(invalid, { target: 'comment' });
    const lines = md.split('\n');
    expect(lines[0]).toBe('### ❌ Data-model preview · 1 error in 1 file');
    expect(lines[2]).toBe('**Errors**');
    const above = md.slice(0, md.indexOf('**Errors**'));
    expect(above).not.toContain('✅');
    expect(md).not.toContain('running');
    // The steps come after the errors, unfolded (one is red), and say staging does not serve this model.
    expect(md.indexOf('| Step | Result |')).toBeGreaterThan(md.indexOf('Did you mean'));
    expect(md).not.toContain('<details><summary>Steps');
    expect(md).toContain("⚠️ on, but not serving this commit's model (it has errors)");
  });

  it('a failure leads too, before the steps', () => {
    const md = renderPreview(
      { ...base, ...green, state: 'failed', failure: { step: 'Impact', message: 'production /meta answered 503' } },
      { target: 'comment' },
    );
    expect(md.split('\n')[2]).toBe('**Impact failed:** production /meta answered 503');
    expect(md.indexOf('**Impact failed:**')).toBeLessThan(md.indexOf('| Step | Result |'));
  });

  it('a green comment folds its steps under one line', () => {
    const md = renderPreview({ ...base, ...green }, { target: 'comment' });
    expect(md).toContain('<details><summary>Steps: ✅ Upload · ✅ Validation · ✅ Staging</summary>');
  });
});

describe('whose numbers they are', () => {
  it('names the security context the key queries ran with: its groups, its other keys by name, never their values', () => {
    expect(contextShown({})).toEqual({ groups: [], keys: [] });
    expect(whose(contextShown({}))).toBe('as a user with no groups (empty security context)');
    const shown = contextShown({ cubeCloud: { groups: ['finance', 'finance'] }, tenant_id: 'acme-secret-42' });
    expect(shown).toEqual({ groups: ['finance'], keys: ['tenant_id'] });
    expect(whose(shown)).toBe('as a user in group `finance`; security context with `tenant_id`');
    expect(JSON.stringify(shown)).not.toContain('acme-secret-42');
    const head = renderNumbers({ ...fullNumbers(), context: { groups: [], keys: [] } }, { target: 'comment' })[0];
    expect(head).toMatch(/^\*\*Numbers\*\* \(production → preview, 30 key queries in 3\.2 s, as a user with no groups \(empty security context\)\)/);
  });
});

describe('content whose numbers move', () => {
  const member = (name: string, over: Partial<MemberChange>): MemberChange => ({
    member: name,
    cube: name.split('.')[0]!,
    cubeType: 'cube',
    kind: 'measure',
    change: 'changed',
    breaking: false,
    details: ['sql changed'],
    ...over,
  });
  const changes = {
    members: [
      member('orders.status', { kind: 'dimension', change: 'removed', breaking: true, details: ['removed'] }),
      member('orders.amount', { values: true }),
    ],
    cubes: [],
  } as unknown as ChangeSet;
  const content: ContentItem[] = [
    {
      kind: 'report',
      id: 1,
      name: 'By status',
      uses: [
        { member: 'orders.status', place: 'dimensions' },
        { member: 'orders.amount', place: 'measures' },
      ],
    },
    { kind: 'report', id: 2, name: 'Revenue', uses: [{ member: 'orders.amount', place: 'measures' }] },
    { kind: 'dashboard', id: 3, name: 'Board', uses: [], shows: [{ reportId: 2, place: 'widget “Revenue”' }] },
    { kind: 'report', id: 4, name: 'Untouched', uses: [{ member: 'orders.count', place: 'measures' }] },
  ];

  it('names each item once, saying whether it breaks or its numbers move (through a widget too)', () => {
    const affected = affectedContent(changes, content, [{ member: 'orders.amount', why: 'sql changed' }]);
    expect(affected.map((a) => [a.kind, a.name, a.effect])).toEqual([
      ['report', 'By status', 'breaks'],
      ['report', 'Revenue', 'numbers-move'],
      ['dashboard', 'Board', 'numbers-move'],
    ]);
    const line = impactSummaryLine({
      counts: { breaking: 1, added: 0, changed: 0, values: 1 },
      affectedCounts: { report: 1, dashboard: 0, notification: 0 },
      numbersMoveCounts: { report: 1, dashboard: 1, notification: 0 },
      changes,
    });
    expect(line).toBe('1 breaking, 1 values change, 0 added, 0 changed; 1 report affected; numbers move on 1 report and 1 dashboard');
  });
});

describe('members named as what they are', () => {
  it('measures first, then dimensions, then segments; a member of unknown kind as a member', () => {
    expect(
      membersByKind([
        { member: 'o.status', kind: 'dimension' },
        { member: 'o.count', kind: 'measure' },
        { member: 'o.total', kind: 'measure' },
        { member: 'o.x' },
      ]),
    ).toBe('measures `o.count`, `o.total`; dimension `o.status`; member `o.x`');
  });
});

describe('the ledger', () => {
  const facts: Ledger = {
    deploymentId: '7',
    branch: 'preview-pr-3',
    created: 'preview-pr-3',
    stagingOn: 'preview-pr-3',
    forks: ['pr-3-fork'],
    landed: { branch: 'preview-pr-3', digest: 'd1', mark: { status: 'done', jobId: 'j1', updatedAt: 1 } },
    validated: { branch: 'preview-pr-3', headSha: SHA, valid: true, digest: 'd1', build: { status: 'done', jobId: 'j2' } },
    production: { branch: 'main', mark: { status: 'done', jobId: 'j0' } },
    headSha: SHA,
    runId: 9,
    state: 'open',
  };

  it('keeps the facts cleanup, the merge and the proof act on, not the rendered view, deflated', () => {
    const encoded = encodeLedger({ ...facts, view: fullView() });
    expect(Buffer.from(encoded, 'base64')[0]).toBe(0x78);
    expect(encoded.length).toBeLessThan(600);
    expect(decodeLedger(encoded)).toEqual(facts);
    const body = composeComment({ deploymentId: '7', ledger: { ...facts, view: fullView() } });
    expect(parseComment(body).ledger).toEqual(facts);
    expect(body).toContain('**Semantic layer**');
  });

  it('still reads an older comment (plain base64 JSON with its view and staging URL): its facts, not its view', () => {
    const old = Buffer.from(JSON.stringify({ ...facts, stagingUrl: 'https://x.example/cubejs-api/v1', view: fullView() }), 'utf8').toString('base64');
    expect(decodeLedger(old)).toEqual(facts);
  });

  it('refuses a deflated ledger that inflates past a megabyte', () => {
    const bomb = deflateSync(Buffer.from(JSON.stringify({ deploymentId: '7', pad: 'x'.repeat(2 << 20) }))).toString('base64');
    expect(decodeLedger(bomb)).toBeUndefined();
  });
});

describe('a 40-model monorepo pull request with every section on', () => {
  const models: ModelLedger[] = Array.from({ length: 40 }, (_, n) => ({
    key: `models/team_${n}`,
    deploymentId: String(100 + n),
    branch: `preview-pr-5-${n}`,
    created: `preview-pr-5-${n}`,
    view: fullView(n),
  }));

  it('fits under GitHub’s 65,536 characters and keeps each section’s headline and verdict', () => {
    const body = composeComment({ deploymentId: 'models', ledger: { deploymentId: 'models', models } });
    expect(body.length).toBeLessThanOrEqual(COMMENT_LIMIT);
    expect(COMMENT_LIMIT).toBeLessThan(GITHUB_COMMENT_LIMIT);
    const count = (s: string) => body.split(s).length - 1;
    for (const headline of ['**Semantic layer**', '**Who can see what**', '**Numbers**', '**Cost**', 'Steps: ✅ Upload'])
      expect(count(headline), headline).toBe(40);
    expect(count('**30 breaking · 10 reports, 10 dashboards and 10 notifications hit')).toBe(40);
    for (let n = 0; n < 40; n++) expect(body).toContain(`\`models/team_${n}/\` (deployment ${100 + n})`);
    // The ledger keeps every model's facts, and stays small.
    const ledger = parseComment(body).ledger;
    expect(ledger?.models?.map((m) => m.created)).toEqual(models.map((m) => m.created));
    expect(body.match(/<!-- datamodel-ci:ledger (\S+) -->/)![1]!.length).toBeLessThan(4000);
  });

  it('one model alone keeps its whole sections (the headlines are the fallback only)', () => {
    const body = composeComment({ deploymentId: '100', ledger: { deploymentId: '100', view: fullView(0) } });
    expect(body.length).toBeLessThanOrEqual(COMMENT_LIMIT);
    expect(body).toContain('| Member | In | Change |');
    expect(body).toContain('| Rollup (production → preview) | Change | Key queries |');
  });
});

describe("the run's view between the steps of one job", () => {
  const saved = process.env.RUNNER_TEMP;
  let dir: string | undefined;
  afterEach(() => {
    if (saved === undefined) delete process.env.RUNNER_TEMP;
    else process.env.RUNNER_TEMP = saved;
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('is left in RUNNER_TEMP and taken up only by the same run at the same head commit', () => {
    dir = mkdtempSync(join(tmpdir(), 'view-store-'));
    process.env.RUNNER_TEMP = dir;
    const key = { deploymentId: 7, pr: 3 };
    const view: PreviewView = { ...base, ...green };
    keepRunView(key, view);
    expect(readRunView(key, { headSha: SHA, runId: 9 })).toEqual(view);
    expect(readRunView(key, { headSha: SHA, runId: 10 })).toBeUndefined();
    expect(readRunView(key, { headSha: 'f'.repeat(40), runId: 9 })).toBeUndefined();
    expect(readRunView({ ...key, label: 'finance' }, { headSha: SHA, runId: 9 })).toBeUndefined();
    delete process.env.RUNNER_TEMP;
    expect(readRunView(key, { headSha: SHA, runId: 9 })).toBeUndefined();
  });
});
