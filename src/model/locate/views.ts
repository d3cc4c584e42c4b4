/**
 * Where a view's `cubes` and `folders` go wrong. Cube names the member a view ends up with
 * (`orders_count`, after prefix and alias), not the line that gives it: the includes are replayed here,
 * in Cube's order (a parent view's first), to find the include that yields a name, and folders are
 * searched by name, nested too.
 */
import type { ModelSet } from './model-set.js';
import { entryOf, itemName, membersOf, resolvePath, type Entity, type ErrorLocation, type ModelFile, type Pos, type TreeNode } from './model-tree.js';

/** The member lists a view includes from, each checked for collisions on its own. */
const MEMBER_LISTS = ['measures', 'dimensions', 'segments', 'hierarchies'];

/** One name a view's `cubes` entry yields. */
export interface Include {
  /** The name in the view (prefixed, aliased). */
  name: string;
  /** The member of the cube it comes from. */
  member: string;
  /** The cube the join path ends at. */
  cube: string;
  /** The member's list in the cube (`measures`, …); `unknown` when the cube does not define it. */
  list: string;
  /** Where the include writes it: the alias, the item, or `includes: "*"`. */
  at: Pos;
}

/** `"{orders.users}"`, `orders.users` → `users`. */
const lastStep = (path: string) =>
  path
    .replace(/[{}$\s]/g, '')
    .split('.')
    .at(-1) ?? '';

/** A cube's members by name, with their list, its parents' (`extends`) first, as the model files define them. */
export function cubeMembers(files: ModelSet, cube: string, seen = new Set<string>()): Map<string, string> {
  const out = new Map<string, string>();
  if (seen.has(cube)) return out;
  seen.add(cube);
  const found = files.entitiesNamed(cube).find((x) => x.entity.kind === 'cube');
  if (!found) return out;
  const parent = entryOf(found.entity.body, 'extends')?.value.text;
  if (parent) for (const [m, list] of cubeMembers(files, lastStep(parent), seen)) out.set(m, list);
  for (const m of membersOf(found.entity, MEMBER_LISTS)) out.set(m.name, m.list.replace(/_/g, ''));
  return out;
}

const texts = (node: TreeNode | undefined) => (node?.kind === 'list' ? node.items.map((i) => i.text).filter((t): t is string => !!t) : []);

/** The levels of a cube's hierarchy as `[cube, member]` (`status` and `CUBE.status` are the cube's own), its parents' too. */
function hierarchyLevels(files: ModelSet, cube: string, name: string, seen = new Set<string>()): [string, string][] {
  const found = seen.has(cube) ? undefined : files.entitiesNamed(cube).find((x) => x.entity.kind === 'cube')?.entity;
  if (!found) return [];
  seen.add(cube);
  const levels = resolvePath(found.body, found.start, ['hierarchies', name, 'levels']);
  if (!levels.complete) {
    const parent = entryOf(found.body, 'extends')?.value.text;
    return parent ? hierarchyLevels(files, lastStep(parent), name, seen) : [];
  }
  return texts(levels.node).map((t) => {
    const steps = t.replace(/[{}$\s]/g, '').split('.');
    const owner = steps.length < 2 || steps.at(-2) === 'CUBE' ? cube : (steps.at(-2) as string);
    return [owner, steps.at(-1) as string];
  });
}

/**
 * Every name a view's `cubes` yields, in Cube's order: entry by entry, item by item, then the levels of
 * the hierarchies the view includes, which Cube appends to the entry of their cube unless it lists them.
 */
export function viewIncludes(view: Entity, files: ModelSet): Include[] {
  const entries: { cube: string; full: (m: string) => string; members: Map<string, string>; star: boolean; out: Include[] }[] = [];
  const cubes = entryOf(view.body, 'cubes')?.value;
  for (const item of cubes?.kind === 'list' ? cubes.items : []) {
    const path = entryOf(item, 'join_path')?.value.text;
    if (!path) continue;
    const cube = lastStep(path);
    const alias = entryOf(item, 'alias')?.value.text;
    const prefix = entryOf(item, 'prefix')?.value.text === 'true';
    const full = (m: string) => (prefix ? `${alias ?? cube}_${m}` : m);
    const members = cubeMembers(files, cube);
    const includes = entryOf(item, 'includes');
    const out: Include[] = [];
    entries.push({ cube, full, members, star: includes?.value.text === '*', out });
    if (includes?.value.text === '*') {
      const excluded = new Set(texts(entryOf(item, 'excludes')?.value));
      for (const [member, list] of members) if (!excluded.has(member)) out.push({ name: full(member), member, cube, list, at: includes.at });
      continue;
    }
    for (const include of includes?.value.items ?? []) {
      const member = include.text ?? itemName(include);
      if (!member) continue;
      const aliasEntry = entryOf(include, 'alias');
      const shown = aliasEntry?.value.text ?? member;
      out.push({ name: full(shown), member, cube, list: members.get(member) ?? 'unknown', at: aliasEntry?.at ?? include.start });
    }
  }
  const levels = entries.flatMap((e) =>
    e.out
      .filter((i) => i.list === 'hierarchies')
      .flatMap((i) => hierarchyLevels(files, i.cube, i.member).map(([cube, member]) => ({ cube, member, at: i.at }))),
  );
  for (const e of entries.filter((x) => !x.star)) {
    const listed = new Set(e.out.map((i) => i.member));
    for (const level of levels.filter((l) => l.cube === e.cube && !listed.has(l.member))) {
      listed.add(level.member);
      e.out.push({ name: e.full(level.member), member: level.member, cube: e.cube, list: e.members.get(level.member) ?? 'unknown', at: level.at });
    }
  }
  return entries.flatMap((e) => e.out);
}

/** The includes of the views `view` extends, the farthest first: Cube replays a parent's `cubes` before the view's own. */
function inheritedIncludes(view: Entity, files: ModelSet, seen = new Set<Entity>([view])): Include[] {
  const parentName = entryOf(view.body, 'extends')?.value.text;
  const parent = parentName ? files.entitiesNamed(lastStep(parentName)).find((x) => x.entity.kind === 'view')?.entity : undefined;
  if (!parent || seen.has(parent)) return [];
  seen.add(parent);
  return [...inheritedIncludes(parent, files, seen), ...viewIncludes(parent, files)];
}

/**
 * The place of "Included member 'x' conflicts with existing member": the view's own member of that name,
 * else the view's include that yields the name a second time in one list (Cube keeps the first, which
 * may be a parent view's).
 */
export function collidingInclude(view: Entity, name: string, files: ModelSet): Pos | undefined {
  const own = membersOf(view, MEMBER_LISTS).find((m) => m.name === name);
  if (own) return own.at;
  const inherited = inheritedIncludes(view, files).filter((i) => i.name === name);
  const named = viewIncludes(view, files).filter((i) => i.name === name);
  const seen = new Set(inherited.map((i) => i.list));
  for (const include of named) {
    if (seen.has(include.list)) return include.at;
    seen.add(include.list);
  }
  // Lists unknown: the view's first include after the first that yields the name.
  return named[inherited.length > 0 ? 0 : 1]?.at;
}

interface Folder {
  name: string;
  at: Pos;
  node: TreeNode;
}

/** A view's folders, nested ones too, in source order; `top` only the first level (where Cube wants unique names). */
function foldersOf(view: Entity, top = false): Folder[] {
  const out: Folder[] = [];
  const walk = (list: TreeNode | undefined) => {
    for (const item of list?.kind === 'list' ? list.items : []) {
      const name = entryOf(item, 'name');
      if (!name?.value.text) continue;
      out.push({ name: name.value.text, at: name.at, node: item });
      if (!top) walk(entryOf(item, 'includes')?.value);
    }
  };
  walk(entryOf(view.body, 'folders')?.value);
  return out;
}

const at = (file: ModelFile, pos: Pos): ErrorLocation => ({ file: file.path, line: pos.line, column: pos.column, precision: 'exact' });

/** An item of a folder's `includes`: a member name, or a `join_path` entry. */
function folderItem(folder: Folder, wanted: { member?: string; joinPath?: string }): Pos | undefined {
  for (const item of entryOf(folder.node, 'includes')?.value.items ?? []) {
    if (wanted.member !== undefined && item.text === wanted.member) return item.start;
    const path = entryOf(item, 'join_path');
    if (wanted.joinPath !== undefined && path && path.value.text?.replace(/[{}$\s]/g, '') === wanted.joinPath) return path.at;
  }
  return undefined;
}

/** Views to look in: the one named, else every view of the platform's file (or of the model). */
function viewsToSearch(files: ModelSet, file: ModelFile | undefined, view: string | undefined): { file: ModelFile; entity: Entity }[] {
  const all = (file ? [file] : files.models()).flatMap((f) => f.entities.filter((e) => e.kind === 'view').map((entity) => ({ file: f, entity })));
  return view ? all.filter((v) => v.entity.name === view) : all;
}

/** Folder errors: a duplicate folder, a member or join path a folder names that the view lacks. */
export function folderError(rest: string, files: ModelSet, file: ModelFile | undefined): ErrorLocation | undefined {
  let m: RegExpExecArray | null;
  const find = (view: string | undefined, folder: string | undefined, wanted: { member?: string; joinPath?: string }) => {
    const hits = viewsToSearch(files, file, view).flatMap((v) =>
      foldersOf(v.entity)
        .filter((f) => folder === undefined || f.name === folder)
        .map((f) => folderItem(f, wanted))
        .filter((p): p is Pos => !!p)
        .map((p) => at(v.file, p)),
    );
    return hits.length === 1 ? hits[0] : undefined;
  };
  if ((m = /^Folder names must be unique within a view\. Found duplicate folder '([^']+)' in view '([^']+)'/.exec(rest))) {
    for (const v of viewsToSearch(files, file, m[2])) {
      const second = foldersOf(v.entity, true).filter((f) => f.name === m![1])[1];
      if (second) return at(v.file, second.at);
    }
    return undefined;
  }
  if ((m = /^Member '([^']+)' included in folder '([^']+)' not found/.exec(rest))) return find(undefined, m[2], { member: m[1] });
  if ((m = /^Paths aren't allowed in the 'folders' but '([^']+)' has been provided for (\S+)$/.exec(rest))) return find(m[2], undefined, { member: m[1] });
  if ((m = /^Join path '([^']+)' included in folder '([^']+)' not found in view '([^']+)'/.exec(rest))) return find(m[3], m[2], { joinPath: m[1] });
  if ((m = /^Cube '[^']+' not found for join path '([^']+)' in folder '([^']+)'/.exec(rest))) return find(undefined, m[2], { joinPath: m[1] });
  if ((m = /^Cannot use view '[^']+' in join_path '([^']+)' \(folder '([^']+)' of '([^']+)'\)/.exec(rest))) return find(m[3], m[2], { joinPath: m[1] });
  return undefined;
}

/** Include errors of a view Cube names by the view's member name: a collision, a member no cube defines. */
export function includeError(rest: string, files: ModelSet, file: ModelFile | undefined, entity: Entity | undefined): ErrorLocation | undefined {
  if (!entity || !file || entity.kind !== 'view') return undefined;
  let m: RegExpExecArray | null;
  if ((m = /^Included member '([^']+)' conflicts with existing member of/.exec(rest))) {
    const pos = collidingInclude(entity, m[1] as string, files);
    return pos ? at(file, pos) : undefined;
  }
  if ((m = /^Member '([^']+)' is included in '[^']+' but not defined in any cube/.exec(rest))) {
    const hits = viewIncludes(entity, files).filter((i) => i.name === m![1]);
    return hits.length === 1 ? at(file, (hits[0] as Include).at) : undefined;
  }
  return undefined;
}
