/**
 * The names a model gives the agents to use: its cubes and views and their members. From the compiled
 * model (`/meta`, Cube's compiler as validation uses it) where the run has it, else from the local model
 * files (YAML and JS, read as the error locator reads them); the local reading says when it may be short
 * of the truth (templated files, views that extend others), and then a missing name is no error.
 */
import { ModelSet, type ModelTexts } from '../locate/model-set.js';
import { entryOf, membersOf } from '../locate/model-tree.js';
import { cubeMembers, viewIncludes } from '../locate/views.js';
import type { Place } from './types.js';

export interface ModelEntity {
  name: string;
  type: 'cube' | 'view';
  /** Short member names, lower-cased (Postgres folds unquoted names). */
  members: Set<string>;
  /** False when the local reading may miss some of its members. */
  membersKnown: boolean;
  /** Where the files define it (the local reading). */
  at?: Place;
}

export interface ModelNames {
  source: 'compiled' | 'local';
  /** By lower-cased name. */
  entities: Map<string, ModelEntity>;
  /** False when some of the model is not read here (a templated file): a name it lacks may still exist. */
  complete: boolean;
}

/** The shape of `/meta` this needs (src/impact/base/meta.ts's MetaDocument has it). */
export interface MetaLike {
  cubes: { name: string; type: 'cube' | 'view'; members: { name: string }[] }[];
}

const short = (full: string) => (full.includes('.') ? full.slice(full.indexOf('.') + 1) : full).toLowerCase();

export function namesFromMeta(meta: MetaLike): ModelNames {
  const entities = new Map<string, ModelEntity>();
  for (const c of meta.cubes)
    entities.set(c.name.toLowerCase(), { name: c.name, type: c.type, members: new Set(c.members.map((m) => short(m.name))), membersKnown: true });
  return { source: 'compiled', entities, complete: true };
}

const MEMBER_LISTS = ['measures', 'dimensions', 'segments'];

/** The local model files' names (`texts`: the files Cube compiles, keyed by path under model-dir). */
export function namesFromFiles(texts: ModelTexts): ModelNames {
  const files = new ModelSet(texts);
  const entities = new Map<string, ModelEntity>();
  let complete = files.paths.every((p) => /\.(ya?ml|[cm]?js)$/i.test(p));
  for (const file of files.models()) {
    if (file.unparsable || file.claims?.length) complete = false;
    for (const e of file.entities) {
      if (!e.name) {
        complete = false;
        continue;
      }
      const at = { file: file.path, line: e.nameAt.line };
      if (e.kind === 'cube') {
        const members = new Set([...cubeMembers(files, e.name).keys()].map((m) => m.toLowerCase()));
        entities.set(e.name.toLowerCase(), { name: e.name, type: 'cube', members, membersKnown: file.language === 'yaml', at });
        continue;
      }
      const members = new Set([...membersOf(e, MEMBER_LISTS), ...viewIncludes(e, files)].map((m) => m.name.toLowerCase()));
      const membersKnown = file.language === 'yaml' && !entryOf(e.body, 'extends');
      entities.set(e.name.toLowerCase(), { name: e.name, type: 'view', members, membersKnown, at });
    }
  }
  return { source: 'local', entities, complete };
}
