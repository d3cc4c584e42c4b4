/**
 * The demo data every deployment's database starts with, fitting the demo model (seed/demo-model.ts):
 * order statuses, 300 customers, 5 000 orders over 2024 and 2025, and a payment for every order that
 * was not cancelled (the demo's pull request adds a `payments` cube). The same rows on every run.
 */

/** Statuses an order goes through; `completed` is the most common. */
export const STATUSES = [
  { code: 'new', label: 'New', final: false, weight: 1 },
  { code: 'processing', label: 'Processing', final: false, weight: 1 },
  { code: 'shipped', label: 'Shipped', final: false, weight: 2 },
  { code: 'completed', label: 'Completed', final: true, weight: 5 },
  { code: 'cancelled', label: 'Cancelled', final: true, weight: 1 },
] as const;

export const CUSTOMERS = 300;
export const ORDERS = 5_000;
/** Orders fall between these two instants (UTC). */
export const ORDERS_FROM = Date.UTC(2024, 0, 1);
export const ORDERS_TO = Date.UTC(2026, 0, 1);

const COUNTRIES = ['Germany', 'France', 'United States', 'Japan', 'United Kingdom', 'Portugal', 'Norway', 'Brazil'];
const FIRST_NAMES = ['Ada', 'Ben', 'Chloe', 'Dev', 'Emma', 'Finn', 'Gita', 'Hugo', 'Ines', 'Jon', 'Kai', 'Lena'];
const METHODS = ['card', 'card', 'card', 'bank_transfer', 'gift_card'];

/** A small seeded generator (a linear congruential one): enough for demo data, and repeatable. */
function generator(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const pick = <T>(items: readonly T[], r: number): T => items[Math.floor(r * items.length)] as T;
const stamp = (ms: number) => `'${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')}'`;

/** The SQL that creates and fills the demo tables (schema `public`), in statements of at most 1 000 rows. */
export function demoDataSql(): string[] {
  const random = generator(42);
  const statements = [
    `CREATE TABLE statuses (code text PRIMARY KEY, label text NOT NULL, is_final boolean NOT NULL);
     CREATE TABLE customers (id integer PRIMARY KEY, name text NOT NULL, country text, signed_up_at timestamp NOT NULL);
     CREATE TABLE orders (id integer PRIMARY KEY, customer_id integer NOT NULL REFERENCES customers (id), status text NOT NULL REFERENCES statuses (code),
       amount numeric(10, 2) NOT NULL, created_at timestamp NOT NULL);
     CREATE TABLE payments (id integer PRIMARY KEY, order_id integer NOT NULL REFERENCES orders (id), method text NOT NULL,
       amount numeric(10, 2) NOT NULL, created_at timestamp NOT NULL);`,
    `INSERT INTO statuses VALUES ${STATUSES.map((s) => `('${s.code}', '${s.label}', ${s.final})`).join(', ')};`,
  ];
  const customers: string[] = [];
  for (let id = 1; id <= CUSTOMERS; id++) {
    // About one customer in twenty has no country on file.
    const country = random() < 0.05 ? 'NULL' : `'${pick(COUNTRIES, random())}'`;
    const signedUp = Date.UTC(2023, 0, 1) + Math.floor(random() * 730) * 86_400_000;
    customers.push(`(${id}, '${pick(FIRST_NAMES, random())} ${id}', ${country}, ${stamp(signedUp)})`);
  }
  statements.push(`INSERT INTO customers VALUES ${customers.join(', ')};`);

  const weighted = STATUSES.flatMap((s) => Array<string>(s.weight).fill(s.code));
  const orders: string[] = [];
  const payments: string[] = [];
  for (let id = 1; id <= ORDERS; id++) {
    const createdAt = ORDERS_FROM + Math.floor(random() * ((ORDERS_TO - ORDERS_FROM) / 1000)) * 1000;
    const status = pick(weighted, random());
    const amount = (5 + random() * 995).toFixed(2);
    orders.push(`(${id}, ${1 + Math.floor(random() * CUSTOMERS)}, '${status}', ${amount}, ${stamp(createdAt)})`);
    if (status !== 'cancelled') payments.push(`(${payments.length + 1}, ${id}, '${pick(METHODS, random())}', ${amount}, ${stamp(createdAt + 3_600_000)})`);
  }
  for (let i = 0; i < orders.length; i += 1000) statements.push(`INSERT INTO orders VALUES ${orders.slice(i, i + 1000).join(', ')};`);
  for (let i = 0; i < payments.length; i += 1000) statements.push(`INSERT INTO payments VALUES ${payments.slice(i, i + 1000).join(', ')};`);
  return statements;
}
