/**
 * What a run reads of a branch's `agents/` folder: the eval questions (`agents/eval_questions.yml` and
 * `agents/eval_questions/*.yml`, merged) and the certified queries their ground truths may name (YAML
 * `certified_queries` lists, flat or under `spaces`, and Markdown files under `certified_queries/`).
 * The emulator cannot import the toolkit's reader (src/model/agents: the boundary rule), so this is its
 * own lenient reading of the same documented shapes; the toolkit's lint judges the files, not this.
 */
import { parse } from 'yaml';
import { decodeFile } from '../build/trees.js';
import type { FileMap } from '../build/models.js';

export interface EvalQuestion {
  /** The file's path in the branch. */
  file: string;
  name: string;
  question: string;
  space: string;
  certifiedQuery?: string;
  sql?: string;
}

const AGENTS = /^(?:.*\/)?agents\//;
const EVAL_FILE = /^(?:.*\/)?agents\/eval_questions(?:\.ya?ml|\/.+\.ya?ml)$/i;

const textOf = (v: unknown) => (typeof v === 'string' ? v : undefined);

function readYaml(text: string): unknown {
  try {
    return parse(text) as unknown;
  } catch {
    return undefined;
  }
}

export function readQuestions(files: FileMap): EvalQuestion[] {
  const out: EvalQuestion[] = [];
  for (const path of Object.keys(files)
    .filter((p) => EVAL_FILE.test(p))
    .sort()) {
    const doc = readYaml(decodeFile(files[path] as string).toString('utf8')) as { eval_questions?: unknown; space?: unknown } | undefined;
    if (!doc || !Array.isArray(doc.eval_questions)) continue;
    const space = textOf(doc.space) ?? 'auto';
    for (const q of doc.eval_questions as Record<string, unknown>[]) {
      const name = textOf(q?.name);
      if (!name) continue;
      const certifiedQuery = textOf(q.certifiedQuery);
      const sql = textOf(q.sql);
      out.push({ file: path, name, question: textOf(q.question) ?? name, space, ...(certifiedQuery ? { certifiedQuery } : {}), ...(sql ? { sql } : {}) });
    }
  }
  return out;
}

/** Certified queries' SQL by `space/name`. */
export function readCertifiedQueries(files: FileMap): Map<string, string> {
  const out = new Map<string, string>();
  const add = (space: string, list: unknown) => {
    if (!Array.isArray(list)) return;
    for (const q of list as Record<string, unknown>[]) {
      const name = textOf(q?.name);
      const sql = textOf(q?.sql_query);
      if (name && sql) out.set(`${space}/${name}`, sql);
    }
  };
  for (const path of Object.keys(files)
    .filter((p) => AGENTS.test(p) && !EVAL_FILE.test(p))
    .sort()) {
    const text = decodeFile(files[path] as string).toString('utf8');
    if (/\.ya?ml$/i.test(path)) {
      const doc = readYaml(text) as { certified_queries?: unknown; spaces?: unknown } | undefined;
      add('auto', doc?.certified_queries);
      for (const s of Array.isArray(doc?.spaces) ? (doc.spaces as Record<string, unknown>[]) : []) add(textOf(s?.name) ?? 'auto', s?.certified_queries);
    } else if (/\.(md|markdown)$/i.test(path)) {
      const m = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(text);
      const fm = m ? (readYaml(m[1] as string) as Record<string, unknown> | undefined) : undefined;
      // The manual's inference: a missing name is the file's base name, a missing kind its folder's or its frontmatter's shape.
      const name = textOf(fm?.name) ?? path.replace(/^.*\//, '').replace(/\.(md|markdown)$/i, '');
      if (!m || !name || markdownKind(path, fm) !== 'certified_query') continue;
      const body = m[2] ?? '';
      const fenced = /```(?:sql)?\s*\n([\s\S]*?)```/i.exec(body);
      const sql = textOf(fm?.sql_query) ?? (fenced?.[1] ?? body).trim();
      if (sql) out.set(`${textOf(fm?.space) ?? 'auto'}/${name}`, sql);
    }
  }
  return out;
}

/** A Markdown file's kind as yaml-config.mdx infers it: `kind`, else its nearest folder, else its frontmatter's shape. */
function markdownKind(path: string, fm: Record<string, unknown> | undefined): string | undefined {
  if (fm?.kind !== undefined) return textOf(fm.kind);
  for (const dir of path.split('/').slice(0, -1).reverse()) {
    if (dir === 'rules') return 'rule';
    if (['certified_queries', 'certified-queries', 'queries'].includes(dir)) return 'certified_query';
  }
  if (fm && ('type' in fm || 'prompt' in fm)) return 'rule';
  return fm && ('user_request' in fm || 'sql_query' in fm) ? 'certified_query' : undefined;
}
