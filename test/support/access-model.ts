/**
 * Data models with access policies in the shapes Cube's documentation and public projects use, written
 * here, over the demo data every emulated deployment holds (orders, customers): row-level filters on a
 * security-context attribute and on a user attribute, a view for one group only, an open view with
 * excludes, member masking with `mask` values, a `conditions` block, a policy whose attribute a persona
 * lacks, and one JavaScript file. Each model is a tree (`path → text`, as `uploadTree` takes it); the
 * personas give the security contexts tests mint tokens with (groups where the toolkit puts them).
 */
import { DEMO_MODEL } from '../../packages/emulator/src/seed/demo-model.js';

/**
 * Orders: finance sees every member and row; support sees every member but the amount, which it reads
 * masked (`-1`); sales sees the orders of its own country (`userAttributes.country`); anyone whose
 * context says `is_manager` sees every member, cancelled orders left out (a `conditions` block).
 */
export const ORDERS_WITH_POLICIES = `cubes:
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
        mask: -1
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
      - name: status
        sql: status
        type: string
      - name: customer_country
        sql: "{customers.country}"
        type: string
      - name: created_at
        sql: created_at
        type: time
    access_policy:
      - group: finance
        member_level:
          includes: "*"
      - group: support
        member_level:
          includes: "*"
          excludes: [total_amount]
        member_masking:
          includes: [total_amount]
      - group: sales
        member_level:
          includes: "*"
        row_level:
          filters:
            - member: customer_country
              operator: equals
              values: ["{ userAttributes.country }"]
      - group: "*"
        conditions:
          - if: "{ securityContext.is_manager }"
        member_level:
          includes: "*"
        row_level:
          filters:
            - member: status
              operator: notEquals
              values: [cancelled]
`;

/** Customers (JavaScript): finance sees every row; everyone else the customers of `securityContext.country`, names masked. */
export const CUSTOMERS_WITH_POLICIES = `cube(\`customers\`, {
  sql_table: \`public.customers\`,

  measures: {
    count: { type: \`count\` },
  },

  dimensions: {
    id: { sql: \`id\`, type: \`number\`, primary_key: true },
    name: { sql: \`name\`, type: \`string\`, mask: { sql: \`'***'\` } },
    country: { sql: \`country\`, type: \`string\` },
  },

  access_policy: [
    { group: \`finance\`, member_level: { includes: \`*\` } },
    {
      group: \`*\`,
      member_level: { includes: \`*\`, excludes: [\`name\`] },
      member_masking: { includes: [\`name\`] },
      row_level: { filters: [{ member: \`country\`, operator: \`equals\`, values: [securityContext.country] }] },
    },
  ],
});
`;

/** A view for the finance group only: every other persona's /meta leaves it out. */
export const FINANCE_VIEW = `views:
  - name: finance_view
    cubes:
      - join_path: orders
        includes: [count, total_amount, status, created_at]
      - join_path: orders.customers
        prefix: true
        includes: [country]
    access_policy:
      - group: finance
        member_level:
          includes: "*"
`;

/** A view open to everyone but the amount; finance sees the amount too. */
export const OPEN_ORDERS_VIEW = `views:
  - name: orders_view
    cubes:
      - join_path: orders
        includes: [count, total_amount, status, created_at]
      - join_path: orders.customers
        prefix: true
        includes: [name, country]
    access_policy:
      - group: "*"
        member_level:
          includes: "*"
          excludes: [total_amount]
      - group: finance
        member_level:
          includes: "*"
`;

/** The demo deployment's model with every policy above (cube.js kept; the demo's own files replaced). */
export const ACCESS_MODEL: Record<string, string> = {
  'cube.js': DEMO_MODEL['cube.js'] as string,
  'model/cubes/orders.yml': ORDERS_WITH_POLICIES,
  'model/cubes/customers.js': CUSTOMERS_WITH_POLICIES,
  'model/views/finance_view.yml': FINANCE_VIEW,
  'model/views/orders_view.yml': OPEN_ORDERS_VIEW,
};

/** The demo model as it is, with no policy (the "before" of a pull request that adds them). */
export const OPEN_MODEL: Record<string, string> = { ...DEMO_MODEL };

/** The demo model whose open view only finance may now see: a pull request that changes a policy and nothing else. */
export const DEMO_VIEW_FOR_FINANCE: Record<string, string> = {
  ...DEMO_MODEL,
  'model/views/orders_view.yml': `${DEMO_MODEL['model/views/orders_view.yml'] as string}    access_policy:
      - group: finance
        member_level:
          includes: "*"
`,
};

/** Payments for managers who audit: one policy with two conditions (the second names an attribute a manager may lack). */
export const PAYMENTS_TWO_CONDITIONS = `cubes:
  - name: payments
    sql_table: public.payments
    measures:
      - name: count
        type: count
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
      - name: method
        sql: method
        type: string
    access_policy:
      - group: "*"
        conditions:
          - if: "{ securityContext.is_manager }"
          - if: "{ securityContext.is_auditor }"
        member_level:
          includes: "*"
`;

/** The demo model with the payments cube above. */
export const TWO_CONDITIONS_MODEL: Record<string, string> = { ...DEMO_MODEL, 'model/cubes/payments.yml': PAYMENTS_TWO_CONDITIONS };

/** A persona as the toolkit reads it from a personas file (`{ name, groups, securityContext }`). */
export interface AccessPersona {
  name: string;
  groups: string[];
  securityContext: Record<string, unknown>;
}

/** Personas the models above tell apart. `sales_no_country` and `nobody` lack the attributes their policies name. */
export const ACCESS_PERSONAS: AccessPersona[] = [
  { name: 'finance', groups: ['finance'], securityContext: {} },
  { name: 'support', groups: ['support'], securityContext: { country: 'Germany' } },
  { name: 'sales_de', groups: ['sales'], securityContext: { country: 'Germany', cubeCloud: { userAttributes: { country: 'Germany' } } } },
  { name: 'sales_no_country', groups: ['sales'], securityContext: {} },
  { name: 'manager', groups: [], securityContext: { is_manager: true, country: 'France' } },
  { name: 'nobody', groups: [], securityContext: {} },
];

/** A persona by name. */
export function accessPersona(name: string): AccessPersona {
  const p = ACCESS_PERSONAS.find((x) => x.name === name);
  if (!p) throw new Error(`no access persona ${JSON.stringify(name)}: ${ACCESS_PERSONAS.map((x) => x.name).join(', ')}`);
  return p;
}
