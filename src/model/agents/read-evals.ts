/**
 * An eval questions file (`agents/eval_questions.yml`, or any `agents/eval_questions/*.yml`): a top-level
 * `eval_questions` list and an optional `space` (default `auto`); each question a `name`, a `question`,
 * and exactly one ground truth, `certifiedQuery` (a certified query's name) or `sql`.
 */
import type { TreeNode } from '../locate/model-tree.js';
import { FileReader, shapeOf } from './fields.js';
import { AUTO, type EvalQuestion } from './types.js';

const FILE_KEYS = ['eval_questions', 'space'];
const QUESTION_KEYS = ['name', 'question', 'certifiedQuery', 'sql'];

/** A path (under the agents folder) of an eval questions file. */
export const isEvalFile = (relative: string) => /^eval_questions\.ya?ml$/i.test(relative) || /^eval_questions\/.+\.ya?ml$/i.test(relative);

export function readEvalFile(r: FileReader, root: TreeNode | undefined, out: EvalQuestion[]): void {
  if (!root || root.kind !== 'map') {
    r.error(root?.start.line ?? 1, 'shape', `the file is ${root ? shapeOf(root) : 'empty'}; expected a mapping with an \`eval_questions\` list`);
    return;
  }
  r.knownKeys(root, 'an eval questions file', FILE_KEYS);
  const space = r.text(root, 'space', 'the file')?.text ?? AUTO;
  if (!r.entry(root, 'eval_questions')) r.error(root.start.line, 'required', 'the file has no `eval_questions` list: it is required');
  for (const item of r.list(root, 'eval_questions', 'the file')) {
    if (!r.mapping(item, 'an item of `eval_questions`')) continue;
    r.knownKeys(item, 'an eval question', QUESTION_KEYS);
    const name = r.text(item, 'name', `the question on line ${r.at(item.start.line).line}`, true);
    if (!name) continue;
    const what = `question ${name.text}`;
    const question = r.text(item, 'question', what, true);
    const ref = r.text(item, 'certifiedQuery', what);
    const sql = r.text(item, 'sql', what);
    if (ref && sql)
      r.error(
        name.at.line,
        'ground-truth',
        `${what} has both \`certifiedQuery\` (${JSON.stringify(ref.text)}) and \`sql\`: a question takes exactly one ground truth`,
      );
    if (!ref && !sql) r.error(name.at.line, 'ground-truth', `${what} has neither \`certifiedQuery\` nor \`sql\`: a question takes exactly one ground truth`);
    out.push({
      name: name.text,
      at: name.at,
      space,
      ...(question ? { question: question.text } : {}),
      ...(ref ? { certifiedQuery: { name: ref.text, at: ref.at } } : {}),
      ...(sql ? { sql: { text: sql.text, at: sql.at } } : {}),
    });
  }
}
