/**
 * The demo model with pre-aggregations in the shapes Cube's documentation and public projects use,
 * written here over the demo data (orders of 2024 and 2025): a partitioned rollup with measures, a
 * dimension, a time dimension, `partition_granularity` and a build range; a rollup over the joined
 * customers with `sql_alias`; an `original_sql` pre-aggregation on customers. The variants are the
 * edits a pull request makes (rename, reorder, a renamed dimension, a second rollup, another build
 * range, a row filter), each a tree as `uploadTree` takes it.
 */
import { DEMO_MODEL } from '../../packages/emulator/src/seed/demo-model.js';

const STATUS = `      - name: status
        sql: status
        type: string
`;

/** The status dimension renamed \`state\`, \`status\` kept for older clients: a copy, or a dimension that reads \`state\`. */
const stateAndStatus = (statusSql: string) => `      - name: state
        sql: status
        type: string
      - name: status
        sql: "${statusSql}"
        type: string
`;

/** The orders cube of the demo model, its pre-aggregations block left to the caller. */
const ordersCube = (preAggregations: string, statusDimension = STATUS) => `cubes:
  - name: orders
    sql_table: public.orders
    joins:
      - name: customers
        relationship: many_to_one
        sql: "{CUBE}.customer_id = {customers}.id"
    measures:
      - name: count
        type: count
      - name: total_amount
        type: sum
        sql: amount
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
${statusDimension}      - name: created_at
        sql: created_at
        type: time
    pre_aggregations:
${preAggregations}`;

/** The build range of the partitioned rollup: the whole of the demo data. */
export const FULL_RANGE = { start: '2024-01-01', end: '2025-12-31' };
/** A build range that leaves 2024 out (a query over 2024 still matches the rollup: Cube does not check the range). */
export const SHORT_RANGE = { start: '2025-01-01', end: '2025-12-31' };

/** The partitioned rollup: amounts and counts by status and day, one partition per month. */
const byStatus = (name = 'orders_by_status', members = 'count, total_amount', range = FULL_RANGE, status = 'status') => `      - name: ${name}
        measures: [${members}]
        dimensions: [${status}]
        time_dimension: created_at
        granularity: day
        partition_granularity: month
        build_range_start:
          sql: SELECT '${range.start}'::timestamp
        build_range_end:
          sql: SELECT '${range.end}'::timestamp
        refresh_key:
          every: 1 hour
`;

/** Counts by the customers' country and month, its tables named by `sql_alias`, not by the rollup's name. */
const byCountry = (name = 'orders_by_customer_country') => `      - name: ${name}
        sql_alias: by_country
        measures: [count]
        dimensions: [customers.country]
        time_dimension: created_at
        granularity: month
`;

/** Customers with their original SQL kept as a table of its own. */
export const CUSTOMERS_WITH_ORIGINAL_SQL = `${DEMO_MODEL['model/cubes/customers.yml']}    pre_aggregations:
      - name: customers_source
        type: original_sql
        refresh_key:
          every: 1 day
`;

const withOrders = (orders: string): Record<string, string> => ({
  ...DEMO_MODEL,
  'model/cubes/orders.yml': orders,
  'model/cubes/customers.yml': CUSTOMERS_WITH_ORIGINAL_SQL,
});

/** The rollup model: production's model in the tests. */
export const ROLLUP_MODEL = withOrders(ordersCube(byStatus() + byCountry()));

/** Each edit a pull request makes to it. */
export const ROLLUP_VARIANTS = {
  /** The partitioned rollup renamed, its SQL the same. */
  renamed: withOrders(ordersCube(byStatus('orders_daily') + byCountry())),
  /** Its measures listed in another order (the same structure for a reader). */
  reordered: withOrders(ordersCube(byStatus('orders_by_status', 'total_amount, count') + byCountry())),
  /** The rollup's status dimension renamed \`state\`, \`status\` kept as a copy for older clients: queries on \`status\` lose it. */
  dimensionRenamed: withOrders(ordersCube(byStatus('orders_by_status', 'count, total_amount', FULL_RANGE, 'state') + byCountry(), stateAndStatus('status'))),
  /** The same, \`status\` kept as a dimension computed from \`state\`: Cube's JS planner still serves it from the rollup. */
  dimensionDerived: withOrders(
    ordersCube(byStatus('orders_by_status', 'count, total_amount', FULL_RANGE, 'state') + byCountry(), stateAndStatus('INITCAP({state})')),
  ),
  /** The rollup with `sql_alias` renamed: its tables keep their name. */
  aliasedRenamed: withOrders(ordersCube(byStatus() + byCountry('orders_per_country'))),
  /** A second rollup for counts by status, listed first: Cube takes the first that matches. */
  twoRollups: withOrders(
    ordersCube(
      `      - name: counts_by_status
        measures: [count]
        dimensions: [status]
` +
        byStatus() +
        byCountry(),
    ),
  ),
  /** The partitioned rollup's build range starting a year later. */
  shortRange: withOrders(ordersCube(byStatus('orders_by_status', 'count, total_amount', SHORT_RANGE) + byCountry())),
  /** The count measure dropped from the partitioned rollup: count queries lose it. */
  countDropped: withOrders(ordersCube(byStatus('orders_by_status', 'total_amount') + byCountry())),
};

/** The customers' country as a dimension of orders (a row filter names its own cube's members only). */
const CUSTOMER_COUNTRY = `      - name: customer_country
        sql: "{customers.country}"
        type: string
`;

/** The rollup model with a row filter for the sales group on the customers' country (outside the partitioned rollup). */
export const ROLLUP_WITH_ROW_FILTER = withOrders(
  `${ordersCube(byStatus() + byCountry(), STATUS + CUSTOMER_COUNTRY)}    access_policy:
      - group: sales
        member_level:
          includes: "*"
        row_level:
          filters:
            - member: customer_country
              operator: equals
              values: ["{ securityContext.country }"]
      - group: analysts
        member_level:
          includes: "*"
`,
);
