/**
 * Access policies in the shapes public Cube projects write (found with the search tool over public
 * repositories and Cube's docs; written here over the demo tables, nothing copied): a store's sales model
 * with a "masked for everyone but full where the row filter holds" PII member (`member_level.excludes`
 * beside `member_masking.includes` and a `row_level` filter on `{CUBE}.country`), a manager group that reads
 * a few members in full and masks the rest (`member_masking: "*"`), a regional group whose rows are an
 * `or` of two countries, filters naming the member with and without its cube, a JavaScript cube whose
 * filter reads a security-context attribute, and views over those cubes, one with a policy of its own and
 * one without (a cube's masks and row filters reach both). Personas of every group, alone and together.
 */
import { DEMO_MODEL } from '../../packages/emulator/src/seed/demo-model.js';
import type { Persona } from '../../src/impact/access/types.js';

const SALES = `cubes:
  - name: sales
    sql_table: public.orders
    joins:
      - name: buyers
        relationship: many_to_one
        sql: "{CUBE}.customer_id = {buyers}.id"
    measures:
      - name: count
        type: count
        mask: 0
      - name: revenue
        type: sum
        sql: amount
        mask: -1
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
      - name: status
        sql: status
        type: string
        mask:
          sql: "'n/a'"
      - name: placed_at
        sql: created_at
        type: time
    access_policy:
      - group: admin
        member_level:
          includes: "*"
      - group: manager
        member_level:
          includes: [count, status]
        member_masking:
          includes: "*"
      - group: regional
        member_level:
          includes: "*"
        row_level:
          filters:
            - or:
                - member: "{CUBE}.status"
                  operator: equals
                  values: [completed]
                - member: sales.status
                  operator: equals
                  values: ["{ securityContext.status }"]
`;

const BUYERS = `cubes:
  - name: buyers
    sql_table: public.customers
    measures:
      - name: count
        type: count
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
      - name: full_name
        sql: name
        type: string
        mask:
          sql: "'***'"
      - name: country
        sql: country
        type: string
    access_policy:
      - group: "*"
        member_level:
          excludes: [full_name]
        member_masking:
          includes: [full_name]
        row_level:
          filters:
            - member: "{CUBE}.country"
              operator: equals
              values: ["{ securityContext.country }"]
      - group: admin
        member_level:
          includes: "*"
      - group: support
        member_level:
          includes: "*"
        row_level:
          filters:
            - member: country
              operator: notEquals
              values: ["{ userAttributes.blocked_country }"]
`;

const PAYMENTS = `cube('card_payments', {
  sql_table: 'public.payments',
  measures: { count: { type: 'count' }, amount: { sql: 'amount', type: 'sum', mask: 0 } },
  dimensions: {
    id: { sql: 'id', type: 'number', primary_key: true },
    method: { sql: 'method', type: 'string' },
  },
  access_policy: [
    { group: 'admin' },
    {
      group: 'finance',
      member_level: { includes: '*', excludes: ['amount'] },
      member_masking: { includes: ['amount'] },
      row_level: { filters: [{ member: 'method', operator: 'equals', values: [securityContext.method] }] },
    },
  ],
});
`;

const VIEWS = `views:
  - name: sales_overview
    cubes:
      - join_path: sales
        includes: [count, revenue, status, placed_at]
      - join_path: sales.buyers
        prefix: true
        includes: [full_name, country]
    access_policy:
      - group: "*"
        member_level:
          includes: "*"
          excludes: [revenue]
      - groups: [admin, manager]
        member_level:
          includes: "*"

  - name: buyer_directory
    cubes:
      - join_path: buyers
        includes: "*"
`;

/** The demo model with the project's cubes and views beside it. */
export const ACCESS_PROJECT_MODEL: Record<string, string> = {
  ...DEMO_MODEL,
  'model/cubes/sales.yml': SALES,
  'model/cubes/buyers.yml': BUYERS,
  'model/cubes/card_payments.js': PAYMENTS,
  'model/views/sales.yml': VIEWS,
};

const persona = (name: string, groups: string[], securityContext: Record<string, unknown> = {}): Persona => ({ name, groups, securityContext });

/** Every group alone, some together, attributes set and unset. */
export const PROJECT_PERSONAS: Persona[] = [
  persona('nobody', []),
  persona('admin', ['admin']),
  persona('manager', ['manager']),
  persona('regional', ['regional'], { status: 'processing', country: 'Germany' }),
  persona('regional-unset', ['regional']),
  persona('support', ['support'], { country: 'France', cubeCloud: { userAttributes: { blocked_country: 'Spain' } } }),
  persona('finance', ['finance'], { method: 'card' }),
  persona('manager-and-regional', ['manager', 'regional'], { status: 'shipped', country: 'Germany' }),
  persona('country-only', [], { country: 'Germany' }),
];
