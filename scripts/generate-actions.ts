/** Write every action.yml and action README, and the README's action tables and examples, from src/action-spec.ts. */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ACTIONS } from '../src/action-spec.js';
import { renderActionReadme, renderActionYml, updateReadme, updateReadmeExamples } from '../src/action-files.js';

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
  return 0;
}
