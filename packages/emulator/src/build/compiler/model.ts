/** Global checks over every entity: names, extends, joins, views — regardless of file order. */
import type { Effective, EntityDef, MemberDef, RawError } from './definitions.js';

export class Model {
  readonly registry = new Map<string, EntityDef>();
  private readonly effective = new Map<EntityDef, Effective>();
  private readonly visiting = new Set<EntityDef>();

  constructor(
    readonly entities: EntityDef[],
    private readonly sink: RawError[],
  ) {}

  error(entity: EntityDef, line: number | null, text: string): void {
    if (entity.muted) return;
    this.sink.push({ file: entity.file, line, text });
  }

  register(): void {
    for (const e of this.entities) {
      if (e.name === undefined) continue;
      const first = this.registry.get(e.name);
      if (first) {
        const as = first.kind === e.kind ? '' : ` (as a ${first.kind})`;
        this.error(e, e.line, `${e.kind} "${e.name}" is already defined at ${first.file}:${first.line}${as}`);
        continue;
      }
      this.registry.set(e.name, e);
    }
  }

  /** The cube with its `extends` chain folded in: parent members first, overridden in place. */
  resolveCube(e: EntityDef): Effective {
    const done = this.effective.get(e);
    if (done) return done;
    this.visiting.add(e);
    let base: Effective | undefined;
    const ext = e.extendsRef;
    if (ext) {
      const target = this.registry.get(ext.name);
      if (!target) this.error(e, ext.line, `cube "${e.label}" extends unknown cube "${ext.name}"`);
      else if (target.kind !== 'cube') this.error(e, ext.line, `cube "${e.label}" extends "${ext.name}", which is a view, not a cube`);
      else if (this.visiting.has(target)) this.error(e, ext.line, `cube "${e.label}" extends "${ext.name}", which leads back to "${e.label}" (circular extends)`);
      else base = this.resolveCube(target);
    }
    const result: Effective = {
      entity: e,
      members: mergeByName(base?.members ?? [], e.members),
      joins: mergeByName(base?.joins ?? [], e.joins),
      sql: e.sql ?? (e.sqlTable === undefined ? base?.sql : undefined),
      sqlTable: e.sqlTable ?? (e.sql === undefined ? base?.sqlTable : undefined),
    };
    this.visiting.delete(e);
    this.effective.set(e, result);
    return result;
  }

  checkCube(e: EntityDef): void {
    const eff = this.resolveCube(e);
    for (const join of e.joins) {
      const target = this.registry.get(join.name);
      if (!target) this.error(e, join.line, `join in cube "${e.label}" refers to unknown cube "${join.name}"`);
      else if (target.kind !== 'cube') this.error(e, join.line, `join in cube "${e.label}" refers to "${join.name}", which is a view, not a cube`);
    }
    if (eff.joins.length > 0 && !eff.members.some((m) => m.kind === 'dimension' && m.primaryKey)) {
      this.error(e, e.joinsLine ?? e.line, `cube "${e.label}" has joins but no primary_key dimension`);
    }
  }

  /** Walks a join path; returns the last cube or reports why the path is broken. */
  resolvePath(view: EntityDef, path: string[], text: string, line: number): Effective | undefined {
    let prev: Effective | undefined;
    for (const hop of path) {
      if (prev && !prev.joins.some((j) => j.name === hop)) {
        this.error(view, line, `view "${view.label}" join_path "${text}": cube "${prev.entity.label}" has no join to "${hop}"`);
        return undefined;
      }
      const target = this.registry.get(hop);
      if (!target) {
        this.error(view, line, `view "${view.label}" join_path "${text}" refers to unknown cube "${hop}"`);
        return undefined;
      }
      if (target.kind !== 'cube') {
        this.error(view, line, `view "${view.label}" join_path "${text}": "${hop}" is a view, not a cube`);
        return undefined;
      }
      prev = this.resolveCube(target);
    }
    return prev;
  }

  /** The view's members, renamed into the view; duplicates reported. */
  resolveView(v: EntityDef): MemberDef[] {
    const out: MemberDef[] = [];
    const origin = new Map<string, string>();
    /** Adds `m` to the view under `viewName`; members taken from a cube carry no sql of their own. */
    const add = (m: MemberDef, viewName: string, from: string, line: number, own = false, title?: string): void => {
      const first = origin.get(viewName);
      if (first !== undefined) {
        this.error(v, line, `view "${v.label}" has duplicate member "${v.label}.${viewName}" (from ${from}; first from ${first})`);
        return;
      }
      origin.set(viewName, from);
      out.push({ ...m, name: viewName, title: title ?? m.title, sql: own ? m.sql : undefined, primaryKey: false, line });
    };

    for (const src of v.sources) {
      const cube = this.resolvePath(v, src.path, src.pathText, src.pathLine);
      if (!cube) continue;
      const cubeName = src.path.at(-1)!;
      const byName = new Map(cube.members.map((m) => [m.name, m]));
      const excluded = new Set<string>();
      for (const ex of src.excludes) {
        if (!byName.has(ex.name)) this.error(v, ex.line, `view "${v.label}" excludes unknown member "${cubeName}.${ex.name}"`);
        excluded.add(ex.name);
      }
      const prefixName = src.alias ?? cubeName;
      const rename = (name: string): string => (src.prefix ? `${prefixName}_${name}` : name);
      if (src.includes === '*') {
        for (const m of cube.members) {
          if (!excluded.has(m.name)) add(m, rename(m.name), `${cubeName}.${m.name}`, src.includesLine);
        }
        continue;
      }
      for (const inc of src.includes) {
        const m = byName.get(inc.name);
        if (!m) {
          this.error(v, inc.line, `view "${v.label}" includes unknown member "${cubeName}.${inc.name}"`);
          continue;
        }
        if (excluded.has(inc.name)) continue;
        add(m, inc.alias ?? rename(inc.name), `${cubeName}.${inc.name}`, inc.line, false, inc.title);
      }
    }

    for (const ref of v.refs) {
      const cube = this.resolvePath(v, ref.path, ref.path.join('.'), ref.line);
      if (!cube) continue;
      const m = cube.members.find((x) => x.name === ref.member);
      if (!m) {
        this.error(v, ref.line, `view "${v.label}" includes unknown member "${ref.path.at(-1)}.${ref.member}"`);
        continue;
      }
      if (m.kind !== ref.kind) {
        this.error(v, ref.line, `view "${v.label}" lists "${ref.raw}" under ${ref.kind}s, but it is a ${m.kind}`);
        continue;
      }
      add(m, ref.member, ref.raw, ref.line);
    }

    for (const m of v.members) add(m, m.name, `${v.label}.${m.name}`, m.line, true);
    return out;
  }
}

function mergeByName<T extends { name: string }>(base: T[], own: T[]): T[] {
  const out = [...base];
  for (const item of own) {
    const i = out.findIndex((b) => b.name === item.name);
    if (i >= 0) out[i] = item;
    else out.push(item);
  }
  return out;
}
