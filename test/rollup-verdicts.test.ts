/**
 * Issue 39's rollup verdicts, pure: the set of rollups serving a query compared whole (Tesseract may serve
 * one query by several), a plan Cube answers as a list (a compareDateRange query's ranges) read as one,
 * rows labelled when the sides run other Cube versions (kept out of the gate and of "rebuilt"), each
 * changed rollup's own query found from the files, and a rollup rebuilt from its own query's plans.
 */
import { describe, expect, it } from 'vitest';
import { plannedRollups, rebuiltRollups, rollupChanges, type PlanSide, type QueryPlan } from '../src/impact/rollups/compare.js';
import { readRollups } from '../src/impact/base/rollup-definitions.js';
import { rollupPairs, rollupQuery } from '../src/impact/rollups/definitions.js';
import { lostByPullRequest, plannerOf, versionLabel, type RollupOutcome } from '../src/impact/rollups/outcome.js';
import { modelDefinition } from '../src/impact/definition/source.js';
import { renderCost } from '../src/pr/comment/render-cost.js';
import { facetChecks } from '../src/pr/facet-checks.js';
import { presentRollups } from '../src/pr/present-rollups.js';

const rollup = (id: string, sql = `SELECT ${id}`) => ({ preAggregationId: id, type: 'rollup', tableName: `pre.${id.replace('.', '_')}`, loadSql: [sql, []] });
const side = (...entries: Record<string, unknown>[]): PlanSide => plannedRollups({ sql: { sql: ['SELECT 1', []], preAggregations: entries } });
const plan = (production: PlanSide, preview: PlanSide, query = 'q'): QueryPlan => ({ query, production, preview });
const LABEL = versionLabel({ production: '1.6.33', staging: '1.7.20' });

describe('the set of rollups serving a query', () => {
  it('two rollups serving one query, listed in another order: no change; one of them gone: moved, both named', () => {
    const a = rollup('orders.a');
    const b = rollup('orders.b');
    expect(rollupChanges([plan(side(a, b), side(b, a))])).toEqual([]);
    expect(rollupChanges([plan(side(a, b), side(a))])).toEqual([{ query: 'q', production: 'orders.a + orders.b', preview: 'orders.a', change: 'moved' }]);
  });

  it("a compareDateRange query's plan (a list, one per range) is read whole, not as an answer without a plan", () => {
    const answer = [{ sql: { preAggregations: [rollup('orders.a')] } }, { sql: { preAggregations: [rollup('orders.b')] } }];
    expect(plannedRollups(answer)).toEqual({ entries: [expect.objectContaining({ id: 'orders.a' }), expect.objectContaining({ id: 'orders.b' })] });
    expect(plannedRollups([{ sql: { preAggregations: [] } }, { error: 'x' }])).toHaveProperty('error');
  });
});

describe('rows that may come from the Cube versions', () => {
  it('the label names both versions, and their planners across 1.7.0; nothing when they are the same or not known', () => {
    expect(plannerOf('1.6.33')).toBe('JS planner');
    expect(plannerOf('1.7.0')).toBe('Tesseract');
    expect(LABEL).toBe('may come from the Cube versions (production 1.6.33, staging 1.7.20) and their planners (JS planner, Tesseract)');
    expect(versionLabel({ production: '1.7.19', staging: '1.7.20' })).toBe('may come from the Cube versions (production 1.7.19, staging 1.7.20)');
    expect(versionLabel({ production: '1.7.20', staging: '1.7.20' })).toBeUndefined();
    expect(versionLabel({ staging: '1.7.20' })).toBeUndefined();
  });

  it('every row carries the label; a labelled loss fails nothing and is not counted; the Cost section says it on the row', () => {
    const changes = rollupChanges([plan(side(rollup('orders.a')), side(), 'lost one')], LABEL);
    expect(changes).toEqual([{ query: 'lost one', production: 'orders.a', preview: null, change: 'lost', versions: LABEL }]);
    expect(lostByPullRequest(changes)).toBe(0);
    const r: RollupOutcome = { changes, rebuilt: [], truncated: [], notices: [], planned: 1, notRun: 0, versions: LABEL };
    const shown = presentRollups(r, 'pr-1', true, true);
    expect(shown.failure).toBeUndefined();
    expect(shown.outputs['rollups-lost-count']).toBe('0');
    const md = renderCost({ rollups: shown.part! }, { target: 'comment' }).join('\n');
    expect(md).toContain('| lost: may come from the Cube versions \\(production 1\\.6\\.33, staging 1\\.7\\.20\\)');
    expect(md).toContain('none counts for fail-on-rollup-loss or as rebuilt');
    // The same loss without the label fails the gate.
    expect(
      presentRollups({ ...r, changes: rollupChanges([plan(side(rollup('orders.a')), side(), 'lost one')]), versions: undefined }, 'pr-1', true, true).failure,
    ).toContain('fail-on-rollup-loss is true');
  });

  it('the cost check is a concern, not a failure, with fail-on-rollup-loss on; it says the rows may come from the versions', () => {
    const changes = rollupChanges([plan(side(rollup('orders.a')), side(), 'lost one')], LABEL);
    const r: RollupOutcome = { changes, rebuilt: [], truncated: [], notices: [], planned: 1, notRun: 0, versions: LABEL };
    const impact = {
      head: 'pr',
      changes: { members: [] },
      counts: { breaking: 0, added: 0, changed: 0 },
      affected: [],
      notices: [],
      definition: { changes: [], values: [] },
      rollupsInModel: true,
    } as never;
    const settings = { impact: true, gates: { rollupLoss: true, versionSkew: true }, modelDir: '.' } as never;
    const cost = facetChecks(
      { impact, rollups: r, versions: { production: '1.6.33', staging: '1.7.20', refused: [], notKnown: [], checkedAgainst: ['1.6.33'] } },
      settings,
    ).find((c) => c.facet === 'cost');
    expect(JSON.stringify(cost)).toContain('may come from the Cube versions');
    expect(cost?.conclusion).not.toBe('failure');
  });
});

describe("each changed rollup's own query", () => {
  const ORDERS = `cubes:
  - name: orders
    sql_table: orders
    joins:
      - name: customers
        relationship: many_to_one
        sql: "{CUBE}.customer_id = {customers.id}"
    measures:
      - name: count
        type: count
    dimensions:
      - name: status
        sql: status
        type: string
      - name: created_at
        sql: created_at
        type: time
    pre_aggregations:
      - name: by_status
        measures: [count]
        dimensions: [status, customers.country]
        time_dimension: created_at
        granularity: day
      - name: joined
        type: rollup_join
        measures: [count]
        rollups: [by_status]
      - name: source
        type: original_sql
`;
  const CUSTOMERS = `cubes:
  - name: customers
    sql_table: customers
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
      - name: country
        sql: country
        type: string
`;
  it('read from YAML (a rollup_join and an original_sql left out) and from JS; the query is its members by its time dimension', () => {
    const [def] = modelDefinition(new Map([['model/cubes/orders.yml', ORDERS]])).cubes.get('orders')!.rollups!;
    expect(modelDefinition(new Map([['model/cubes/orders.yml', ORDERS]])).cubes.get('orders')!.rollups).toHaveLength(1);
    expect(rollupQuery(def!)).toEqual({
      measures: ['orders.count'],
      dimensions: ['orders.status', 'customers.country'],
      timeDimensions: [{ dimension: 'orders.created_at', granularity: 'day' }],
    });
    const js = readRollups('orders', {
      main: { measures: { code: '[CUBE.count]' }, dimensions: [{ code: 'CUBE.status' }], timeDimension: { code: 'CUBE.created_at' }, granularity: 'day' },
    });
    expect(js).toEqual([
      { id: 'orders.main', measures: ['orders.count'], dimensions: ['orders.status'], timeDimension: 'orders.created_at', granularity: 'day' },
    ]);
    // Members written as code the reader does not read: left out, never guessed.
    expect(readRollups('orders', { x: { measures: { code: 'allMeasures()' } } })).toEqual([]);
  });

  it("planned for the rollups reading a cube whose definitions change (a joined cube too); none without production's files", () => {
    const files = new Map([
      ['model/cubes/orders.yml', ORDERS],
      ['model/cubes/customers.yml', CUSTOMERS],
    ]);
    const models = { base: modelDefinition(files), head: modelDefinition(files) };
    expect(rollupPairs(models, [{ cube: 'customers', aspect: 'sql' }]).map((p) => p.id)).toEqual(['orders.by_status']);
    expect(rollupPairs(models, [{ cube: 'payments', aspect: 'sql' }])).toEqual([]);
    expect(rollupPairs(models, [{ cube: 'orders', aspect: 'visibility' }])).toEqual([]);
    expect(rollupPairs({ head: models.head }, [{ cube: 'orders', aspect: 'sql' }])).toEqual([]);
  });

  it('a rollup no key query reaches is rebuilt from its own query planned on each side; labelled when the versions differ', () => {
    const keyPlans = [plan(side(rollup('orders.other')), side(rollup('orders.other')), 'by day')];
    const own = [
      plan(
        side(rollup('orders.by_status', 'SELECT status, country')),
        side(rollup('orders.by_status', 'SELECT status')),
        "rollup orders.by_status's own query",
      ),
    ];
    expect(rebuiltRollups(keyPlans)).toEqual([]);
    expect(rebuiltRollups(keyPlans, own)).toEqual([{ rollup: 'orders.by_status', reason: 'its build SQL changed' }]);
    expect(rebuiltRollups(keyPlans, own, LABEL)).toEqual([{ rollup: 'orders.by_status', reason: 'its build SQL changed', versions: LABEL }]);
  });
});
