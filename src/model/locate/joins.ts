/**
 * Join errors Cube reports on the cube that declares the join, at no line: the join to a cube without a
 * primary key, two joins to one cube, and the cycle behind "Maximum call stack size exceeded" (a cube
 * that extends itself through others, which Cube reports with no name and no file at all).
 */
import type { ModelSet } from './model-set.js';
import { entryOf, membersOf, resolvePath, type Entity, type ErrorLocation, type ModelFile } from './model-tree.js';

const exact = (file: ModelFile, line: number, column: number, note?: string): ErrorLocation => ({
  file: file.path,
  line,
  column,
  precision: 'exact',
  ...(note ? { note } : {}),
});

/** A cube that defines no dimension with `primary_key: true` (its own or, through `extends`, a parent's). */
function lacksPrimaryKey(files: ModelSet, cube: string, seen = new Set<string>()): boolean {
  if (seen.has(cube)) return true;
  seen.add(cube);
  const found = files.entitiesNamed(cube).find((x) => x.entity.kind === 'cube');
  if (!found) return false;
  const dims = entryOf(found.entity.body, 'dimensions')?.value;
  const members = dims?.kind === 'list' ? dims.items : (dims?.entries.map((e) => e.value) ?? []);
  if (members.some((m) => entryOf(m, 'primary_key')?.value.text === 'true')) return false;
  const parent = entryOf(found.entity.body, 'extends')?.value.text?.replace(/[{}$\s]/g, '');
  return parent ? lacksPrimaryKey(files, parent, seen) : true;
}

export function joinError(rest: string, files: ModelSet, file: ModelFile | undefined, entity: Entity | undefined): ErrorLocation | undefined {
  if (!entity || !file) return undefined;
  let m: RegExpExecArray | null;
  if ((m = /^primary key for '([^']+)' is required when join is defined/.exec(rest))) {
    const lacking = m[1] as string;
    // The join that needs the key: the one to the cube that lacks it, else (the cube itself lacks it) the first.
    const join = resolvePath(entity.body, entity.start, ['joins', lacking === entity.name ? 0 : lacking]);
    if (!join.complete) return undefined;
    const where = files.entitiesNamed(lacking).find((x) => x.entity.kind === 'cube');
    const note =
      where && lacksPrimaryKey(files, lacking)
        ? `${lacking} (${where.file.path}:${where.entity.nameAt.line}) has no dimension with primary_key: true`
        : undefined;
    return exact(file, join.at.line, join.at.column, note);
  }
  if ((m = /^Cube '[^']+' declares \d+ joins to '[^']+' \(([^)]*)\)/.exec(rest))) {
    // The later declarations are the ones to remove: point at the last.
    const last = [...(m[1] as string).matchAll(/joins\[(\d+)\]/g)].at(-1)?.[1];
    const join = last === undefined ? undefined : resolvePath(entity.body, entity.start, ['joins', Number(last)]);
    return join?.complete ? exact(file, join.at.line, join.at.column) : undefined;
  }
  return undefined;
}

/** `extends: orders`, `extends: "{orders}"`, JS `extends: orders` → `orders`. */
const parentOf = (e: Entity) => entryOf(e.body, 'extends')?.value.text?.replace(/[{}$\s]/g, '') || undefined;

/**
 * "Maximum call stack size exceeded" is what Cube says of a cycle of `extends`: find it in the files and
 * name it, on the `extends` of the cycle's first cube in file order.
 */
export function extendsCycle(files: ModelSet): ErrorLocation | undefined {
  const defined = files.models().flatMap((f) => f.entities.filter((e) => e.kind === 'cube' && e.name).map((entity) => ({ file: f, entity })));
  const byName = new Map(defined.map((d) => [d.entity.name as string, d]));
  for (const start of defined) {
    const path: string[] = [];
    for (let name: string | undefined = start.entity.name; name && byName.has(name); name = parentOf(byName.get(name)!.entity)) {
      const seen = path.indexOf(name);
      if (seen === 0) {
        const extendsAt = entryOf(start.entity.body, 'extends')!.at;
        return exact(start.file, extendsAt.line, extendsAt.column, `circular extends: ${[...path, name].join(' → ')}`);
      }
      if (seen > 0) break;
      path.push(name);
    }
  }
  return undefined;
}

/** Members a cube defines in its own body (not through `extends`). */
export function ownMembers(entity: Entity): Set<string> {
  return new Set(membersOf(entity, ['measures', 'dimensions', 'segments', 'hierarchies']).map((m) => m.name));
}
