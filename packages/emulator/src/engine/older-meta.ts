/**
 * Profile `newer-staging-engine`: production runs the older Cube of its release channel while staging
 * runs the newest, so production's `/meta` is written the way the older meta transformer wrote it. What
 * changed between the vendor's schema-compiler 1.6.x and 1.7.x (read from its published builds): 1.7 adds
 * `formatDescription` to numeric members, `viewGroups`, `links` and `synthetic`; 1.6.33 resolves named
 * formats (`abbr`, `percent_2`, …) to a specifier with an `alias` and adds `currency`; 1.7's titleize
 * writes the acronym `ID` where 1.6 wrote `Id`. This turns the newest form back into the older one.
 */
import type { MetaCube, MetaMember } from './meta.js';

/** `Customer ID` -> `Customer Id`, as the older titleize wrote an automatic title. */
const olderTitle = (t: unknown) => (typeof t === 'string' ? t.replace(/\bID(s?)\b/g, 'Id$1') : t);

function olderMember(m: MetaMember): MetaMember {
  const { formatDescription: _fd, currency: _c, links: _l, synthetic: _s, ...rest } = m;
  const out: MetaMember = { ...rest, title: olderTitle(m.title) as string, shortTitle: olderTitle(m.shortTitle) as string };
  const f = m.format as { type?: string; value?: string; alias?: string } | undefined;
  // A named format was kept by name (as an unresolved custom specifier).
  if (f && typeof f === 'object' && f.alias) out.format = { type: f.type, value: f.alias };
  return out;
}

export function asOlderEngine(body: { cubes: MetaCube[]; viewGroups?: unknown }): { cubes: MetaCube[] } {
  return {
    cubes: body.cubes.map((c) => {
      const { viewGroups: _vg, ...rest } = c;
      return {
        ...rest,
        title: olderTitle(c.title) as string,
        measures: c.measures.map(olderMember),
        dimensions: c.dimensions.map(olderMember),
        segments: c.segments.map(olderMember),
      };
    }),
  };
}
