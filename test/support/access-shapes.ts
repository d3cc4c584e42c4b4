/**
 * Access-policy shapes Cube's own RBAC test models exercise (cube-js/cube's rbac fixtures; written here
 * over the demo tables, nothing copied): member access united across two groups' policies, two policies
 * that cover overlapping members with different row filters, a cube private to everyone but reached
 * through a view that masks, a cube masked for everyone with full and partial grants, conditions on a
 * user attribute (YAML shorthand and JavaScript), and a group named with `groups`. With personas that
 * hold every combination of those groups and attributes.
 */
import { DEMO_MODEL } from '../../packages/emulator/src/seed/demo-model.js';
import type { Persona } from '../../src/impact/access/types.js';

const ORDERS = `cubes:
  - name: shop_orders
    sql_table: public.orders
    measures:
      - name: count
        type: count
        mask: 0
      - name: total_amount
        type: sum
        sql: amount
        mask: -1
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
        public: true
      - name: status
        sql: status
        type: string
        mask:
          sql: "'hidden'"
      - name: created_at
        sql: created_at
        type: time
    access_policy:
      - group: "*"
        member_level:
          includes: []
        member_masking:
          includes: "*"
      - group: finance
        member_level:
          includes: "*"
      - groups: [support, success]
        member_level:
          includes: [id, status, created_at]
        member_masking:
          includes: "*"
        row_level:
          allow_all: true

views:
  - name: orders_by_region
    cubes:
      - join_path: shop_orders
        includes: "*"
    access_policy:
      - group: emea
        member_level:
          includes: [id, count, status]
      - group: apac
        member_level:
          includes: [id, count, total_amount]

  - name: orders_by_size
    cubes:
      - join_path: shop_orders
        includes: "*"
    access_policy:
      - group: "*"
        member_level:
          includes: [id, count, status]
        row_level:
          filters:
            - member: total_amount
              operator: lt
              values: ["100"]
      - group: big_deals
        member_level:
          includes: [id, count, total_amount]
        row_level:
          filters:
            - member: total_amount
              operator: gte
              values: ["100"]
`;

const CUSTOMERS = `cubes:
  - name: crm_customers
    sql_table: public.customers
    measures:
      - name: count
        type: count
        mask: 0
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
      - name: name
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
          includes: []

  - name: audited_customers
    sql_table: public.customers
    measures:
      - name: count
        type: count
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
      - name: country
        sql: country
        type: string
    access_policy:
      - group: "*"
        conditions:
          - if: "{ userAttributes.is_auditor }"
        member_level:
          includes: "*"

views:
  - name: customers_view
    cubes:
      - join_path: crm_customers
        includes: "*"
    access_policy:
      - group: "*"
        member_level:
          includes: [country, count]
        member_masking:
          includes: "*"
      - group: crm
        member_level:
          includes: "*"
`;

const REGIONAL = `cube('regional_customers', {
  sql_table: 'public.customers',
  measures: { count: { type: 'count' } },
  dimensions: {
    id: { sql: 'id', type: 'number', primary_key: true },
    name: { sql: 'name', type: 'string' },
    country: { sql: 'country', type: 'string' },
  },
  accessPolicy: [
    { group: '*', memberLevel: { includes: '*', excludes: ['name'] }, rowLevel: { filters: [{ member: 'country', operator: 'equals', values: ['DE'] }] } },
    { group: 'manager', conditions: [{ if: security_context.cubeCloud?.userAttributes?.is_senior }], rowLevel: { allowAll: true } },
  ],
});
`;

/** The demo model with the shapes above beside it. */
export const ACCESS_SHAPES_MODEL: Record<string, string> = {
  ...DEMO_MODEL,
  'model/cubes/shop_orders.yml': ORDERS,
  'model/cubes/crm_customers.yml': CUSTOMERS,
  'model/cubes/regional_customers.js': REGIONAL,
};

const persona = (name: string, groups: string[], userAttributes?: Record<string, unknown>): Persona => ({
  name,
  groups,
  securityContext: userAttributes ? { cubeCloud: { userAttributes } } : {},
});

/** Every group alone, the pairs the shapes unite, the attributes set, unset and false. */
export const SHAPE_PERSONAS: Persona[] = [
  persona('nobody', []),
  persona('finance', ['finance']),
  persona('support', ['support']),
  persona('success', ['success']),
  persona('emea', ['emea']),
  persona('apac', ['apac']),
  persona('emea-and-apac', ['emea', 'apac']),
  persona('big-deals', ['big_deals']),
  persona('crm', ['crm']),
  persona('auditor', [], { is_auditor: true }),
  persona('not-auditor', [], { is_auditor: false }),
  persona('senior-manager', ['manager'], { is_senior: true }),
  persona('junior-manager', ['manager'], { is_senior: false }),
  persona('manager-unset', ['manager']),
  persona('finance-and-crm', ['finance', 'crm']),
];
