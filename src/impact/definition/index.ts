/** The definition diff of two sides' model files: the changes, the members whose numbers move, and what was not read. */
import { diffDefinitions, type DefinitionChange } from './diff.js';
import type { ModelDefinition } from './model.js';
import { modelDefinition } from './source.js';
import { valuesChanged, type ValuesChanged } from './propagate.js';

export type { ChangeClass, DefinitionChange } from './diff.js';
export type { ModelDefinition } from './model.js';
export type { ValuesChanged } from './propagate.js';

export interface DefinitionComparison {
  base: ModelDefinition;
  head: ModelDefinition;
  changes: DefinitionChange[];
  /** Members (head's names) whose numbers change, and why. */
  values: ValuesChanged;
  /** Files not read on either side, one line each (at most a few, then a count). */
  notices: string[];
}

const SHOWN = 5;

function skippedLines(side: string, def: ModelDefinition): string[] {
  const lines = def.skipped.slice(0, SHOWN).map((s) => `${side}: ${s.file} was not compared: ${s.why}`);
  if (def.skipped.length > SHOWN) lines.push(`${side}: ${def.skipped.length - SHOWN} more files were not compared`);
  return lines;
}

/** Compare production's model files with the pull request's (each keyed by repository path). */
export function compareDefinitions(baseFiles: ReadonlyMap<string, string>, headFiles: ReadonlyMap<string, string>): DefinitionComparison {
  const base = modelDefinition(baseFiles);
  const head = modelDefinition(headFiles);
  const changes = diffDefinitions(base, head);
  return {
    base,
    head,
    changes,
    values: valuesChanged(head, changes),
    notices: [...skippedLines('production', base), ...skippedLines('this pull request', head)],
  };
}
