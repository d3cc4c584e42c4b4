/** The definition diff as a step of the impact: both sides' files, compared; what could not be read becomes a notice. */
import { messageOf } from '../../client/errors.js';
import type { ChangeSet } from '../diff.js';
import type { FileTexts } from './files.js';
import { compareDefinitions, type DefinitionChange } from './index.js';
import { localModelFiles } from '../../model/model-files.js';
import { walkModel } from '../../model/local-model.js';
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

/** Read the two sides (production's files were requested at the start; the checkout's are given or read now). */
export async function definitionsFor(
  baseFiles: Promise<FileTexts | { problem: string }>,
  input: { modelDir?: string; headFiles?: FileTexts },
): Promise<DefinitionStep> {
  const none: DefinitionStep = { privateInHead: new Set(), notices: [], apply: () => ({ changes: [], values: [] }) };
  let head = input.headFiles;
  if (!head && input.modelDir) {
    try {
      head = await localModelFiles(await walkModel(input.modelDir), input.modelDir);
    } catch (e) {
      return { ...none, notices: [`the model definitions were not compared: ${messageOf(e)}`] };
    }
  }
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
