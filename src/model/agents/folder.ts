/**
 * The agents folder read whole: every YAML and Markdown file under it merged into one structure (the
 * vendor merges them so), then the rules that span files: names unique where the documents require,
 * every `space` and `certifiedQuery` reference resolved. Pure: the texts come in keyed by path under
 * model-dir. No folder (no file under it), no structure: the check is then off.
 */
import { yamlTree } from '../locate/yaml-model.js';
import { FileReader } from './fields.js';
import { emptyDeclared, readConfigFile } from './read-config.js';
import { isEvalFile, readEvalFile } from './read-evals.js';
import { readMarkdownFile } from './read-markdown.js';
import { AUTO, type AgentsFinding, type AgentsFolder, type EvalQuestion, type Named, type Space } from './types.js';

/** The folder Cube reads when `CUBE_CLOUD_AGENTS_CONFIG_PATH` does not move it. */
export const DEFAULT_AGENTS_FOLDER = 'agents';

const YAML = /\.ya?ml$/i;
const MARKDOWN = /\.(md|markdown)$/i;

/** The paths of the folder's files among `paths` (relative to model-dir). */
export function agentsPaths(paths: Iterable<string>, folder = DEFAULT_AGENTS_FOLDER): string[] {
  const prefix = `${folder.replace(/^\.\/|\/+$/g, '')}/`;
  return [...paths].filter((p) => p.startsWith(prefix) && (YAML.test(p) || MARKDOWN.test(p))).sort();
}

export function readAgentsFolder(texts: ReadonlyMap<string, string>, folder = DEFAULT_AGENTS_FOLDER): AgentsFolder | undefined {
  const files = agentsPaths(texts.keys(), folder);
  if (!files.length) return undefined;
  const findings: AgentsFinding[] = [];
  const declared = emptyDeclared();
  const evalQuestions: EvalQuestion[] = [];
  for (const path of files) {
    const text = texts.get(path) ?? '';
    const relative = path.slice(folder.replace(/\/+$/, '').length + 1);
    if (MARKDOWN.test(path)) {
      readMarkdownFile(path, text, { ...declared, findings });
      continue;
    }
    const r = new FileReader(path, findings);
    const tree = yamlTree(text);
    for (const e of tree.errors) r.error(e.line, 'yaml', `the file is not valid YAML: ${e.message}`);
    if (tree.errors.length) continue;
    if (isEvalFile(relative)) readEvalFile(r, tree.root, evalQuestions);
    else readConfigFile(r, tree.root, declared);
  }
  const out: AgentsFolder = { folder, files, ...declared, evalQuestions, findings };
  out.spaces = [{ name: AUTO, at: { file: files[0] as string, line: 1 }, implicit: true }, ...out.spaces];
  crossFileRules(out);
  out.findings.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line);
  return out;
}

/** Every item whose name an earlier one (in path order) took already, keyed as `key` says. */
function duplicates<T extends Named>(items: readonly T[], key: (t: T) => string): [T, T][] {
  const first = new Map<string, T>();
  const out: [T, T][] = [];
  for (const t of items) {
    const k = key(t);
    const seen = first.get(k);
    if (seen) out.push([t, seen]);
    else first.set(k, t);
  }
  return out;
}

const where = (n: Named) => `${n.at.file}:${n.at.line}`;

function crossFileRules(f: AgentsFolder): void {
  const error = (at: Named['at'], rule: string, message: string) => f.findings.push({ ...at, level: 'error', rule, message });
  const declared = f.spaces.filter((s) => !s.implicit);
  for (const [dup, seen] of duplicates(declared, (s) => s.name))
    error(dup.at, 'duplicate-space', `space ${dup.name} is declared again (first at ${where(seen)}): space names are unique across all files`);
  for (const [dup, seen] of duplicates(f.agents, (a) => a.name))
    error(dup.at, 'duplicate-agent', `agent ${dup.name} is declared again (first at ${where(seen)}): agent names are unique across all files`);
  const perSpace = (kind: string, items: readonly (Named & { space: string })[]) => {
    for (const [dup, seen] of duplicates(items, (i) => `${i.space}\u0000${i.name}`))
      error(
        dup.at,
        `duplicate-${kind.replace(/ /g, '-')}`,
        `${kind} ${dup.name} is defined again in space ${dup.space} (first at ${where(seen)}): names are unique per space`,
      );
  };
  perSpace('rule', f.rules);
  perSpace('certified query', f.certifiedQueries);
  perSpace('eval question', f.evalQuestions);

  const spaces = new Set(f.spaces.map((s: Space) => s.name));
  const known = [...spaces].map((s) => `\`${s}\``).join(', ');
  const unresolved = (what: string, space: string, at: Named['at']) => {
    if (!spaces.has(space)) error(at, 'unknown-space', `${what} names space ${JSON.stringify(space)}, which no file declares (declared: ${known})`);
  };
  for (const a of f.agents) unresolved(`agent ${a.name}`, a.space, a.spaceAt);
  for (const r of f.rules) unresolved(`rule ${r.name}`, r.space, r.at);
  for (const q of f.certifiedQueries) unresolved(`certified query ${q.name}`, q.space, q.at);
  for (const q of f.evalQuestions) unresolved(`eval question ${q.name}`, q.space, q.at);

  for (const q of f.evalQuestions) {
    const ref = q.certifiedQuery;
    if (!ref || f.certifiedQueries.some((c) => c.space === q.space && c.name === ref.name)) continue;
    const elsewhere = f.certifiedQueries.filter((c) => c.name === ref.name).map((c) => `space ${c.space}, ${where(c)}`);
    error(
      ref.at,
      'unknown-certified-query',
      `eval question ${q.name} names certified query ${JSON.stringify(ref.name)}, which space ${q.space} does not define${elsewhere.length ? ` (it is in ${elsewhere.join('; ')})` : ''}`,
    );
  }
}
