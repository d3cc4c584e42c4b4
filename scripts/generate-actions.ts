/**
 * Write every action.yml and action README, the actions page's tables, the docs' workflow blocks and the
 * command reference of docs/cli.md, from src/action-spec.ts and the command table.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ACTIONS } from '../src/action-spec.js';
import { ACTIONS_DOC, EXAMPLE_DOCS, renderActionReadme, renderActionYml, updateActionTables, updateExamples } from '../src/action-files.js';
import { updateCliDocs } from '../src/cli-docs.js';
import { COMMANDS } from '../src/commands/index.js';
import { doorTable } from '../src/operations/door.js';

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
  writeFileSync('docs/cli.md', updateCliDocs(readFileSync('docs/cli.md', 'utf8'), COMMANDS));
  console.log('updated the command reference of docs/cli.md');
  const faults = readFileSync('docs/faults.md', 'utf8');
  const door = /(<!-- door:start -->\n)[\s\S]*?(<!-- door:end -->)/;
  if (!door.test(faults)) throw new Error('docs/faults.md has no <!-- door:start --> … <!-- door:end --> block');
  writeFileSync(
    'docs/faults.md',
    faults.replace(door, (_m, a: string, b: string) => `${a}${doorTable()}\n${b}`),
  );
  console.log("updated the door's table of docs/faults.md");
  return 0;
}
