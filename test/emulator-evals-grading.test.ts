/**
 * The emulator's evals grading rule (docs-mintlify/admin/ai/evals.mdx, docs/emulator.md) and its reading
 * of ground-truth SQL into a REST query: pure logic, each case one that passes and one that does not.
 */
import { describe, expect, it } from 'vitest';
import type { MetaCube } from '../packages/emulator/src/engine/meta.js';
import { gradeResults } from '../packages/emulator/src/evals/grade.js';
import { cubeQueryOf, UnsupportedSql } from '../packages/emulator/src/evals/ground-truth.js';

const TRUTH = [
  ['shipped', 2000],
  ['new', 1000],
  ['cancelled', 500],
];

describe('grading', () => {
  it('is sort-invariant: rows in another order pass', () => {
    expect(gradeResults(TRUTH, [...TRUTH].reverse()).verdict).toBe('pass');
  });

  it('compares numbers to 4 significant figures (text or number), not closer, not looser', () => {
    expect(gradeResults([[6646]], [['6646.0']]).verdict).toBe('pass');
    expect(gradeResults([[12.3449]], [[12.34]]).verdict).toBe('pass');
    expect(gradeResults([[12.36]], [[12.34]])).toMatchObject({ verdict: 'fail', reason: 'Value mismatch' });
  });

  it('matches columns by values, not names or positions; extra agent columns are ignored', () => {
    const agent = TRUTH.map(([status, count]) => [count, 'x', status]);
    expect(gradeResults(TRUTH, agent).verdict).toBe('pass');
  });

  it('a column whose values no agent column holds is a value mismatch; too few columns, missing columns', () => {
    expect(
      gradeResults(
        TRUTH,
        TRUTH.map(([s, c]) => [s, Number(c) + 1]),
      ),
    ).toMatchObject({ verdict: 'fail', reason: 'Value mismatch' });
    expect(
      gradeResults(
        TRUTH,
        TRUTH.map(([s]) => [s]),
      ),
    ).toMatchObject({ verdict: 'fail', reason: 'Missing columns' });
  });

  it('each column right but the rows paired differently is a value mismatch', () => {
    const swapped = [
      ['shipped', 1000],
      ['new', 2000],
      ['cancelled', 500],
    ];
    expect(gradeResults(TRUTH, swapped)).toMatchObject({ verdict: 'fail', reason: 'Value mismatch' });
  });

  it('a missing row is a row count mismatch; an extra row, unexpected rows', () => {
    expect(gradeResults(TRUTH, TRUTH.slice(1))).toMatchObject({
      verdict: 'fail',
      reason: 'Row count mismatch',
      analysis: 'The agent returned 2 rows, but the ground truth has 3 rows.',
    });
    expect(gradeResults(TRUTH, [...TRUTH, ['new', 1]])).toMatchObject({ verdict: 'fail', reason: 'Unexpected rows' });
  });
});

const member = (name: string) => ({ name });
const CUBES: MetaCube[] = [
  {
    name: 'orders',
    type: 'cube',
    measures: [member('orders.count'), member('orders.total_amount')],
    dimensions: [member('orders.status'), member('orders.city')],
    segments: [],
  },
];

describe('ground-truth SQL read as a REST query', () => {
  it('reads dimensions, MEASURE(), measure columns, WHERE, GROUP BY, ORDER BY (by position or alias) and LIMIT', () => {
    const sql =
      "SELECT status AS s, orders.city, MEASURE(count), total_amount FROM orders WHERE status IN ('a', 'b') AND total_amount >= 3 GROUP BY 1, 2 ORDER BY 3 DESC, s LIMIT 5";
    expect(cubeQueryOf(sql, CUBES)).toEqual({
      measures: ['orders.count', 'orders.total_amount'],
      dimensions: ['orders.status', 'orders.city'],
      filters: [
        { member: 'orders.status', operator: 'equals', values: ['a', 'b'] },
        { member: 'orders.total_amount', operator: 'gte', values: ['3'] },
      ],
      order: [
        ['orders.count', 'desc'],
        ['orders.status', 'asc'],
      ],
      limit: 5,
    });
  });

  it.each([
    ['SELECT status FROM (SELECT status FROM orders) AS t', 'a FROM of anything but one cube or view'],
    ['SELECT orders.status FROM orders JOIN customers ON 1 = 1', 'a FROM of anything but one cube or view'],
    ['SELECT status, SUM(total_amount) FROM orders GROUP BY 1', 'SELECT SUM(...)'],
    ["SELECT status FROM orders WHERE status LIKE 'a%'", 'WHERE with LIKE'],
    ["SELECT status FROM orders WHERE status = 'a' OR status = 'b'", 'WHERE with OR'],
    ['SELECT nope FROM orders', 'nope is no member of orders'],
    ['SELECT status FROM payments', 'FROM payments: no cube or view'],
    ['SELECT status FROM orders LIMIT 5 OFFSET 2', 'LIMIT with OFFSET'],
    ['SELECT status, MEASURE(count) FROM orders GROUP BY 1 HAVING MEASURE(count) > 1', 'HAVING'],
  ])('refuses %s, naming the shape', (sql, shape) => {
    expect(() => cubeQueryOf(sql, CUBES)).toThrow(UnsupportedSql);
    expect(() => cubeQueryOf(sql, CUBES)).toThrow(shape);
  });
});
