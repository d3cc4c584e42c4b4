import { compileFiles } from '../packages/emulator/src/engine/compile.js';
export async function main() {
const files = [
 { fileName: 'cubes/orders.yml', content: `cubes:
  - name: base_orders
    sql_table: public.orders
    public: false
    measures:
      - name: count
        type: count
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
      - name: secret
        sql: status
        type: string
        public: false
  - name: orders
    extends: base_orders
    joins:
      - name: customers
        relationship: belongs_to
        sql: "{CUBE}.customer_id = {customers}.id"
    measures:
      - name: total
        type: sum
        sql: amount
` },
 { fileName: 'cubes/customers.yml', content: `cubes:
  - name: customers
    sql_table: public.customers
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
      - name: country
        sql: country
        type: string
` },
 { fileName: 'views/v.yml', content: `views:
  - name: all_view
    cubes:
      - join_path: orders
        includes: "*"
      - join_path: orders.customers
        prefix: true
        alias: cust
        includes:
          - name: country
            alias: land
` },
];
const c = await compileFiles(files);
console.log(c.valid, c.errors);
const ev: any = (c.compilers as any).cubeEvaluator;
for (const name of Object.keys(ev.evaluatedCubes)) {
  const cube = ev.evaluatedCubes[name];
  console.log('==', name, cube.public, cube.shown, cube.isVisible);
  for (const kind of ['measures','dimensions','segments']) for (const [m, def] of Object.entries(cube[kind] ?? {})) console.log('  ', kind, m, JSON.stringify(def, (kk, v) => typeof v === 'function' ? 'FN' : v));
}
const meta = (c.compilers as any).metaTransformer.cubes.map((x: any) => x.config);
for (const m of meta) console.log('META', m.name, m.isVisible, m.public, m.measures.map((x: any) => `${x.name}:${x.isVisible}:${x.public}`), m.dimensions.map((x: any) => `${x.name}:${x.isVisible}:${x.public}`));
return 0; }
