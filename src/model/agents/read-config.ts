/**
 * A YAML file of the agents folder: the flat form (the `auto` space and agent's properties at the top)
 * or the explicit form (`spaces` and `agents` lists), never both in one file (the vendor's rule).
 */
import type { TreeNode } from '../locate/model-tree.js';
import { FileReader, shapeOf } from './fields.js';
import { AUTO, type Agent, type CertifiedQuery, type Named, type Rule, type Space } from './types.js';

export const RUNTIMES = ['plain', 'reasoning'] as const;
export const MEMORY_MODES = ['space', 'user', 'disabled'] as const;
export const RULE_TYPES = ['always', 'agent_requested'] as const;

/** The properties of the flat form: the `auto` agent's and the `auto` space's. */
const AGENT_KEYS = ['title', 'description', 'llm', 'embedding_llm', 'runtime', 'accessible_views', 'memory_mode'];
const SPACE_LISTS = ['rules', 'certified_queries'];
const FLAT_KEYS = [...AGENT_KEYS, ...SPACE_LISTS];
const SPACE_KEYS = ['name', 'title', 'description', ...SPACE_LISTS];
const AGENT_ITEM_KEYS = ['name', 'space', ...AGENT_KEYS];
const RULE_KEYS = ['name', 'description', 'prompt', 'type'];
const QUERY_KEYS = ['name', 'description', 'user_request', 'sql_query'];

/** What one file declares. */
export interface Declared {
  spaces: Space[];
  agents: Agent[];
  rules: Rule[];
  certifiedQueries: CertifiedQuery[];
}

export const emptyDeclared = (): Declared => ({ spaces: [], agents: [], rules: [], certifiedQueries: [] });

export function readConfigFile(r: FileReader, root: TreeNode | undefined, out: Declared): void {
  if (!root || (root.kind === 'scalar' && root.text === undefined)) return;
  if (root.kind !== 'map') {
    r.error(root.start.line, 'shape', `the file is ${shapeOf(root)}; expected a mapping (the \`auto\` agent's properties, or \`spaces\` and \`agents\`)`);
    return;
  }
  const explicit = root.entries.filter((e) => e.key === 'spaces' || e.key === 'agents');
  const flat = root.entries.filter((e) => FLAT_KEYS.includes(e.key));
  if (explicit.length && flat.length) {
    const first = flat[0]!;
    r.error(
      first.at.line,
      'mixed-forms',
      `the file has \`${first.key}\` at its top beside \`${explicit[0]!.key}\`: a file takes either the flat form (the \`auto\` agent) or \`spaces\`/\`agents\` lists, not both`,
    );
  }
  r.knownKeys(root, 'the file', [...FLAT_KEYS, 'spaces', 'agents']);
  if (!explicit.length) {
    readSpaceLists(r, root, AUTO, 'the `auto` space', out);
    if (root.entries.some((e) => AGENT_KEYS.includes(e.key))) out.agents.push(readAgentProps(r, root, { name: AUTO, at: r.at(root.start.line) }, AUTO));
    return;
  }
  for (const item of r.list(root, 'spaces', 'the file')) {
    if (!r.mapping(item, 'an item of `spaces`')) continue;
    r.knownKeys(item, 'a space', SPACE_KEYS);
    const name = r.text(item, 'name', `the space on line ${r.at(item.start.line).line}`, true);
    if (!name) continue;
    out.spaces.push({ name: name.text, at: name.at });
    readSpaceLists(r, item, name.text, `space ${name.text}`, out);
  }
  for (const item of r.list(root, 'agents', 'the file')) {
    if (!r.mapping(item, 'an item of `agents`')) continue;
    r.knownKeys(item, 'an agent', AGENT_ITEM_KEYS);
    const what = `the agent on line ${r.at(item.start.line).line}`;
    const name = r.text(item, 'name', what, true);
    const space = r.text(item, 'space', name ? `agent ${name.text}` : what, true);
    if (name) out.agents.push(readAgentProps(r, item, { name: name.text, at: name.at }, space?.text ?? AUTO, space?.at));
  }
}

function readSpaceLists(r: FileReader, node: TreeNode, space: string, what: string, out: Declared): void {
  for (const item of r.list(node, 'rules', what)) {
    if (!r.mapping(item, `a rule of ${what}`)) continue;
    r.knownKeys(item, 'a rule', RULE_KEYS);
    const name = r.text(item, 'name', `the rule on line ${r.at(item.start.line).line}`, true);
    if (!name) continue;
    const own = `rule ${name.text}`;
    const prompt = r.text(item, 'prompt', own, true);
    const type = r.oneOf(item, 'type', own, RULE_TYPES, true);
    out.rules.push({ name: name.text, at: name.at, space, ...(type ? { type } : {}), ...(prompt ? { prompt: prompt.text } : {}) });
  }
  for (const item of r.list(node, 'certified_queries', what)) {
    if (!r.mapping(item, `a certified query of ${what}`)) continue;
    r.knownKeys(item, 'a certified query', QUERY_KEYS);
    const name = r.text(item, 'name', `the certified query on line ${r.at(item.start.line).line}`, true);
    if (!name) continue;
    const own = `certified query ${name.text}`;
    const request = r.text(item, 'user_request', own, true);
    const sql = r.text(item, 'sql_query', own, true);
    out.certifiedQueries.push({
      name: name.text,
      at: name.at,
      space,
      ...(request ? { userRequest: request.text } : {}),
      ...(sql ? { sql: sql.text, sqlAt: sql.at } : {}),
    });
  }
}

/** An agent's properties: the enumerations checked, `accessible_views` a list of view names. */
function readAgentProps(r: FileReader, node: TreeNode, id: Named, space: string, spaceAt = id.at): Agent {
  const what = `agent ${id.name}`;
  const runtime = r.oneOf(node, 'runtime', what, RUNTIMES);
  const memoryMode = r.oneOf(node, 'memory_mode', what, MEMORY_MODES);
  for (const key of ['llm', 'embedding_llm']) {
    const e = r.entry(node, key);
    if (e?.value.kind === 'list') r.error(e.at.line, 'shape', `\`${key}\` of ${what} is a list; expected a model's name or a mapping (\`byom\`)`);
  }
  for (const key of ['title', 'description']) r.text(node, key, what);
  const accessibleViews: Named[] = [];
  for (const item of r.list(node, 'accessible_views', what)) {
    if (item.kind === 'scalar' && item.text !== undefined) accessibleViews.push({ name: item.text, at: r.at(item.start.line) });
    else r.error(item.start.line, 'shape', `an item of \`accessible_views\` of ${what} is ${shapeOf(item)}; expected a view's name`);
  }
  return { ...id, space, spaceAt, accessibleViews, ...(runtime ? { runtime } : {}), ...(memoryMode ? { memoryMode } : {}) };
}
