/**
 * A ready preview with every section on and each list past what the comment shows (long names, many rows):
 * the comment's size and verdict tests start from it. `n` makes each model's names its own.
 */
import type { AccessView } from '../../src/pr/comment/render-access.js';
import type { CostView } from '../../src/pr/comment/render-cost.js';
import type { ImpactChangeRow, ImpactContentRow, ImpactView } from '../../src/pr/comment/render-impact.js';
import type { NumbersView } from '../../src/pr/comment/render-numbers.js';
import { nextView, type PreviewView } from '../../src/pr/comment/view.js';

const long = (s: string) => `${s}_${'x'.repeat(60)}`;

export function fullImpact(n = 0): ImpactView {
  const row = (i: number, breaking: boolean, values = false): ImpactChangeRow => ({
    member: `${long(`cube${n}`)}.member_${i}`,
    cube: long(`cube${n}`),
    cubeType: i % 2 ? 'view' : 'cube',
    kind: i % 3 ? 'measure' : 'dimension',
    change: breaking ? 'removed' : 'changed',
    breaking,
    ...(values ? { values: true } : {}),
    what: `${'sql changed from one long expression to another '.repeat(5)}`,
  });
  const content = (i: number, effect: 'breaks' | 'numbers-move'): ImpactContentRow => ({
    kind: (['report', 'dashboard', 'notification'] as const)[i % 3]!,
    effect,
    name: long(`Board ${n}.${i}`),
    url: `https://acme.cubecloud.dev/d/${n}/reports/${i}`,
    uses: Array.from({ length: 7 }, (_, u) => ({ member: `${long(`cube${n}`)}.member_${u}`, place: long('widget “Revenue by country” measures') })),
  });
  return {
    base: 'main',
    head: `preview-pr-${n}`,
    summary:
      '30 breaking, 30 values changes, 10 added, 20 changed; 10 reports, 10 dashboards and 10 notifications affected; numbers move on 10 reports, 10 dashboards and 10 notifications',
    breakingTotal: 30,
    valuesTotal: 30,
    otherTotal: 30,
    counts: { added: 10, changed: 20 },
    affectedTotal: 30,
    movingTotal: 30,
    content: { breaks: { report: 10, dashboard: 10, notification: 10 }, numbers: { report: 10, dashboard: 10, notification: 10 } },
    breaking: Array.from({ length: 30 }, (_, i) => row(i, true)),
    values: Array.from({ length: 30 }, (_, i) => row(i, false, true)),
    moved: { total: 40, members: Array.from({ length: 20 }, (_, i) => ({ member: `${long(`cube${n}`)}.moved_${i}`, kind: i % 2 ? 'measure' : 'dimension' })) },
    other: Array.from({ length: 30 }, (_, i) => row(i, false)),
    affected: Array.from({ length: 30 }, (_, i) => content(i, 'breaks')),
    moving: Array.from({ length: 30 }, (_, i) => content(i, 'numbers-move')),
    notices: Array.from({ length: 8 }, (_, i) => `notice ${i}: ${'a long notice of the impact '.repeat(10)}`),
  };
}

export function fullAccess(n = 0): AccessView {
  const personas = Array.from({ length: 6 }, (_, i) => `persona_${n}_${i}`);
  return {
    personas,
    policyTargets: [long(`cube${n}`)],
    changes: Array.from({ length: 40 }, (_, i) => ({
      persona: personas[i % personas.length]!,
      target: long(`cube${n}`),
      change: i % 4 ? 'gained-member' : 'rows-narrowed',
      detail: `rows 5,000 → 4,483, ${'counted with a long member name '.repeat(4)}`,
    })),
    lost: Array.from({ length: 8 }, (_, i) => ({
      persona: personas[0]!,
      kind: 'report',
      id: i,
      name: long(`Report ${i}`),
      members: ['a.b', 'c.d', 'e.f', 'g.h'],
    })),
    probes: Array.from({ length: 20 }, (_, i) => ({
      persona: personas[i % personas.length]!,
      target: long(`cube${n}`),
      counted: `${long(`cube${n}`)}.count`,
      production: { rows: 5000 },
      preview: { rows: 4483 },
    })),
    notices: ['a notice of the access review'],
    changeTotal: 40,
    gainTotal: 30,
  } as AccessView;
}

export function fullNumbers(): NumbersView {
  return {
    mode: 'values',
    total: 30,
    changed: 30,
    failed: 0,
    notRunQueries: 5,
    seconds: 3.2,
    context: { groups: [], keys: [] },
    queries: Array.from({ length: 30 }, (_, i) => ({
      name: long(`Report “Revenue by country ${i}”`),
      source: 'report' as const,
      status: 'changed' as const,
      rows: { base: 120, head: 120 },
      changed: 120,
      largest: { measure: 'orders.total_amount', key: long('created_at.month = 2025-04'), base: 95645.44, head: 82494.8, abs: -13150.64, rel: -0.137 },
      top: Array.from({ length: 10 }, (_, r) => ({
        key: long(`created_at.month = 2025-${r}`),
        measure: 'total_amount',
        base: 126194.61,
        head: 109836.01,
        abs: -16358.6,
        rel: -0.13,
      })),
      addedKeys: Array.from({ length: 10 }, (_, r) => long(`k${r}`)),
      removedKeys: Array.from({ length: 10 }, (_, r) => long(`r${r}`)),
    })),
  } as unknown as NumbersView;
}

export function fullCost(n = 0): CostView {
  const rollup = (i: number) => `${long(`cube${n}`)}.rollup_${i}`;
  return {
    versions: {
      production: '1.3.0',
      staging: '1.4.0',
      refusedTotal: 30,
      refused: Array.from({ length: 30 }, (_, i) => ({ file: `model/cubes/c${i}.yml`, line: i + 1, key: long(`key${i}`), version: '1.4.0' })),
    },
    rollups: {
      groups: Array.from({ length: 20 }, (_, i) => ({
        production: rollup(i),
        preview: null,
        change: 'lost' as const,
        total: 8,
        queries: Array.from({ length: 8 }, (_, q) => ({ query: long(`key query ${q}`) })),
      })),
      rebuilt: Array.from({ length: 20 }, (_, i) => ({ rollup: rollup(i), reason: 'renamed: Cube names its tables after the rollup '.repeat(3) })),
      truncated: [],
      totals: { changes: 160, lost: 160, rebuilt: 20, truncated: 0 },
      planned: 160,
      notRun: 0,
      notices: [],
    },
  };
}

/** A ready preview of model `n` with every section on, as a run's view keeps it (nextView cuts the lists). */
export function fullView(n = 0): PreviewView {
  const sha = 'c'.repeat(40);
  return nextView(
    undefined,
    { headSha: sha, runId: 77 },
    {
      state: 'ready',
      repoUrl: 'https://github.com/acme/monorepo',
      runUrl: 'https://github.com/acme/monorepo/actions/runs/77',
      branch: `preview-pr-5-model-${n}`,
      previewUrl: `https://acme.cubecloud.dev/d/${n}/schema?branch=preview-pr-5`,
      restUrl: `https://acme.cubecloud.dev/d/${n}/dev-mode/preview-pr-5/cubejs-api/v1`,
      upload: { sent: 40, deleted: 2, unchanged: 100 },
      validation: { valid: true, errorCount: 0, errors: [], cubes: 40 },
      staging: { enabled: true, smoke: { cubes: 40, rows: 10 } },
      impact: fullImpact(n),
      access: fullAccess(n),
      numbers: fullNumbers(),
      cost: fullCost(n),
    },
  );
}
