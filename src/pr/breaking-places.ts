/**
 * Where each breaking change is written: the line of the pull request's file that declares the member
 * (a view's member: the `includes` item that brings it in), the includes of the views that bring a
 * changed cube member in, and for a member the pull request removed, the line of its file where it was
 * (production's file carried onto the pull request's: the line the diff shows beside the removal). A
 * member declared in no file the run holds keeps no line (the check's summary still names it).
 */
import { cubeOf, shortName } from '../impact/base/meta.js';
import type { MemberChange } from '../impact/base/diff.js';
import { carryLine } from '../model/line-map.js';
import { DeclaredMembers, type Declared } from '../model/locate/declared.js';
import type { ImpactResult } from '../operations/impact.js';
import { repoPath } from '../operations/validate.js';
import { plural } from '../report/plural.js';
import { code, text } from './comment/markdown.js';

/** One place a breaking change is annotated on (repository path), or where it was when no file holds it now. */
export interface BreakingPlace {
  /** The member (or cube) the change is of. */
  member: string;
  /** What the annotation says (plain text: GitHub shows an annotation's message as is). */
  message: string;
  /** The same for the check's summary: names as code spans, the rest inert prose. */
  markdown: string;
  path?: string;
  line?: number;
  column?: number;
  /** `declared`: its definition in the pull request; `include`: a view's include of it; `removed`: where it was. */
  how: 'declared' | 'include' | 'removed';
}

/** A sentence in pieces: a string is prose, `{ name }` an identifier (backticks in the annotation, a code span in the summary). */
type Piece = string | { name: string };

function said(pieces: Piece[]): { message: string; markdown: string } {
  return {
    message: pieces.map((p) => (typeof p === 'string' ? p : `\`${p.name}\``)).join(''),
    // text() trims: the spaces between the pieces are kept around it.
    markdown: pieces.map((p) => (typeof p === 'string' ? (/^\s/.test(p) ? ' ' : '') + text(p) + (/\s$/.test(p) ? ' ' : '') : code(p.name))).join(''),
  };
}

/** `orders.status` (dimension): type string → number. */
function described(m: MemberChange): Piece[] {
  const what: Piece[] = m.change === 'renamed' && m.to ? ['renamed to ', { name: m.to }] : [m.details.join('; ')];
  return [{ name: m.member }, ` (${m.kind}${m.cubeType === 'view' ? ' of a view' : ''}): `, ...what];
}

/** `; used by 2 reports, dashboards or notifications: Revenue, Churn`. */
function usedBy(r: ImpactResult, member: string): string {
  const names = r.affected.filter((a) => a.uses.some((u) => u.member === member)).map((a) => a.name);
  if (!names.length) return '';
  const shown = names.slice(0, 3).join(', ') + (names.length > 3 ? ', …' : '');
  return `; used by ${plural(names.length, 'report, dashboard or notification', 'reports, dashboards and notifications')}: ${shown}`;
}

/** Every place of every breaking change of the impact, in the change set's order; none without the files. */
export function breakingPlaces(r: ImpactResult, modelDir: string): BreakingPlace[] {
  const files = r.sources?.files;
  if (!files?.head || !r.changes) return [];
  const head = new DeclaredMembers(files.head);
  const base = files.base ? new DeclaredMembers(files.base) : undefined;
  const out: BreakingPlace[] = [];
  const add = (member: string, pieces: Piece[], how: BreakingPlace['how'], d?: Declared | { file: string; line?: undefined; column?: undefined }) =>
    out.push({ member, ...said(pieces), how, ...(d ? { path: repoPath(modelDir, d.file) } : {}), ...(d?.line ? { line: d.line, column: d.column } : {}) });
  for (const m of r.changes.members.filter((x) => x.breaking)) {
    const pieces: Piece[] = ['Breaking: ', ...described(m), usedBy(r, m.member)];
    // A renamed cube's member is declared under its new name.
    const [cube, name] = m.to ? [cubeOf(m.to), shortName(m.to)] : [m.cube, shortName(m.member)];
    const declared = head.memberAt(cube, name);
    if (declared) add(m.member, pieces, declared.via === 'include' ? 'include' : 'declared', declared);
    else {
      const was = removedAt(base, head, files.base, files.head, m.cube, shortName(m.member));
      add(m.member, was ? [...pieces, ' (removed here)'] : pieces, 'removed', was);
    }
    // The views of the pull request that bring a changed cube member in.
    if (m.cubeType === 'cube') {
      for (const i of head.includesOf(cube, name)) add(m.member, ['Breaking: includes ', ...described(m), usedBy(r, m.member)], 'include', i);
    }
  }
  return out;
}

/** Where production declares a member the pull request's files no longer do, carried onto the pull request's version of that file. */
function removedAt(
  base: DeclaredMembers | undefined,
  head: DeclaredMembers,
  baseTexts: ReadonlyMap<string, string> | undefined,
  headTexts: ReadonlyMap<string, string>,
  cube: string,
  member: string,
): Declared | { file: string } | undefined {
  const was = base?.memberAt(cube, member) ?? base?.entityAt(cube);
  if (!was) return head.entityAt(cube);
  const before = baseTexts?.get(was.file);
  const now = headTexts.get(was.file);
  // The file is gone (or moved): where the cube is declared now, else the file alone.
  if (before === undefined || now === undefined) return head.entityAt(cube) ?? { file: was.file };
  const line = carryLine(before, now, was.line);
  return line ? { ...was, line, column: 1 } : (head.entityAt(cube) ?? { file: was.file });
}
