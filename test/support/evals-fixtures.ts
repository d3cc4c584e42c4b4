/**
 * The agents-folder and eval fixtures several end-to-end tests share, on the emulator's demo model (written here,
 * none copied): a sales agent over `orders_view`, and two eval questions whose fixture-agent answers pass
 * on this model; a PR that makes `cancelled_count` count the other orders turns `cancelled_orders` into a
 * failure.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { DEMO_MODEL } from '../../packages/emulator/src/index.js';

/** The demo's orders cube with a filtered measure the fixture agent answers with. */
export const EVALS_ORDERS = (DEMO_MODEL['model/cubes/orders.yml'] as string).replace(
  '    measures:\n',
  `    measures:\n      - name: cancelled_count\n        type: count\n        filters:\n          - sql: "{CUBE}.status = 'cancelled'"\n`,
);

export const EVALS_QUESTIONS = `eval_questions:
  - name: orders_by_status
    question: How many orders are there in each status?
    sql: SELECT status, MEASURE(count) FROM orders GROUP BY 1
  - name: cancelled_orders
    question: How many orders were cancelled?
    sql: SELECT MEASURE(count) FROM orders WHERE status = 'cancelled'
`;

/** The fixture agent's recorded answers (POST /_emulator/evals/answers). */
export const EVALS_ANSWERS = {
  orders_by_status: { measures: ['orders.count'], dimensions: ['orders.status'] },
  cancelled_orders: { measures: ['orders.cancelled_count'] },
};

/** The demo model with the eval questions; `orders` replaces the orders cube (a PR's change). */
export const evalsTree = (orders = EVALS_ORDERS, questions = EVALS_QUESTIONS) => ({
  ...DEMO_MODEL,
  'model/cubes/orders.yml': orders,
  'agents/eval_questions/main.yml': questions,
});

/** A sales space whose agent lists `orders_view`, and one question over it. */
export const SALES_AGENTS = {
  'agents/config.yml': `spaces:
  - name: sales
agents:
  - name: order-desk
    space: sales
    runtime: plain
    accessible_views:
      - orders_view
`,
  'agents/eval_questions/sales.yml': `space: sales
eval_questions:
  - name: order_count
    question: How many orders are there?
    sql: SELECT MEASURE(count) FROM orders_view
`,
};

export const ORDERS_VIEW = 'model/views/orders_view.yml';
export const withoutView = (tree: Record<string, string>) => Object.fromEntries(Object.entries(tree).filter(([p]) => p !== ORDERS_VIEW));

/** A fresh folder holding `files` (a model-dir). */
export function modelFolder(files: Record<string, string>, prefix = 'dmci-agents-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  for (const [p, c] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, p)), { recursive: true });
    writeFileSync(join(dir, p), c);
  }
  return dir;
}
