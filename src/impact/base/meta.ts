/**
 * A `/v1/meta` document as the diff reads it: cubes and views with their measures, dimensions and
 * segments, each member with the fields that matter to the people who query it. Anything else in the
 * document is ignored; a document without a `cubes` list is refused with what it held instead.
 */

export type MemberKind = 'measure' | 'dimension' | 'segment';

/** The fields of a member the diff compares. */
export interface MetaMember {
  /** Full name, `cube.member`. */
  name: string;
  kind: MemberKind;
  type?: string;
  aggType?: string;
  /** The format the model declares, as written (a named format by its name, a custom one by its specifier). */
  format?: string;
  title?: string;
  description?: string;
  /** False when `/meta` lists the member as not public (`public: false` or `isVisible: false`). */
  visible: boolean;
  /** Custom time granularities of a time dimension, by name. */
  granularities: string[];
  /** Each custom granularity's interval, offset and origin, as `/meta` gives them. */
  grainDefs?: Record<string, { interval?: string; offset?: string; origin?: string }>;
  /** A measure with a rolling window (`/meta`'s `cumulative`). */
  cumulative?: boolean;
  /** The cube member a view member stands for (`aliasMember`). */
  alias?: string;
}

export interface MetaCube {
  name: string;
  type: 'cube' | 'view';
  /** False when `/meta` lists the cube or view as not public (`public: false` or `isVisible: false`). */
  visible?: false;
  title?: string;
  description?: string;
  members: MetaMember[];
}

export interface MetaDocument {
  cubes: MetaCube[];
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/**
 * The declared format in a form every Cube version writes alike: 1.6.33 and later resolve a named format
 * to `{ type, value, alias }` (the name in `alias`), custom specifiers are `{ type, value }`, older
 * versions kept the name as text; `formatDescription` (1.7 and later, a default for every numeric
 * member) is derived, not declared, and is not read.
 */
function formatOf(m: Record<string, unknown>): string | undefined {
  const f = m.format;
  if (typeof f === 'string') return f;
  if (f && typeof f === 'object') {
    const o = f as { alias?: unknown; value?: unknown };
    return str(o.alias) ?? str(o.value) ?? JSON.stringify(f);
  }
  return undefined;
}

function memberOf(raw: unknown, kind: MemberKind): MetaMember | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const m = raw as Record<string, unknown>;
  const name = str(m.name);
  if (!name) return undefined;
  const granularities = Array.isArray(m.granularities) ? m.granularities.map((g) => str((g as { name?: unknown })?.name)).filter((g): g is string => !!g) : [];
  const out: MetaMember = { name, kind, visible: m.public !== false && m.isVisible !== false, granularities };
  const defs: NonNullable<MetaMember['grainDefs']> = {};
  for (const g of Array.isArray(m.granularities) ? (m.granularities as Record<string, unknown>[]) : []) {
    const gname = str(g?.name);
    if (!gname) continue;
    const d: { interval?: string; offset?: string; origin?: string } = {};
    for (const k of ['interval', 'offset', 'origin'] as const) if (str(g[k]) !== undefined) d[k] = str(g[k]);
    defs[gname] = d;
  }
  if (Object.keys(defs).length) out.grainDefs = defs;
  if (m.cumulative === true) out.cumulative = true;
  for (const [key, value] of [
    ['type', str(m.type)],
    ['aggType', str(m.aggType)],
    ['format', formatOf(m)],
    ['title', str(m.title)],
    ['description', str(m.description)],
    ['alias', str(m.aliasMember)],
  ] as const) {
    if (value !== undefined) out[key] = value;
  }
  return out;
}

/** Read a `/v1/meta` body; throws an Error naming what the body held when it is not one. */
export function parseMeta(body: unknown, where: string): MetaDocument {
  const cubes = (body as { cubes?: unknown } | null)?.cubes;
  if (!Array.isArray(cubes)) {
    const held = body && typeof body === 'object' ? `keys ${Object.keys(body).slice(0, 5).join(', ') || '(none)'}` : JSON.stringify(body)?.slice(0, 80);
    throw new Error(`${where}: /meta answered without a cubes list (${held})`);
  }
  const out: MetaCube[] = [];
  for (const c of cubes as Record<string, unknown>[]) {
    const name = str(c?.name);
    if (!name) continue;
    const members: MetaMember[] = [];
    for (const [list, kind] of [
      ['measures', 'measure'],
      ['dimensions', 'dimension'],
      ['segments', 'segment'],
    ] as const) {
      const items = Array.isArray(c[list]) ? (c[list] as unknown[]) : [];
      for (const item of items) {
        const m = memberOf(item, kind);
        if (m) members.push(m);
      }
    }
    const cube: MetaCube = { name, type: c.type === 'view' ? 'view' : 'cube', members };
    if (c.public === false || c.isVisible === false) cube.visible = false;
    const title = str(c.title);
    const description = str(c.description);
    if (title !== undefined) cube.title = title;
    if (description !== undefined) cube.description = description;
    out.push(cube);
  }
  return { cubes: out };
}

/** The part of a member's name after its cube: `orders.status` -> `status`. */
export const shortName = (name: string): string => name.slice(name.indexOf('.') + 1);
/** The cube of a member's name: `orders.status` -> `orders`. */
export const cubeOf = (name: string): string => name.slice(0, Math.max(0, name.indexOf('.')));
