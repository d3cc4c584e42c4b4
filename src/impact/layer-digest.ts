/**
 * The semantic layer as a list of members and types, and its digest: what a validation record keeps of the
 * layer a review read, and what the proof after a merge and the drift watch compare production with. From
 * a `/meta` read (the whole layer: members every read listed) or from model files (the members the files
 * declare public, read as the definition diff reads them). Measures compare by aggregation, dimensions by
 * type: `/meta` words a count as `type: number, aggType: count`, a file as `type: count`.
 */
import { createHash } from 'node:crypto';
import type { ModelDefinition } from './base/model-definition.js';
import type { MetaDocument } from './base/meta.js';
import { unionMeta } from './access/visibility.js';

export interface LayerMember {
  /** `cube.member`. */
  name: string;
  kind: 'measure' | 'dimension' | 'segment';
  /** A measure's aggregation, a dimension's type (a segment has none). */
  type?: string;
}

export interface MemberChange {
  member: string;
  /** What the layer compared has relative to the reference: a member it adds, lacks, or holds with another kind or type. */
  change: 'added' | 'removed' | 'changed';
  /** For a change: `measure count → measure sum`. */
  detail?: string;
}

const byName = (a: LayerMember, b: LayerMember) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** A type in one spelling: `/meta` writes `countDistinct` where a file writes `count_distinct`. */
const typeOf = (t: string | undefined) => t?.toLowerCase().replace(/_/g, '');

/** The visible members of a `/meta` document (cubes and views alike), sorted. */
export function membersOfMeta(meta: MetaDocument): LayerMember[] {
  const out: LayerMember[] = [];
  for (const c of meta.cubes) {
    if (c.visible === false) continue;
    for (const m of c.members) {
      if (!m.visible) continue;
      const type = m.kind === 'measure' ? (m.aggType ?? m.type) : m.kind === 'dimension' ? m.type : undefined;
      out.push({ name: m.name, kind: m.kind, ...(type ? { type: typeOf(type)! } : {}) });
    }
  }
  return out.sort(byName);
}

/** The members model files declare public (public cubes and views; a view's included members resolved), sorted. */
export function membersOfModel(def: ModelDefinition): LayerMember[] {
  const out: LayerMember[] = [];
  for (const c of def.cubes.values()) {
    if (!c.public) continue;
    for (const m of c.members.values()) {
      if (!m.public) continue;
      const type = m.kind === 'segment' ? undefined : typeOf(m.type);
      out.push({ name: `${c.name}.${m.name}`, kind: m.kind, ...(type ? { type } : {}) });
    }
  }
  return out.sort(byName);
}

/** The digest of a layer: SHA-1 over its sorted `name kind type` lines (order and duplicates do not matter). */
export function layerDigest(members: readonly LayerMember[]): string {
  const lines = [...new Set(members.map((m) => `${m.name} ${m.kind} ${m.type ?? ''}\n`))].sort();
  return createHash('sha1').update(lines.join('')).digest('hex');
}

/**
 * The layer that one environment's reads show together (the empty context's and, where the model's
 * policies name groups, the read with every group): what a record keeps and the proof compares, read the
 * same way on both sides.
 */
export function layerOfReads(reads: readonly MetaDocument[]): { members: LayerMember[]; digest: string } {
  const members = membersOfMeta(unionMeta(reads));
  return { members, digest: layerDigest(members) };
}

const describe = (m: LayerMember) => `${m.kind}${m.type ? ` ${m.type}` : ''}`;

/** What `actual` has relative to `expected`: members added, removed, or held with another kind or type. */
export function memberChanges(actual: readonly LayerMember[], expected: readonly LayerMember[]): MemberChange[] {
  const want = new Map(expected.map((m) => [m.name, m]));
  const have = new Map(actual.map((m) => [m.name, m]));
  const out: MemberChange[] = [];
  for (const [name, m] of have) {
    const e = want.get(name);
    if (!e) out.push({ member: name, change: 'added' });
    else if (describe(e) !== describe(m)) out.push({ member: name, change: 'changed', detail: `${describe(e)} → ${describe(m)}` });
  }
  for (const name of want.keys()) if (!have.has(name)) out.push({ member: name, change: 'removed' });
  return out.sort((a, b) => (a.member < b.member ? -1 : a.member > b.member ? 1 : 0));
}
