/**
 * Where a member is declared in a set of model files: a cube's own member (or its parent's, through
 * `extends`), a view's own member or the `includes` item that brings it in (after prefix and alias, as
 * the views' replay in ./views.ts finds it). The check run's annotations of the breaking members use it
 * (src/pr/breaking-places.ts), on the pull request's files and on production's.
 */
import { ModelSet, type ModelTexts } from './model-set.js';
import { entryOf, membersOf, type Entity, type ModelFile } from './model-tree.js';
import { viewIncludes } from './views.js';

/** A place in a model file (its key among the texts given), and what is written there. */
export interface Declared {
  file: string;
  line: number;
  column: number;
  /** `member`: the member's own definition; `include`: a view's include that brings it in; `entity`: the cube's or view's name. */
  via: 'member' | 'include' | 'entity';
}

const LISTS = ['measures', 'dimensions', 'segments', 'hierarchies'];

/** `"{orders.users}"`, `orders` → `orders`; `extends: ${base}` → `base`. */
const lastStep = (path: string) =>
  path
    .replace(/[{}$\s]/g, '')
    .split('.')
    .at(-1) ?? '';

export class DeclaredMembers {
  private readonly files: ModelSet;

  constructor(texts: ModelTexts) {
    this.files = new ModelSet(texts);
  }

  /** The cube or view `name` and its file (the first, in path order, when two files define it). */
  entity(name: string, kind?: 'cube' | 'view'): { file: ModelFile; entity: Entity } | undefined {
    return this.files.entitiesNamed(name).find((x) => !kind || x.entity.kind === kind);
  }

  /** Where the cube or view is named. */
  entityAt(name: string): Declared | undefined {
    const found = this.entity(name);
    return found && { file: found.file.path, line: found.entity.nameAt.line, column: found.entity.nameAt.column, via: 'entity' };
  }

  /** Where `member` of the cube or view `entity` is declared; undefined when these files do not declare it. */
  memberAt(entityName: string, member: string, seen = new Set<string>()): Declared | undefined {
    if (seen.has(entityName)) return undefined;
    seen.add(entityName);
    const found = this.entity(entityName);
    if (!found) return undefined;
    const { file, entity } = found;
    const own = membersOf(entity, LISTS).find((m) => m.name === member);
    if (own) return { file: file.path, line: own.at.line, column: own.at.column, via: 'member' };
    if (entity.kind === 'view') {
      const include = viewIncludes(entity, this.files).find((i) => i.name === member);
      if (include) return { file: file.path, line: include.at.line, column: include.at.column, via: 'include' };
    }
    const parent = entryOf(entity.body, 'extends')?.value.text;
    return parent ? this.memberAt(lastStep(parent), member, seen) : undefined;
  }

  /** The `includes` items of every view that bring in `member` of `cube` (a `"*"` included), one place each. */
  includesOf(cube: string, member: string): Declared[] {
    const out: Declared[] = [];
    for (const file of this.files.models()) {
      for (const view of file.entities.filter((e) => e.kind === 'view')) {
        for (const i of viewIncludes(view, this.files).filter((x) => x.cube === cube && x.member === member)) {
          if (!out.some((d) => d.file === file.path && d.line === i.at.line))
            out.push({ file: file.path, line: i.at.line, column: i.at.column, via: 'include' });
        }
      }
    }
    return out;
  }
}
