/**
 * Who can see what, per persona: `hidden` / `exposed` from the persona's `/meta` on each side (Cube's own
 * policy code decided them); `masked` / `unmasked` from the policies in the model files, checked against
 * that `/meta`; the row filter each side's policies give, per policy target (the probes' input); the
 * saved content that uses what a persona loses. A persona whose groups visibly do not reach the
 * policies on production (a policy grants its group a cube the pull request does not touch, and
 * production's `/meta` hides it) gets a notice, and its changes are not reported as fact.
 */
import { affectedContent, type ContentItem } from '../base/affected.js';
import type { ChangeSet, MemberChange } from '../base/diff.js';
import type { ModelDefinition } from '../base/model-definition.js';
import { cubeOf, shortName, type MetaDocument } from '../base/meta.js';
import { modelAccess, viewsOver } from './chain.js';
import { rowsOf } from './effective.js';
import { entityAccess, type EntityAccess } from './policy.js';
import type { AccessChange, AccessOutcome, LostContent, Persona, RowFilterSides } from './types.js';
import { policyTargets, visibleMembers } from './visibility.js';

/** One persona's `/meta` on each side (absent: not read, `problem` says why). */
export interface PersonaMetas {
  persona: Persona;
  base?: MetaDocument;
  head?: MetaDocument;
  problem?: string;
}

export interface AccessReviewInput {
  personas: Persona[];
  reads: PersonaMetas[];
  /** The union of each side's reads: what exists at all, whoever may see it. */
  baseUnion: MetaDocument;
  headUnion: MetaDocument;
  defs?: { base: ModelDefinition; head: ModelDefinition };
  content: ContentItem[];
}

type Side = 'base' | 'head';

/** What a side's policies give the persona on a cube, or a view with the cubes under it (none: the side does not define it). */
function staticAccess(defs: AccessReviewInput['defs'], side: Side, cube: string, persona: Persona): EntityAccess | undefined {
  return modelAccess(defs?.[side], cube, persona);
}

/** The static reason, for a detail: `group finance's policy includes it on the preview`, `no policy applies on the preview`. */
function because(acc: EntityAccess | undefined, member: string | undefined, where: string): string {
  if (!acc) return '';
  if (!acc.policed) return `; no access policy ${where}`;
  if (acc.unknown.length) return `; ${where} the policies were not all evaluated (${acc.unknown[0]})`;
  if (!acc.applying.length) return `; no policy applies to it ${where}${acc.notes.length ? ` (${acc.notes[0]})` : ''}`;
  const a = member ? acc.members.get(shortName(member)) : undefined;
  const who = acc.applying.join('; ');
  if (a === 'hidden') return `; ${where} the policies that apply (${who}) leave it out`;
  if (a === 'masked') return `; ${where} only member_masking gives it (${who})`;
  return `; ${where} it is given by ${who}`;
}

/** For a view member whose cube decides its mask: `; through the view, cube orders's policies decide it (orders.amount)`. */
function underView(defs: NonNullable<AccessReviewInput['defs']>, view: string, member: string, persona: Persona): string | undefined {
  const v = defs.head.cubes.get(view);
  const alias = v?.type === 'view' ? v.members.get(member)?.alias : undefined;
  if (!v || !alias) return undefined;
  const own = (side: Side) => entityAccess(defs[side].cubes.get(view)?.accessPolicies ?? [], [member], persona, { cube: view }).members.get(member);
  // The view's own policies read the same on both sides: the change comes from the cube under it.
  if (own('base') !== own('head')) return undefined;
  return `; it stands for ${alias}: the access policy of ${cubeOf(alias)} reaches it through the view (Cube applies a cube's masks to the views over it)`;
}

/** Every name a side's model or `/meta` knows (members `cube.member`, cubes by name). */
function known(doc: MetaDocument, def: ModelDefinition | undefined): { member: (m: string) => boolean; cube: (c: string) => boolean } {
  const members = new Set(doc.cubes.flatMap((c) => c.members.map((m) => m.name)));
  const cubes = new Set(doc.cubes.map((c) => c.name));
  return {
    member: (m) => members.has(m) || !!def?.cubes.get(cubeOf(m))?.members.has(shortName(m)),
    cube: (c) => cubes.has(c) || !!def?.cubes.has(c),
  };
}

/** `hidden` and `exposed` for one persona, from its two reads; `lost` gets the members it loses. */
function visibilityChanges(input: AccessReviewInput, r: Required<Pick<PersonaMetas, 'base' | 'head'>> & PersonaMetas, lost: Set<string>): AccessChange[] {
  const out: AccessChange[] = [];
  const { persona } = r;
  const before = visibleMembers(r.base);
  const after = visibleMembers(r.head);
  const inHead = known(input.headUnion, input.defs?.head);
  const inBase = known(input.baseUnion, input.defs?.base);
  const sideTypes = new Map([...input.baseUnion.cubes, ...input.headUnion.cubes].map((c) => [c.name, c.type]));
  const walk = (from: Map<string, Set<string>>, to: Map<string, Set<string>>, exists: typeof inHead, change: 'hidden' | 'exposed') => {
    for (const [cube, shown] of from) {
      const now = to.get(cube) ?? new Set<string>();
      const moved = [...shown].filter((m) => !now.has(m) && exists.member(m));
      if (!moved.length) continue;
      const type = sideTypes.get(cube) ?? 'cube';
      const acc = staticAccess(input.defs, 'head', cube, persona);
      const evidence =
        change === 'hidden'
          ? "production's /meta lists it for this persona, the preview's does not"
          : "the preview's /meta lists it for this persona, production's did not";
      if (change === 'hidden') for (const m of moved) lost.add(m);
      if (!now.size && exists.cube(cube)) {
        const count = `${moved.length} ${moved.length === 1 ? 'member' : 'members'}`;
        const lists =
          change === 'hidden'
            ? `production's /meta lists ${count} of it for this persona, the preview's none`
            : `the preview's /meta lists ${count} of it for this persona, production's none`;
        out.push({ persona: persona.name, target: cube, change, detail: `${type} ${change}: ${lists}${because(acc, undefined, 'on the preview')}` });
        continue;
      }
      for (const m of moved) out.push({ persona: persona.name, target: m, change, detail: `${evidence}${because(acc, m, 'on the preview')}` });
    }
  };
  walk(before, after, inHead, 'hidden');
  walk(after, before, inBase, 'exposed');
  return out;
}

/** `masked` / `unmasked` for one persona from the two models' policies, where its `/meta` shows the member on both sides. */
function maskingChanges(input: AccessReviewInput, r: PersonaMetas): AccessChange[] {
  const defs = input.defs;
  if (!defs) return [];
  const out: AccessChange[] = [];
  const shownBefore = r.base ? visibleMembers(r.base) : undefined;
  const shownAfter = r.head ? visibleMembers(r.head) : undefined;
  for (const name of defs.head.cubes.keys()) {
    if (!defs.base.cubes.has(name)) continue;
    const before = staticAccess(defs, 'base', name, r.persona)!;
    const after = staticAccess(defs, 'head', name, r.persona)!;
    // A view without policies of its own still reads the masks of the cubes under it.
    if (!before.policed && !after.policed) continue;
    for (const [m, now] of after.members) {
      const was = before.members.get(m);
      const full = `${name}.${m}`;
      // /meta is Cube's word: a member it hides is hidden, not masked.
      if ((shownBefore && !shownBefore.get(name)?.has(full)) || (shownAfter && !shownAfter.get(name)?.has(full))) continue;
      if (was === 'full' && now === 'masked')
        out.push({
          persona: r.persona.name,
          target: full,
          change: 'masked',
          detail: `production gives it in full, the preview only masked${underView(defs, name, m, r.persona) ?? because(after, full, 'on the preview')}`,
        });
      if (was === 'masked' && now === 'full')
        out.push({
          persona: r.persona.name,
          target: full,
          change: 'unmasked',
          detail: `production gives it masked, the preview in full${underView(defs, name, m, r.persona) ?? because(after, full, 'on the preview')}`,
        });
    }
  }
  return out;
}

/**
 * Cubes the pull request does not touch whose production policy grants the persona's group, while production's
 * `/meta` for the persona hides them: its groups do not reach the policies as the file says.
 */
function unreachedGrants(input: AccessReviewInput, r: PersonaMetas, touched: Set<string>): string[] {
  if (!input.defs || !r.base) return [];
  const shown = visibleMembers(r.base);
  const out: string[] = [];
  for (const [name, c] of input.defs.base.cubes) {
    if (touched.has(name) || !c.accessPolicies || !c.public) continue;
    const acc = staticAccess(input.defs, 'base', name, r.persona)!;
    const granted = [...acc.members.values()].some((a) => a === 'full' || a === 'masked');
    if (acc.grantedGroups.length && granted && !shown.has(name)) out.push(`${c.type} ${name} (granted to group ${acc.grantedGroups.join(', ')})`);
  }
  return out;
}

/** The row filter each side gives each persona on each target, whole and per member (the probes tell `rows-filter-changed` by it). */
function rowFilters(input: AccessReviewInput, targets: string[]): RowFilterSides[] {
  const out: RowFilterSides[] = [];
  for (const p of input.personas) {
    for (const t of targets) {
      const production = staticAccess(input.defs, 'base', t, p);
      const preview = staticAccess(input.defs, 'head', t, p);
      if (!production || !preview) continue;
      const members: NonNullable<RowFilterSides['members']> = {};
      for (const [m, rows] of preview.memberRows) {
        const was = production.memberRows.get(m);
        const known = (r: typeof rows) => (r ? rowsOf(r) : { unknown: 'a policy whose conditions were not evaluated' });
        if (production.members.has(m)) members[`${t}.${m}`] = { production: known(was), preview: known(rows) };
      }
      out.push({ persona: p.name, target: t, production: production.rows, preview: preview.rows, members });
    }
  }
  return out;
}

/** Saved content that uses a member a persona loses, dashboards and notifications through what they show. */
export function lostContent(persona: string, members: ReadonlySet<string>, content: ContentItem[]): LostContent[] {
  if (!members.size) return [];
  const rows: MemberChange[] = [...members].map((m) => ({
    member: m,
    cube: cubeOf(m),
    cubeType: 'cube',
    kind: 'measure',
    change: 'removed',
    breaking: true,
    details: [`hidden from ${persona}`],
  }));
  const cs: ChangeSet = { cubes: [], members: rows };
  return affectedContent(cs, content).map((a) => ({
    persona,
    kind: a.kind,
    id: a.id,
    name: a.name,
    ...(a.url ? { url: a.url } : {}),
    members: [...new Set(a.uses.map((u) => u.member))].sort(),
  }));
}

/** Cubes and views only the preview defines, under a policy: who of the personas read on the preview sees each (its /meta lists it). */
function newGuarded(input: AccessReviewInput): { target: string; seenBy: string[] }[] {
  if (!input.defs || !input.personas.length) return [];
  const out: { target: string; seenBy: string[] }[] = [];
  for (const [name, c] of input.defs.head.cubes) {
    if (input.defs.base.cubes.has(name) || !c.accessPolicies?.length) continue;
    const seenBy = input.reads.filter((r) => r.head?.cubes.some((x) => x.name === name)).map((r) => r.persona.name);
    out.push({ target: name, seenBy });
  }
  return out.sort((a, b) => a.target.localeCompare(b.target));
}

/** The access review of a pull request (the notices of the `/meta` reads themselves are the caller's). */
export function reviewAccess(input: AccessReviewInput): AccessOutcome {
  const targets = policyTargets(input.defs?.base, input.defs?.head);
  const touched = new Set(targets.map((t) => t.target));
  const outcome: AccessOutcome = {
    personas: input.personas.map((p) => p.name),
    policyTargets: targets.map((t) => t.target),
    changes: [],
    lost: [],
    probes: [],
    notices: [],
  };
  if (targets.length && !input.personas.length)
    outcome.notices.push(
      `this pull request touches the access policy of ${targets.map((t) => `${t.target} (${t.how})`).join(', ')}: who can see what is not compared without personas (input personas)`,
    );
  for (const r of input.reads) {
    if (!r.base || !r.head) {
      outcome.notices.push(`persona ${r.persona.name}: not compared (${r.problem ?? 'a /meta was not read'})`);
      continue;
    }
    const unreached = unreachedGrants(input, r, touched);
    if (unreached.length) {
      outcome.notices.push(
        `persona ${r.persona.name}: production's /meta hides ${unreached.slice(0, 3).join(', ')}${unreached.length > 3 ? ` and ${unreached.length - 3} more` : ''}, which its policy grants to the persona's groups: the groups may not reach the policies on this deployment (docs/api-assumptions.md); its access changes are not reported`,
      );
      continue;
    }
    const lost = new Set<string>();
    outcome.changes.push(...visibilityChanges(input, { ...r, base: r.base, head: r.head }, lost), ...maskingChanges(input, r));
    outcome.lost.push(...lostContent(r.persona.name, lost, input.content));
  }
  const guarded = newGuarded(input);
  if (guarded.length) outcome.newGuarded = guarded;
  // Views over a cube whose policy changed read its masks and rows too: probed and compared like the targets.
  const views = viewsOver(input.defs?.base, input.defs?.head, outcome.policyTargets);
  if (views.length) outcome.reachedViews = views;
  const filters = rowFilters(input, [...outcome.policyTargets, ...views]);
  if (filters.length) outcome.rowFilters = filters;
  return outcome;
}
