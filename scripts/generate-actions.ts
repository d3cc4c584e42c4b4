/**
 * Write every action.yml and action README, the README's action tables and examples, and the command
 * reference of docs/cli.md, from src/action-spec.ts and the command table.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ACTIONS } from '../src/action-spec.js';
import { renderActionReadme, renderActionYml, updateReadme, updateReadmeExamples } from '../src/action-files.js';
import { updateCliDocs } from '../src/cli-docs.js';
import { COMMANDS } from '../src/commands/index.js';

export function main(): number {
  for (const spec of ACTIONS) {
    mkdirSync(spec.dir, { recursive: true });
    writeFileSync(join(spec.dir, 'action.yml'), renderActionYml(spec));
    if (spec.dir !== '.') writeFileSync(join(spec.dir, 'README.md'), renderActionReadme(spec));
    console.log(`wrote ${join(spec.dir, 'action.yml')}`);
  }
  const readme = updateReadme(readFileSync('README.md', 'utf8'), ACTIONS);
  writeFileSync(
    'README.md',
    updateReadmeExamples(readme, (f) => readFileSync(join('examples', 'workflows', f), 'utf8')),
  );
  console.log('updated the action tables of README.md');
  writeFileSync('docs/cli.md', updateCliDocs(readFileSync('docs/cli.md', 'utf8'), COMMANDS));
  console.log('updated the command reference of docs/cli.md');
  return 0;
}
