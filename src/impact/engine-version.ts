/**
 * Changes that come only from two Cube versions describing one model differently: staging runs the
 * newest Cube while production runs its release channel, and the meta transformer's wording changed
 * between them. Read from the vendor's published schema-compiler (1.3.40, 1.6.10, 1.6.33, 1.7.4,
 * 1.7.18, 1.7.43): automatic titles gained the acronym `ID` (1.7: "Customer ID", before: "Customer
 * Id"); named formats are resolved with an `alias` (1.6.33), custom ones wrapped in `{ type, value }`
 * (1.6); numeric members gained a derived `formatDescription` (1.7). `meta.ts` reads formats in a form
 * all versions share; this drops the title changes that differ only in letter case.
 */
import type { ChangeSet } from './base/diff.js';

/** `title Customer Id → Customer ID`: a detail that only a newer titleize explains. */
function caseOnlyTitle(detail: string): boolean {
  const m = /^title (.*) → (.*)$/.exec(detail);
  return !!m && m[1] !== m[2] && (m[1] as string).toLowerCase() === (m[2] as string).toLowerCase();
}

/** The change set without what only the engine versions explain; a change left with no detail is dropped. */
export function withoutEngineDifferences(cs: ChangeSet): ChangeSet {
  const members = cs.members.flatMap((m) => {
    if (m.change !== 'changed') return [m];
    const details = m.details.filter((d) => !caseOnlyTitle(d));
    return details.length ? [{ ...m, details }] : [];
  });
  return { ...cs, members };
}
