/** The pure parts of `plan` and the text review: terminal tables, the plan's branch name, the line that says what was removed. */
import { describe, expect, it } from 'vitest';
import { branchForPlan } from '../src/branch-names.js';
import { cleanupLine, type PlanOutcome } from '../src/operations/plan.js';
import { impactText } from '../src/pr/review-text.js';
import type { ImpactView } from '../src/pr/comment/render-impact.js';
import { textTable } from '../src/report/text-table.js';

describe('textTable', () => {
  it('pads each column to its widest cell in characters (an arrow or an accent counts one), leaves the last unpadded', () => {
    expect(
      textTable(
        ['NAME', 'ROWS', 'NOTE'],
        [
          ['López', '5 → 4', 'x'],
          ['a', '10', ''],
        ],
      ),
    ).toEqual(['  NAME   ROWS   NOTE', '  López  5 → 4  x', '  a      10']);
  });
});

describe('branchForPlan', () => {
  it('names whose plan it is, as a branch name may say it, and keeps two runs apart by the random part', () => {
    expect(branchForPlan('preview-', 'Ana.Lopez', '3f9c1e')).toBe('preview-plan-ana-lopez-3f9c1e');
    expect(branchForPlan('preview-', undefined, '3f9c1e')).toBe('preview-plan-3f9c1e');
    expect(branchForPlan('preview-', '--', '3f9c1e')).toBe('preview-plan-3f9c1e');
    // A long name is cut, never ending in a dash.
    expect(branchForPlan('ci-', 'a-very-long-user-name-here', 'abcdef')).toBe('ci-plan-a-very-long-user-abcdef');
  });
});

describe('cleanupLine', () => {
  const o = (cleanup: PlanOutcome['cleanup'], cancelled = false): PlanOutcome => ({ branch: 'preview-plan-1', cancelled, ...(cleanup ? { cleanup } : {}) });
  it('says what was removed, what was kept and why, and what is left to delete', () => {
    expect(cleanupLine(o(undefined))).toBeUndefined();
    expect(cleanupLine(o({ deleted: ['dev-1', 'preview-plan-1'], stagingOff: true, left: [] }))).toBe(
      'removed what this plan made: branch preview-plan-1, its staging environment and dev-mode fork dev-1',
    );
    expect(cleanupLine(o({ deleted: ['preview-plan-1'], stagingOff: false, left: [] }, true))).toBe(
      'removed what this plan made before it was cancelled: branch preview-plan-1',
    );
    expect(cleanupLine(o({ deleted: [], stagingOff: false, kept: 'preview-plan-1', left: [] }), 'https://t/api')).toMatch(
      /^kept preview-plan-1 and its staging environment \(https:\/\/t\/api\): delete it on the platform when you are done/,
    );
    expect(cleanupLine(o({ deleted: [], stagingOff: false, left: ['preview-plan-1', 'dev-2'], problem: 'timed out' }))).toBe(
      'could not remove preview-plan-1, dev-2 (timed out): delete them on the platform',
    );
  });
});

describe('impactText', () => {
  it('shows outside text as one plain line: a member name with a line break cannot forge a row', () => {
    const view = {
      base: 'main',
      head: 'preview-plan-1',
      summary: '1 breaking',
      breaking: [{ member: 'orders.x\n  injected  row', change: 'removed', breaking: true, what: 'removed\u0007', cubeType: 'cube' }],
      other: [],
      affected: [],
      affectedTotal: 0,
      notices: [],
    } as unknown as ImpactView;
    const lines = impactText(view);
    expect(lines.filter((l) => l.includes('\n') || l.includes('\u0007'))).toEqual([]);
    expect(lines).toContainEqual(expect.stringMatching(/^ {2}MEMBER +CHANGE +WHAT$/));
    expect(lines).toContainEqual(expect.stringMatching(/^ {2}orders\.x injected row +removed +BREAKING +removed$/));
  });
});
