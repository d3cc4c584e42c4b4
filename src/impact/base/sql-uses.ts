/**
 * The members a report written against the SQL API names. Cube's SQL API shows each cube and view as
 * a table whose columns are its members (`SELECT status, MEASURE(total_amount) FROM orders_view`), so
 * a column of a table in FROM or JOIN is that member. Names are matched, not parsed as a full SQL
 * grammar: a word that is no member yields a name no change can match.
 */
import type { MemberUse } from './references.js';

const KEYWORDS = new Set(
  (
    'select from where group by order limit offset as and or not in is null join left right inner outer full cross on having case when then else end ' +
    'desc asc distinct between like ilike true false with union all any some exists interval date timestamp time cast over partition filter ' +
    'nulls first last within using natural lateral values fetch next rows row only top except intersect'
  ).split(' '),
);

/** SQL text without comments and string literals (a literal never names a member). */
function strip(sql: string): string {
  return sql
    .replace(/--[^\n]*/g, ' ')
    .replace(/\/\*[\s\S]*?\*\//g, ' ')
    .replace(/'(?:[^']|'')*'/g, "''");
}

const IDENT = String.raw`(?:"(?:[^"]|"")+"|[A-Za-z_][\w$]*)`;
/** An identifier as the SQL API resolves it: quoted as written, unquoted folded to lower case. */
const plain = (s: string) => (s.startsWith('"') ? s.slice(1, -1).replace(/""/g, '"') : s.toLowerCase());

/** Tables in FROM and JOIN (the last part of a qualified name), with their aliases. */
function tables(sql: string): Map<string, string> {
  const out = new Map<string, string>();
  const re = new RegExp(String.raw`\b(?:from|join)\s+(${IDENT}(?:\s*\.\s*${IDENT})*)(?:\s+(?:as\s+)?(${IDENT}))?`, 'gi');
  for (const m of sql.matchAll(re)) {
    const table = plain((m[1] as string).split(/\s*\.\s*/).at(-1) as string);
    out.set(table, table);
    const alias = m[2];
    if (alias && !KEYWORDS.has(alias.toLowerCase())) out.set(plain(alias), table);
  }
  return out;
}

/** `cube.member` for every column a SQL API query names, in the tables it reads. */
export function sqlUses(sql: unknown, place = 'SQL query'): MemberUse[] {
  if (typeof sql !== 'string' || !sql.trim()) return [];
  const text = strip(sql);
  const from = tables(text);
  if (!from.size) return [];
  const names = new Set([...from.values()]);
  const out = new Map<string, MemberUse>();
  const add = (table: string, column: string) => out.set(`${table}.${column}`, { member: `${table}.${column}`, place });
  const re = new RegExp(String.raw`(${IDENT})(?:\s*\.\s*(${IDENT}))?(\s*\()?`, 'g');
  for (const m of text.matchAll(re)) {
    if (m[3]) continue; // a function: SUM(, MEASURE(, DATE_TRUNC(
    const first = m[1] as string;
    if (m[2]) {
      const table = from.get(plain(first));
      if (table) add(table, plain(m[2]));
      continue;
    }
    const word = plain(first);
    if ((!first.startsWith('"') && KEYWORDS.has(word)) || from.has(word)) continue;
    for (const t of names) add(t, word);
  }
  return [...out.values()];
}
