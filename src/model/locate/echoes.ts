/**
 * Root causes and their echoes. When one cube fails, Cube also reports what depends on it: a join to it
 * (`Cube users doesn't exist`), a reference through it (`orders.users cannot be resolved`), a cube that
 * extends it, a folder member its include would have given. Such an error is an echo when the cube it
 * names is defined in the files and another error explains its failure; a rule that cannot tell leaves
 * the error a root cause (a real typo is never hidden).
 */
import { contextPrefix, stripAnsi } from './message.js';
import type { ModelSet } from './model-set.js';
import { entryOf, type ErrorLocation } from './model-tree.js';
import { cubeMembers, viewIncludes } from './views.js';

interface Said {
  entity?: string;
  rest: string;
}

/** The entities an error breaks: the one its place is in; all of its file's when the file fails as a whole. */
function brokenBy(at: ErrorLocation, files: ModelSet): Set<string> {
  if (!at.file || !files.paths.includes(at.file)) return new Set();
  const file = files.file(at.file);
  const named = file.entities.filter((e) => e.name).map((e) => ({ name: e.name as string, from: e.start.line, to: e.endLine }));
  const inside = at.line === undefined || file.unparsable ? [] : named.filter((e) => e.from <= at.line! && at.line! <= e.to);
  // Outside every entity, the error also breaks what the file claims (a syntax error, a misspelt top-level key).
  return new Set([...(inside.length ? inside : named).map((e) => e.name), ...(inside.length ? [] : (file.claims ?? []))]);
}

/** Written in the files: an entity, or a name a file claims that Cube cannot read (its failure is another error's). */
const defined = (files: ModelSet, name: string) => files.entitiesNamed(name).length > 0 || files.models().some((f) => f.claims?.includes(name));

/** The names a reference may fail through: `users`, `orders.count` (if `count` is written in `orders`), the end of a join path. */
function throughNames(files: ModelSet, token: string): string[] {
  const steps = token.split('.');
  const head = steps[0] as string;
  const out: string[] = [];
  if (defined(files, head)) {
    const next = steps[1];
    const found = files.entitiesNamed(head)[0]?.entity;
    const joins = found ? entryOf(found.body, 'joins')?.value : undefined;
    const joined = joins?.kind === 'list' ? joins.items.map((j) => entryOf(j, 'name')?.value.text) : (joins?.entries.map((e) => e.key) ?? []);
    // `orders.amountt` is a typo of its own, not an echo: the member must be one the files write.
    if (next === undefined || cubeMembers(files, head).has(next) || joined.includes(next) || defined(files, next)) out.push(head);
  }
  const last = steps.at(-1) as string;
  if (steps.length > 1 && defined(files, last)) out.push(last);
  return out;
}

/** What an error may echo: entities whose failure would explain it, or errors it repeats. */
function causes(i: number, said: Said[], located: readonly ErrorLocation[], files: ModelSet): { entities: string[]; errors: number[] } {
  const { entity, rest } = said[i] as Said;
  const first = rest.split('\n', 1)[0] ?? '';
  let m: RegExpExecArray | null;
  if ((m = /^Cube (\S+) doesn't exist/.exec(first)) && defined(files, m[1] as string)) return { entities: [m[1] as string], errors: [] };
  if ((m = /^(\S+) cannot be resolved/.exec(first))) return { entities: throughNames(files, m[1] as string), errors: [] };
  if ((m = /^([\w$]+) is not defined$/.exec(first)) && defined(files, m[1] as string)) return { entities: [m[1] as string], errors: [] };
  if ((m = /^Cube '([^']+)' not found for/.exec(first)) && defined(files, m[1] as string)) return { entities: [m[1] as string], errors: [] };
  const view = entity ? files.entitiesNamed(entity).find((x) => x.entity.kind === 'view') : undefined;
  if ((m = /^Member '([^']+)' is included in '[^']+' but not defined in any cube/.exec(first)) && view) {
    // Only a member its cube writes: a name the cube lacks is a typo of its own.
    const through = viewIncludes(view.entity, files).filter((x) => x.name === m![1] && cubeMembers(files, x.cube).has(x.member));
    return { entities: through.map((x) => x.cube), errors: [] };
  }
  if ((m = /^Included member '([^']+)' conflicts with existing member of '([^']+)'/.exec(first))) {
    const own = new RegExp(`^View '${m[2]}' defines own member '[^']*\\.${m[1]}'`);
    return { entities: [], errors: said.flatMap((s, j) => (j !== i && own.test(s.rest) ? [j] : [])) };
  }
  if ((m = /^Member '([^']+)' included in folder '[^']+' not found/.exec(first))) {
    const member = m[1] as string;
    // The same name is the subject of another error (a path in a folder), or an include of the view failed
    // whose cube would have given it (`orders_created_at` after `created` was misspelled).
    const quoted = said.flatMap((s, j) => (j !== i && s.rest.includes(`'${member}'`) ? [j] : []));
    const includes = said.flatMap((s, j) => {
      const bad = /^Member '([^']+)' is included in '([^']+)' but not defined in any cube/.exec(s.rest);
      const v = bad && j !== i && s.entity ? files.entitiesNamed(s.entity).find((x) => x.entity.kind === 'view') : undefined;
      if (!bad || !v || located[j]?.file !== located[i]?.file) return [];
      const failed = viewIncludes(v.entity, files).find((x) => x.name === bad[1] && x.name.endsWith(x.member));
      // The include's prefix (`orders_`) before any member of its cube gives the folder's member.
      const prefix = failed?.name.slice(0, failed.name.length - failed.member.length);
      return failed && [...cubeMembers(files, failed.cube).keys()].some((k) => `${prefix}${k}` === member) ? [j] : [];
    });
    return { entities: [], errors: [...quoted, ...includes] };
  }
  // A cube that extends a failed one repeats the parent's validation error word for word.
  if (entity) {
    const parents: string[] = [];
    for (let p = parentOf(files, entity); p && !parents.includes(p); p = parentOf(files, p)) parents.push(p);
    return { entities: [], errors: said.flatMap((s, j) => (j !== i && s.entity && parents.includes(s.entity) && s.rest === rest ? [j] : [])) };
  }
  return { entities: [], errors: [] };
}

function parentOf(files: ModelSet, name: string): string | undefined {
  const found = files.entitiesNamed(name)[0]?.entity;
  return (found && entryOf(found.body, 'extends')?.value.text?.replace(/[{}$\s]/g, '')) || undefined;
}

/**
 * For each error, the index of the error it echoes (an earlier root where there is a choice), or
 * undefined for a root cause. `located` are the errors' places, in the same order.
 */
export function foldEchoes(messages: readonly string[], located: readonly ErrorLocation[], files: ModelSet): (number | undefined)[] {
  const said: Said[] = messages.map((msg) => contextPrefix(stripAnsi(msg)));
  const breaks = located.map((at) => brokenBy(at, files));
  const echoOf: (number | undefined)[] = messages.map(() => undefined);
  const rootOf = (i: number) => {
    let k = i;
    for (let n = 0; echoOf[k] !== undefined && n <= messages.length; n++) k = echoOf[k] as number;
    return k;
  };
  const found = messages.map((_, i) => causes(i, said, located, files));
  // Echoes of echoes settle in a few rounds (a view over a cube that joins a failed one).
  for (let round = 0; round < 3; round++) {
    messages.forEach((_, i) => {
      if (echoOf[i] !== undefined) return;
      const { entities, errors } = found[i] as { entities: string[]; errors: number[] };
      const candidates = [...errors, ...messages.map((__, j) => j).filter((j) => j !== i && entities.some((e) => breaks[j]?.has(e)))];
      // Prefer a root; never fold two errors into each other.
      const ok = candidates.filter((j) => rootOf(j) !== i).sort((a, b) => Number(echoOf[a] !== undefined) - Number(echoOf[b] !== undefined) || a - b);
      if (ok.length) echoOf[i] = ok[0];
    });
  }
  return echoOf.map((j, i) => (j === undefined ? undefined : rootOf(i)));
}
