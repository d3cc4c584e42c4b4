/**
 * Members the checkout's model declares non-public (`public: false`, or the older `shown: false`).
 * `/meta` leaves such members out, exactly as it leaves out removed ones: the model files tell the two apart.
 */
import { ModelSet, type ModelTexts } from '../workflows/locate/model-set.js';
import { entryOf, keyVariants, type TreeNode } from '../workflows/locate/model-tree.js';

const LISTS = ['measures', 'dimensions', 'segments'];

const isFalse = (node: TreeNode | undefined) => node?.text === 'false';
const hidden = (member: TreeNode) => isFalse(entryOf(member, 'public')?.value) || isFalse(entryOf(member, 'shown')?.value);

/** `cube.member` of every member declared non-public in the given model files. */
export function privateMembers(texts: ModelTexts): Set<string> {
  const out = new Set<string>();
  for (const file of new ModelSet(texts).models()) {
    for (const entity of file.entities) {
      if (!entity.name) continue;
      for (const entry of entity.body.entries) {
        if (!LISTS.some((l) => keyVariants(l).includes(entry.key))) continue;
        const v = entry.value;
        // JS models: `measures: { count: { …, public: false } }`; YAML: a list of items with `name`.
        for (const e of v.kind === 'map' ? v.entries : []) if (hidden(e.value)) out.add(`${entity.name}.${e.key}`);
        for (const item of v.kind === 'list' ? v.items : []) {
          const name = entryOf(item, 'name')?.value.text;
          if (name && hidden(item)) out.add(`${entity.name}.${name}`);
        }
      }
    }
  }
  return out;
}
