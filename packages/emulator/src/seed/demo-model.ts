/**
 * The demo data model: two cubes joined and a view, and cube.js. A real Cube model: Cube's compiler
 * accepts it, and it queries the demo data every deployment's database holds (engine/demo-data.ts).
 */
export const DEMO_MODEL: Record<string, string> = {
  'cube.js': `// Cube configuration\nmodule.exports = {\n  contextToAppId: ({ securityContext }) => \`app_\${securityContext.tenant ?? 'default'}\`,\n};\n`,
  'model/cubes/orders.yml': `cubes:
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
      - name: status
        sql: status
        type: string
      - name: created_at
        sql: created_at
        type: time
`,
  'model/cubes/customers.yml': `cubes:
  - name: customers
    sql_table: public.customers
    measures:
      - name: count
        type: count
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
      - name: name
        sql: name
        type: string
      - name: country
        sql: country
        type: string
`,
  'model/views/orders_view.yml': `views:
  - name: orders_view
    cubes:
      - join_path: orders
        includes:
          - count
          - total_amount
          - status
          - created_at
      - join_path: orders.customers
        prefix: true
        includes:
          - name
          - country
`,
};

/**
 * The finance team's model, for the monorepo demo: payments and a view over them, in a deployment of its
 * own (`finance`), querying the same demo data.
 */
export const FINANCE_MODEL: Record<string, string> = {
  'cube.js': `// Cube configuration\nmodule.exports = {};\n`,
  'model/cubes/payments.yml': `cubes:
  - name: payments
    sql_table: public.payments
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
      - name: method
        sql: method
        type: string
      - name: created_at
        sql: created_at
        type: time
`,
  'model/views/payments_view.yml': `views:
  - name: payments_view
    cubes:
      - join_path: payments
        includes:
          - count
          - total_amount
          - method
          - created_at
`,
};
