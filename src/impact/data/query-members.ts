/**
 * The team's key queries (the committed file) checked against the two semantic layers before any query
 * runs: a member production's `/meta` lacks is a typo unless the preview has it. A typo fails the data diff
 * with the names nearest to it (else it would run, fail on both sides and read as "2 failed"); a member
 * only the preview has (the pull request adds it) makes its query run on the preview only, all rows new.
 */
import { didYouMean } from '../../model/did-you-mean.js';
import type { MetaDocument } from '../base/meta.js';
import { queryUses } from '../base/references.js';
import type { KeyQuery } from './types.js';

/** A member a key query names that neither side has, with what it may have meant. */
export interface UnknownMember {
  query: string;
  member: string;
  /** Members near its name, nearest first. */
  near: string[];
  /** Without a near name: the members of its cube (when the cube exists), or the cubes near its cube's name. */
  cubeMembers?: string[];
  nearCubes?: string[];
}

export interface CheckedKeyQueries {
  /** The queries, those that name a member only the preview has marked to run there only. */
  queries: KeyQuery[];
  unknown: UnknownMember[];
  /** Queries that run on the preview only, with the members production lacks. */
  previewOnly: { query: string; members: string[] }[];
}

const namesOf = (meta: MetaDocument | undefined) => new Set((meta?.cubes ?? []).flatMap((c) => c.members.map((m) => m.name)));

export function checkKeyQueryMembers(queries: readonly KeyQuery[], production: MetaDocument, preview: MetaDocument | undefined): CheckedKeyQueries {
  const base = namesOf(production);
  const head = namesOf(preview);
  const all = [...new Set([...base, ...head])];
  const out: CheckedKeyQueries = { queries: [], unknown: [], previewOnly: [] };
  const membersOf = (q: KeyQuery['query']) => [...new Set(queryUses(q).map((u) => u.member))];
  for (const k of queries) {
    // Gone from the pull request's file: run on neither side, nothing of it to check.
    if (k.baseOnly) {
      out.queries.push(k);
      continue;
    }
    const unknown = membersOf(k.query).filter((m) => !base.has(m) && !head.has(m));
    for (const member of unknown) out.unknown.push(explain(k.name, member, all, production, preview));
    // Production runs the base's version when there is one: its members are the ones production must have.
    const missing = membersOf(k.baseQuery ?? k.query).filter((m) => !base.has(m));
    if (missing.length && !unknown.length && !k.headOnly) {
      out.previewOnly.push({ query: k.name, members: missing });
      const { baseQuery: _, ...rest } = k;
      out.queries.push({ ...rest, headOnly: true });
    } else out.queries.push(k);
  }
  return out;
}

function explain(query: string, member: string, all: string[], ...metas: (MetaDocument | undefined)[]): UnknownMember {
  const near = didYouMean(member, all);
  if (near.length) return { query, member, near };
  const cube = member.split('.')[0] as string;
  const cubes = metas.flatMap((m) => m?.cubes ?? []);
  // Both sides' members of the cube: the preview may add some.
  const own = [...new Set(cubes.filter((c) => c.name === cube).flatMap((c) => c.members.map((m) => m.name)))];
  if (own.length) return { query, member, near, cubeMembers: own };
  return { query, member, near, nearCubes: didYouMean(cube, new Set(cubes.map((c) => c.name))) };
}

const SHOWN = 6;

/** One sentence per unknown member: the query, the member, what it may have meant. */
export function unknownMembersText(unknown: readonly UnknownMember[]): string {
  return unknown
    .map((u) => {
      const more = (xs: string[]) => (xs.length > SHOWN ? `${xs.slice(0, SHOWN).join(', ')} and ${xs.length - SHOWN} more` : xs.join(', '));
      const cube = u.member.split('.')[0];
      const help = u.near.length
        ? `did you mean ${u.near.join(' or ')}?`
        : u.cubeMembers
          ? `${cube} has ${more(u.cubeMembers)}`
          : `no cube or view is named ${cube}${u.nearCubes?.length ? `; did you mean ${u.nearCubes.join(' or ')}?` : ''}`;
      return `key query "${u.query}" names ${u.member}, which production's semantic layer does not have, nor the preview's (${help})`;
    })
    .join('; ');
}
