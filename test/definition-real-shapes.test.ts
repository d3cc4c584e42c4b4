/**
 * The definition diff on the shapes public Cube projects take every week (issue 30), each a commit on a
 * school network's model (test/support/school-model.ts): a view's join path re-pointed, a cube renamed on
 * the same table, a measure's aggregation changed, members that were never public retyped or removed.
 * Each is read as the definition diff reads it, then with both sides' `/meta` from Cube's compiler folded
 * in as the impact step does, down to the counts and the comment's rows.
 */
import { describe, expect, it } from 'vitest';
import { filesOf } from '../packages/emulator/src/build/trees.js';
import { metaBody } from '../packages/emulator/src/engine/meta.js';
import { compileTree } from '../packages/emulator/src/engine/model.js';
import { countChanges, diffMeta } from '../src/impact/base/diff.js';
import { compareDefinitions, definitionsFor } from '../src/impact/definition/index.js';
import { parseMeta, type MetaDocument } from '../src/impact/base/meta.js';
import { impactView, renderImpact } from '../src/pr/comment/render-impact.js';
import { impactSummaryLine, type ImpactResult } from '../src/operations/impact.js';
import { REPOINTED, RENAMED, SCHOOL_MODEL, schoolEdit } from './support/school-model.js';

const map = (files: Record<string, string>) => new Map(Object.entries(files));
const rows = (base: Record<string, string>, head: Record<string, string>) =>
  compareDefinitions(map(base), map(head)).changes.map((c) => [c.member ?? c.cube, c.aspect, c.class, c.detail]);

async function meta(files: Record<string, string>): Promise<MetaDocument> {
  const r = await compileTree(filesOf(files));
  if (!r.compilers) throw new Error(`the test model does not compile: ${JSON.stringify(r.errors)}`);
  return parseMeta(JSON.parse(JSON.stringify(metaBody(r.compilers))), 'test');
}

/** Both layers compared as the impact step compares them: `/meta` diffed with what the files tell, then the definitions folded in. */
async function impact(head: Record<string, string>, base = SCHOOL_MODEL): Promise<ImpactResult> {
  const step = await definitionsFor(Promise.resolve(map(base)), map(head));
  const changes = diffMeta(await meta(base), await meta(head), step.metaOptions);
  const definition = step.apply(changes);
  return {
    base: 'main',
    head: 'preview-pr-30',
    changes,
    definition,
    counts: countChanges(changes),
    affected: [],
    affectedCounts: { report: 0, dashboard: 0, notification: 0 },
    scanned: { report: 0, dashboard: 0, notification: 0 },
    notices: [],
  };
}

const brief = (r: ImpactResult) => [
  ...r.changes!.cubes.map((c) => [c.name, c.change, !!c.breaking, (c.details ?? []).join('; ')]),
  ...r.changes!.members.map((m) => [m.member, m.change, m.breaking, m.details.join('; ')]),
];

describe('a view member reached through another join path', () => {
  it('is a values change of the view members concerned, though /meta shows nothing', async () => {
    const detail = 'join path scores.administrations.dates → scores.dates';
    expect(rows(SCHOOL_MODEL, REPOINTED)).toEqual([
      ['scores_view.date_key', 'join path', 'values', detail],
      ['scores_view.school_year', 'join path', 'values', detail],
    ]);
    const r = await impact(REPOINTED);
    expect(diffMeta(await meta(SCHOOL_MODEL), await meta(REPOINTED))).toEqual({ cubes: [], members: [] });
    expect(brief(r)).toEqual([
      ['scores_view.date_key', 'changed', false, detail],
      ['scores_view.school_year', 'changed', false, detail],
    ]);
    expect(r.counts).toEqual({ breaking: 0, values: 2, added: 0, changed: 0 });
  });

  it('one that crosses the same cubes and tables under other names is no change (a twin cube on the same table, joined alike)', () => {
    const calendarJoin = '      - name: calendar\n        sql: "{calendar.date_key} = {CUBE}.scored_on"\n        relationship: many_to_one\n    measures:\n';
    const withCalendar = (files: Record<string, string>) => ({
      ...files,
      'model/cubes/scores.yml': files['model/cubes/scores.yml']!.replace('    measures:\n', calendarJoin),
      'model/cubes/calendar.yml': files['model/cubes/dates.yml']!.replace('name: dates', 'name: calendar'),
    });
    const head = { ...REPOINTED, 'model/views/scores_view.yml': REPOINTED['model/views/scores_view.yml']!.replace('scores.dates', 'scores.calendar') };
    // From scores.dates to scores.calendar: the same table, joined on the same column (the members stand for another cube's).
    expect(rows(withCalendar(REPOINTED), withCalendar(head)).filter((r) => r[1] === 'join path')).toEqual([]);
  });
});

describe('a cube renamed on the same table, every join following it', () => {
  it('is one "renamed" row of the cube, its joins following it: nothing breaking, no values change', async () => {
    expect(rows(SCHOOL_MODEL, RENAMED)).toEqual([
      [
        'enrollment_stints',
        'name',
        'non-breaking',
        'renamed to school_enrollments (same table marts.dim_enrollments); the joins of attendance and scores follow it',
      ],
    ]);
    expect(compareDefinitions(map(SCHOOL_MODEL), map(RENAMED)).values.size).toBe(0);
    const r = await impact(RENAMED);
    // The view members keep their names and now stand for school_enrollments' members: no row of theirs.
    expect(brief(r)).toEqual([
      ['enrollment_stints', 'renamed', false, 'renamed to school_enrollments (same table marts.dim_enrollments); the joins of attendance and scores follow it'],
    ]);
    expect(r.counts).toEqual({ breaking: 0, added: 0, changed: 1 });
    expect(impactSummaryLine(r)).toBe('0 breaking, 0 added, 1 changed; no content affected');
    const md = renderImpact(impactView(r), { target: 'comment' }).join('\n');
    expect(md).toContain('<details><summary>Other changes (1)</summary>');
    expect(md).toContain('| `enrollment_stints` | the cube itself | renamed to school\\_enrollments');
    expect(md).not.toContain('Breaking changes');
  });

  it("a public cube's rename stays /meta's, breaking (its members' names change); its joins and the views still follow it", async () => {
    const shown = (files: Record<string, string>) =>
      Object.fromEntries(Object.entries(files).map(([p, t]) => [p, /enrollment/.test(p) ? t.replace('    public: false\n', '') : t]));
    const r = await impact(shown(RENAMED), shown(SCHOOL_MODEL));
    expect(brief(r)).toEqual([
      ['enrollment_stints', 'renamed', false, ''],
      ['enrollment_stints.grade_level', 'renamed', true, 'cube renamed to school_enrollments'],
      ['enrollment_stints.stints', 'renamed', true, 'cube renamed to school_enrollments'],
    ]);
    expect(r.counts).toEqual({ breaking: 2, added: 0, changed: 0 });
  });

  it('a renamed cube whose own definition changed too is compared as itself (a join added)', () => {
    const more = { ...RENAMED };
    more['model/cubes/school_enrollments.yml'] = RENAMED['model/cubes/school_enrollments.yml']!.replace(
      '    measures:\n',
      '    joins:\n      - name: dates\n        sql: "{dates.date_key} = {CUBE}.entry_date"\n        relationship: many_to_one\n    measures:\n',
    );
    expect(rows(SCHOOL_MODEL, more).map((r) => r.slice(0, 3))).toEqual([
      ['enrollment_stints', 'name', 'non-breaking'],
      ['school_enrollments', 'join', 'non-breaking'],
    ]);
  });
});

describe("a measure's aggregation changed", () => {
  const AGG = schoolEdit({
    'model/cubes/scores.yml': [
      ['        sql: student_id\n        type: count\n', '        sql: student_id\n        type: count_distinct\n'],
      ['        sql: points\n        type: avg\n', '        sql: points\n        type: sum\n'],
      ['        sql: subject\n        type: string\n', '        sql: subject\n        type: number\n'],
    ],
  });

  it('is a values change (queries still run; the numbers change), moving what stands for it; a dimension retyped stays breaking', async () => {
    expect(rows(SCHOOL_MODEL, AGG)).toEqual([
      ['scores.avg_points', 'aggregation', 'values', 'aggregation avg → sum'],
      ['scores.students_tested', 'aggregation', 'values', 'aggregation count → count_distinct'],
    ]);
    const r = await impact(AGG);
    expect(brief(r)).toEqual([
      ['scores_view.subject', 'changed', true, 'type string → number'],
      ['scores.avg_points', 'changed', false, 'aggregation avg → sum'],
      ['scores.students_tested', 'changed', false, 'aggregation count → count_distinct'],
      ['scores_view.avg_points', 'changed', false, 'aggregation avg → sum'],
      ['scores_view.students_tested', 'changed', false, 'aggregation count → count_distinct'],
    ]);
    expect(r.counts).toEqual({ breaking: 1, values: 4, added: 0, changed: 0 });
    expect(r.definition!.values.map((v) => v.member)).toEqual([
      'scores.avg_points',
      'scores.students_tested',
      'scores_view.avg_points',
      'scores_view.students_tested',
    ]);
  });
});

describe('members that were never public, retyped or removed', () => {
  const HIDDEN = schoolEdit({
    'model/cubes/scores.yml': [
      // The helper under a public ratio: its aggregation changes the ratio's numbers.
      ['"CASE WHEN {CUBE}.mastered THEN 1 ELSE 0 END"\n        type: sum\n', '"CASE WHEN {CUBE}.mastered THEN 1 ELSE 0 END"\n        type: max\n'],
      // A primary key hidden by default, retyped.
      ['        sql: score_id\n        type: string\n', '        sql: score_id\n        type: number\n'],
      // A `shown: false` dimension removed.
      ['      - name: raw_points\n        sql: points\n        type: number\n        shown: false\n', ''],
    ],
    // A primary key hidden by default, removed for one of another name on the same column.
    'model/cubes/attendance.yml': [['name: attendance_id', 'name: attendance_key']],
  });

  it('leave no entry; a public member that uses one carries its change', async () => {
    expect(rows(SCHOOL_MODEL, HIDDEN)).toEqual([['scores.mastery_rate', 'uses', 'values', 'scores._sum_mastered (not public): aggregation sum → max']]);
    const r = await impact(HIDDEN);
    expect(brief(r)).toEqual([['scores.mastery_rate', 'changed', false, 'scores._sum_mastered (not public): aggregation sum → max']]);
    expect(r.definition!.values).toEqual([
      { member: 'scores.mastery_rate', why: 'scores._sum_mastered (not public): aggregation sum → max' },
      { member: 'scores_view.mastery_rate', why: 'stands for scores.mastery_rate' },
    ]);
  });
});
