/**
 * The definition diff of two sides' model files: the changes, the members whose numbers move, and what was
 * not read; and the same as a step of the impact (what could not be read becomes a notice).
 */
import type { ChangeSet, DiffOptions } from '../base/diff.js';
import type { FileTexts } from './files.js';
import { diffDefinitions, valuesChanged, type DefinitionChange, type ValuesChanged } from './diff.js';
import { mergeDefinitions, privateIn } from './merge.js';
import type { ModelDefinition } from '../base/model-definition.js';
import { modelDefinition } from './source.js';

export type { ChangeClass, DefinitionChange, ValuesChanged } from './diff.js';
export type { ModelDefinition } from '../base/model-definition.js';

export interface DefinitionComparison {
  base: ModelDefinition;
  head: ModelDefinition;
  changes: DefinitionChange[];
  /** Members (head's names) whose numbers change, and why. */
  values: ValuesChanged;
  /** Files not read on either side, one line each (at most a few, then a count). */
  notices: string[];
  /** Cubes renamed on the same table or sql, old name → new. */
  renames: Map<string, string>;
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
    renames: new Map(changes.flatMap((c) => (c.aspect === 'name' && c.to ? [[c.cube, c.to] as const] : []))),
  };
}

/** What the impact result keeps of the definition diff. */
export interface DefinitionOutcome {
  changes: DefinitionChange[];
  /** Members whose numbers change (the pull request's names), each with why. */
  values: { member: string; why: string }[];
}

export interface DefinitionStep {
  outcome?: DefinitionOutcome;
  /** The sides' definitions (the access review reads their policies): the pull request's alone when production's files were not read. */
  models?: { base?: ModelDefinition; head: ModelDefinition };
  /** What the files tell the `/meta` diff: members the pull request declares non-public ("made private"), cubes renamed. */
  metaOptions: DiffOptions;
  notices: string[];
  /** Fold the definition diff into the `/meta` change set; returns the outcome. */
  apply(cs: ChangeSet): DefinitionOutcome;
}

/**
 * The two sides: production's files (requested at the start) and the checkout's, read from the run's walk of
 * the model by the caller (none given: no definition diff).
 */
export async function definitionsFor(baseFiles: Promise<FileTexts | { problem: string }>, head: FileTexts | undefined): Promise<DefinitionStep> {
  const none: DefinitionStep = { metaOptions: {}, notices: [], apply: () => ({ changes: [], values: [] }) };
  if (!head) return none;
  if (!head.size) return { ...none, notices: ['the model definitions were not compared: model-dir holds no YAML or JS file under model/ (or schema/)'] };
  const base = await baseFiles;
  // Without production's files the pull request's still tell a policy's hiding from a removal.
  if (!(base instanceof Map))
    return { ...none, models: { head: modelDefinition(head) }, notices: [`the model definitions were not compared: ${base.problem}`] };
  const cmp = compareDefinitions(base, head);
  const outcome: DefinitionOutcome = { changes: cmp.changes, values: [...cmp.values].map(([member, why]) => ({ member, why })) };
  return {
    outcome,
    models: { base: cmp.base, head: cmp.head },
    metaOptions: { privateInHead: privateIn(cmp.head), cubeRenames: cmp.renames },
    notices: cmp.notices,
    apply: (cs) => {
      mergeDefinitions(cs, cmp.head, cmp.changes);
      return outcome;
    },
  };
}
