/** The definition diff as a step of the impact: both sides' files, compared; what could not be read becomes a notice. */
import type { ChangeSet } from '../diff.js';
import type { FileTexts } from './files.js';
import { compareDefinitions, type DefinitionChange } from './index.js';
import { mergeDefinitions, privateIn } from './merge.js';

/** What the impact result keeps of the definition diff. */
export interface DefinitionOutcome {
  changes: DefinitionChange[];
  /** Members whose numbers change (the pull request's names), each with why. */
  values: { member: string; why: string }[];
}

export interface DefinitionStep {
  outcome?: DefinitionOutcome;
  /** Members the pull request's files declare non-public (for the `/meta` diff's "made private"). */
  privateInHead: Set<string>;
  notices: string[];
  /** Fold the definition diff into the `/meta` change set; returns the outcome. */
  apply(cs: ChangeSet): DefinitionOutcome;
}

/**
 * The two sides: production's files (requested at the start) and the checkout's, read from the run's walk of
 * the model by the caller (none given: no definition diff).
 */
export async function definitionsFor(baseFiles: Promise<FileTexts | { problem: string }>, head: FileTexts | undefined): Promise<DefinitionStep> {
  const none: DefinitionStep = { privateInHead: new Set(), notices: [], apply: () => ({ changes: [], values: [] }) };
  if (!head) return none;
  if (!head.size) return { ...none, notices: ['the model definitions were not compared: model-dir holds no YAML or JS file under model/ (or schema/)'] };
  const base = await baseFiles;
  if (!(base instanceof Map)) return { ...none, notices: [`the model definitions were not compared: ${base.problem}`] };
  const cmp = compareDefinitions(base, head);
  const outcome: DefinitionOutcome = { changes: cmp.changes, values: [...cmp.values].map(([member, why]) => ({ member, why })) };
  return {
    outcome,
    privateInHead: privateIn(cmp.head),
    notices: cmp.notices,
    apply: (cs) => {
      mergeDefinitions(cs, cmp.head, cmp.changes);
      return outcome;
    },
  };
}
