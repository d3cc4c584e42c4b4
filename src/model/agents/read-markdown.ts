/**
 * A Markdown file of the agents folder: one rule or one certified query, its metadata in a YAML
 * frontmatter, its prompt or SQL in the body (the frontmatter's `prompt` / `sql_query` win). Its kind
 * is `kind`, else its folder (`rules/`; `certified_queries/`, `certified-queries/`, `queries/`), else
 * the frontmatter's shape; its name is `name`, else the file's name without extension.
 */
import { yamlTree } from '../locate/yaml-model.js';
import { FileReader, shapeOf } from './fields.js';
import type { Declared } from './read-config.js';
import { RULE_TYPES } from './read-config.js';
import { AUTO } from './types.js';

const QUERY_FOLDERS = ['certified_queries', 'certified-queries', 'queries'];
const COMMON_KEYS = ['name', 'kind', 'space', 'description'];
const RULE_KEYS = [...COMMON_KEYS, 'type', 'prompt'];
const QUERY_KEYS = [...COMMON_KEYS, 'user_request', 'sql_query'];

/** The kind a file's folders give it (the nearest folder that says one). */
function kindByPath(path: string): 'rule' | 'certified_query' | undefined {
  for (const dir of path.split('/').slice(0, -1).reverse()) {
    if (dir === 'rules') return 'rule';
    if (QUERY_FOLDERS.includes(dir)) return 'certified_query';
  }
  return undefined;
}

/** HTML comments: the agent reads them with the query, the SQL API never sees them. */
const withoutComments = (s: string) => s.replace(/<!--[\s\S]*?-->/g, (c) => c.replace(/[^\n]/g, ' '));

export function readMarkdownFile(path: string, text: string, findings: Declared & { findings: FileReader['findings'] }): void {
  const lines = text.split(/\r?\n/);
  const plain = new FileReader(path, findings.findings);
  if (lines[0]?.trim() !== '---') {
    plain.error(1, 'frontmatter', 'the file has no frontmatter: a rule or certified query starts with `---`, its properties, and `---`');
    return;
  }
  const close = lines.findIndex((l, i) => i > 0 && l.trim() === '---');
  if (close < 0) {
    plain.error(1, 'frontmatter', 'the frontmatter opened on line 1 is never closed with `---`');
    return;
  }
  const r = new FileReader(path, findings.findings, 1);
  const tree = yamlTree(lines.slice(1, close).join('\n'));
  for (const e of tree.errors) r.error(e.line, 'yaml', `the frontmatter is not valid YAML: ${e.message}`);
  if (tree.errors.length) return;
  const fm = tree.root;
  if (fm && fm.kind !== 'map') {
    r.error(fm.start.line, 'shape', `the frontmatter is ${shapeOf(fm)}; expected a mapping`);
    return;
  }
  const bodyLines = lines.slice(close + 1);
  const body = bodyLines.join('\n').trim();
  const firstBody =
    close +
    2 +
    Math.max(
      0,
      bodyLines.findIndex((l) => l.trim() !== ''),
    );
  const has = (k: string) => !!fm?.entries.some((e) => e.key === k);
  const written = fm ? r.oneOf(fm, 'kind', 'the file', ['rule', 'certified_query']) : undefined;
  const kind = written ?? kindByPath(path) ?? (has('type') || has('prompt') ? 'rule' : has('user_request') || has('sql_query') ? 'certified_query' : undefined);
  if (!kind) {
    plain.error(
      1,
      'kind',
      'the file is neither under `rules/` nor `certified_queries/`, and its frontmatter has no `kind`, `type`/`prompt` (a rule) or `user_request`/`sql_query` (a certified query)',
    );
    return;
  }
  const empty = { kind: 'map' as const, start: { line: 1, column: 1 }, endLine: 1, entries: [], items: [] };
  const node = fm ?? empty;
  r.knownKeys(node, kind === 'rule' ? 'a rule' : 'a certified query', kind === 'rule' ? RULE_KEYS : QUERY_KEYS);
  const named = r.text(node, 'name', 'the file');
  const name = named?.text ?? (path.split('/').at(-1) ?? path).replace(/\.[^.]*$/, '');
  const at = named?.at ?? { file: path, line: 1 };
  const space = r.text(node, 'space', 'the file')?.text ?? AUTO;
  if (kind === 'rule') {
    const type = r.oneOf(node, 'type', `rule ${name}`, RULE_TYPES, true);
    const prompt = r.text(node, 'prompt', `rule ${name}`)?.text ?? (body || undefined);
    if (!prompt) plain.error(1, 'required', `rule ${name} has no prompt: neither \`prompt\` in the frontmatter nor a body`);
    findings.rules.push({ name, at, space, ...(type ? { type } : {}), ...(prompt ? { prompt } : {}) });
    return;
  }
  const request = r.text(node, 'user_request', `certified query ${name}`, true);
  const sqlField = r.text(node, 'sql_query', `certified query ${name}`);
  const sqlBody = withoutComments(bodyLines.join('\n')).trim();
  const sql = sqlField ? { sql: sqlField.text, sqlAt: sqlField.at } : sqlBody ? { sql: sqlBody, sqlAt: { file: path, line: firstBody } } : undefined;
  if (!sql) plain.error(1, 'required', `certified query ${name} has no SQL: neither \`sql_query\` in the frontmatter nor a body`);
  findings.certifiedQueries.push({ name, at, space, ...(request ? { userRequest: request.text } : {}), ...(sql ?? {}) });
}
