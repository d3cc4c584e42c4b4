/**
 * Errors about the model's shape rather than a value: duplicate members, cubes and views, a view that
 * defines members, conflicting keys, and the YAML transpiler's structure errors. Each message names
 * what to look for; none carries a position.
 */
import { entryOf, itemName, keyVariants, membersOf, type Entity, type ErrorLocation, type ModelFile, type Pos, type TreeNode } from './model-tree.js';
import type { ModelSet } from './model-set.js';

const MEMBER_LISTS = ['measures', 'dimensions', 'segments'];
const exact = (file: ModelFile, pos: Pos): ErrorLocation => ({ file: file.path, line: pos.line, column: pos.column, precision: 'exact' });

/** The definition that repeats: the second one (Cube reports a name when it meets it again). */
const second = <T>(xs: T[]): T | undefined => xs[1] ?? xs[0];

/** A YAML list item's plain values, to compare with the JSON the transpiler quotes. */
function sameContent(item: TreeNode, json: string): boolean {
  try {
    const want = JSON.parse(json) as Record<string, unknown>;
    return Object.entries(want).every(([k, v]) => entryOf(item, k)?.value.text === String(v)) && item.entries.length === Object.keys(want).length;
  } catch {
    return false;
  }
}

export function structureError(rest: string, files: ModelSet, file: ModelFile | undefined, entity: Entity | undefined): ErrorLocation | undefined {
  let m: RegExpExecArray | null;
  if ((m = /^Member names must be unique within a cube\. Found duplicate (\w+) '([^']+)' in cube '([^']+)'/.exec(rest))) {
    const [, kind, member, cube] = m as unknown as [string, string, string, string];
    for (const found of files.entitiesNamed(cube, file)) {
      const hit = second(membersOf(found.entity, [`${kind}s`]).filter((x) => x.name === member));
      if (hit) return exact(found.file, hit.at);
    }
  }
  if (entity && file && (m = /^(\S+) defined more than once/.exec(rest))) {
    const hit = second(membersOf(entity, MEMBER_LISTS).filter((x) => x.name === m![1]));
    if (hit) return exact(file, hit.at);
  }
  if ((m = /^Found duplicate (cube|view) name '([^']+)'/.exec(rest))) {
    const hit = second(files.entitiesNamed(m[2] as string, file).filter((x) => x.entity.kind === m![1]));
    if (hit) return exact(hit.file, hit.entity.nameAt);
  }
  if ((m = /^Found conflicting cube and view name '([^']+)'/.exec(rest))) {
    const all = files.entitiesNamed(m[1] as string, file);
    const hit = all.find((x) => x.entity.kind === 'view') ?? all[0];
    if (hit) return exact(hit.file, hit.entity.nameAt);
  }
  if ((m = /^View '([^']+)' defines own member '(?:[^'.]+\.)?([^']+)'/.exec(rest))) {
    for (const found of files.entitiesNamed(m[1] as string, file)) {
      const hit = membersOf(found.entity, MEMBER_LISTS).find((x) => x.name === m![2]);
      if (hit) return exact(found.file, hit.at);
    }
  }
  if (entity && file && (m = /^You must use either (\w+) or (\w+)\b.*but not both/.exec(rest))) {
    const both = [entryOf(entity.body, m[1] as string), entryOf(entity.body, m[2] as string)];
    const later = both.filter((e) => !!e).sort((a, b) => b.at.line - a.at.line)[0];
    if (later) return exact(file, later.at);
  }
  return file ? yamlStructureError(rest, file) : undefined;
}

/** The YAML transpiler's own errors: an unknown top-level key, a list written as a map, an unnamed member or cube. */
export function yamlStructureError(rest: string, file: ModelFile): ErrorLocation | undefined {
  let m: RegExpExecArray | null;
  if ((m = /^Unexpected YAML key: ([^\s.]+)\./.exec(rest))) {
    const entry = file.root?.entries.find((e) => e.key === m![1]);
    if (entry) return exact(file, entry.at);
  }
  if ((m = /^(\w+) must be defined as array/.exec(rest))) {
    const names = keyVariants(m[1] as string);
    for (const e of file.entities) {
      const entry = e.body.entries.find((x) => names.includes(x.key) && x.value.kind !== 'list');
      if (entry) return exact(file, entry.at);
    }
  }
  if ((m = /^name isn't defined for (\w+): (.*)$/m.exec(rest))) {
    const unnamed = file.entities.flatMap((e) => entryOf(e.body, `${m![1]}s`)?.value.items.filter((i) => i.kind === 'map' && itemName(i) === undefined) ?? []);
    const hit = unnamed.find((i) => sameContent(i, m![2] as string)) ?? (unnamed.length === 1 ? unnamed[0] : undefined);
    if (hit) return { file: file.path, line: hit.start.line, column: hit.start.column, precision: 'member' };
  }
  if (/^Unexpected input during yaml transpiling/.test(rest)) {
    const unnamed = file.entities.filter((e) => e.name === undefined);
    if (unnamed.length === 1) return { file: file.path, line: unnamed[0]!.start.line, column: unnamed[0]!.start.column, precision: 'cube' };
  }
  return undefined;
}
