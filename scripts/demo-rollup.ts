/**
 * The demo's pre-aggregation: production's orders cube gains a rollup of order counts by status and day
 * before the demo's third pull request, which makes `orders.count` a distinct count. A distinct count
 * cannot be added up from the rollup's days, so Cube serves it from the rollup only for a query with
 * exactly the rollup's dimensions and day: "Orders by status" (all time) and the weekly orders chart
 * reach the warehouse. Kept out of the emulator's seed model, which every test shares (a rollup there
 * costs each test a plan), and out of the demo's first two pull requests (their comments stay as drawn).
 */
import { DEMO_MODEL } from '../packages/emulator/src/index.js';

/** The rollup: order counts by status and day. */
export const ORDERS_ROLLUP = `    pre_aggregations:
      - name: orders_by_status
        measures: [count]
        dimensions: [status]
        time_dimension: created_at
        granularity: day
        refresh_key:
          every: 1 hour
`;

/** An orders cube with the rollup (its last key: the rollup block goes at the end). */
export const withOrdersRollup = (orders: string): string => `${orders}${ORDERS_ROLLUP}`;

/** The seed's demo model with the rollup on orders (the tests' production). */
export const DEMO_ROLLUP_MODEL: Record<string, string> = {
  ...DEMO_MODEL,
  'model/cubes/orders.yml': withOrdersRollup(DEMO_MODEL['model/cubes/orders.yml']!),
};

/** The third pull request's edit: orders counted as distinct ids (the same numbers: a non-additive measure). */
export function distinctCount(orders: string): string {
  const count = '      - name: count\n        type: count\n';
  if (!orders.includes(count)) throw new Error('the orders cube has no plain count to make distinct');
  return orders.replace(count, '      - name: count\n        type: count_distinct\n        sql: id\n');
}

/** The third pull request's opening, by its title (the comment picture of the rollup impact is drawn from it). */
export const ROLLUP_PUSH = '11. A pull request makes a measure a distinct count, which its rollup cannot add up';
