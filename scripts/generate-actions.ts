/** Write every action.yml and action README, the actions page's tables and the docs' workflow blocks, from src/action-spec.ts. */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ACTIONS } from '../src/action-spec.js';
import { ACTIONS_DOC, EXAMPLE_DOCS, renderActionReadme, renderActionYml, updateActionTables, updateExamples } from '../src/action-files.js';

export function main(): number {
  for (const spec of ACTIONS) {
    mkdirSync(spec.dir, { recursive: true });
    writeFileSync(join(spec.dir, 'action.yml'), renderActionYml(spec));
    if (spec.dir !== '.') writeFileSync(join(spec.dir, 'README.md'), renderActionReadme(spec));
    console.log(`wrote ${join(spec.dir, 'action.yml')}`);
  }
  writeFileSync(ACTIONS_DOC, updateActionTables(readFileSync(ACTIONS_DOC, 'utf8'), ACTIONS));
  console.log(`updated the action tables of ${ACTIONS_DOC}`);
  for (const doc of EXAMPLE_DOCS) {
    writeFileSync(
      doc,
      updateExamples(readFileSync(doc, 'utf8'), (f) => readFileSync(join('examples', 'workflows', f), 'utf8')),
    );
    console.log(`updated the workflow examples of ${doc}`);
  }
  return 0;
}
