/**
 * Who can see what: the shapes the access review shares. A persona is a kind of user the team names
 * (`{ name, groups, securityContext }`, from the `personas` file); each persona's view of production and of
 * the preview is read with data-API tokens minted under that persona's security context, so Cube's own
 * access policies decide what it sees. How groups reach the policies is in `personaSecurityContext`.
 */
import type { ContentKind } from '../base/affected.js';
import type { MetaCube } from '../base/meta.js';
import type { AccessChange, AccessChangeKind, RollupBuild } from '../base/types.js';
import type { GroupsUnreached } from './reach.js';

export type { AccessChange, AccessChangeKind } from '../base/types.js';

export interface Persona {
  name: string;
  groups: string[];
  securityContext: Record<string, unknown>;
}

export const ACCESS_CHANGE_KINDS: readonly AccessChangeKind[] = [
  'hidden',
  'exposed',
  'masked',
  'unmasked',
  'rows-narrowed',
  'rows-widened',
  'rows-filter-changed',
  'denied-all',
];

/** Kinds by which a persona gains access (`fail-on-exposure`, `exposed-count`). */
export const GAINS: ReadonlySet<AccessChangeKind> = new Set(['exposed', 'unmasked', 'rows-widened']);

/** One side of a persona probe: a count, or why there is none. */
export interface ProbeSide {
  /** Rows counted (the count measure's value, or the rows returned up to the cap). */
  rows?: number;
  /** The count hit the row cap: at least `rows`. */
  atLeast?: boolean;
  /** The environment refused the query for this persona (the platform's message). */
  refused?: string;
  /** The query failed otherwise (time-out, transport, a 500 that is not a refusal). */
  error?: string;
  /** Not run, and why (its load on the preview would build a pre-aggregation in the shared Cube Store). */
  skipped?: string;
}

/** One counting query of one persona on one cube or view whose policy changed, on both environments. */
export interface AccessProbe {
  persona: string;
  target: string;
  /** The member counted (`orders.count`), or the dimension whose rows were counted. */
  counted: string;
  production: ProbeSide;
  preview: ProbeSide;
  /** Its load on the preview builds (or, skipped, would build) these pre-aggregations in the shared Cube Store. */
  wouldBuild?: RollupBuild[];
  /** Other queries of the target, run on a side whose count gave no row or was refused: `denied-all` needs every one empty or refused. */
  checks?: ProbeCheck[];
}

/** One more query of a probe's target on one side: a dimension's rows (one is enough), to tell a refused count from a deny of every row. */
export interface ProbeCheck {
  side: 'production' | 'preview';
  counted: string;
  answer: ProbeSide;
}

/** Saved content a persona's group uses that the persona can no longer see. */
export interface LostContent {
  persona: string;
  kind: ContentKind;
  id: number;
  name: string;
  url?: string;
  /** The members it uses that the persona loses. */
  members: string[];
}

/** The rows a persona reads of a cube or view by its policies: all, none (no policy applies), a filter (canonical text), or not known (why). */
export type RowAccess = { all: true } | { none: true } | { filter: string } | { unknown: string };

/** The row filter a persona's policies give on each side, per policy target: different texts with equal counts are `rows-filter-changed`. */
export interface RowFilterSides {
  persona: string;
  target: string;
  production: RowAccess;
  preview: RowAccess;
  /** Per member (full name), as Cube resolves rows for a query of that member: the probe compares its counted member's. */
  members?: Record<string, { production: RowAccess; preview: RowAccess }>;
}

/** The access review of one pull request. */
export interface AccessOutcome {
  /** The personas read (empty without a personas file). */
  personas: string[];
  /** Cubes and views whose access policy the pull request adds, changes or removes (from the model files). */
  policyTargets: string[];
  changes: AccessChange[];
  lost: LostContent[];
  probes: AccessProbe[];
  /** What was not read or not probed, and why (no personas file, a fork, a public repository, a token refused). */
  notices: string[];
  /** Per persona and policy target, the row filter of each side's policies (from the model files; absent without personas). */
  rowFilters?: RowFilterSides[];
  /** The personas whole, as read from the file: the probes mint their tokens under these contexts (never in the JSON). */
  personaDefinitions?: Persona[];
  /** Policy targets as some persona's /meta listed them: the probes pick what to count from these (never in the JSON). */
  targetMeta?: MetaCube[];
  /** Views over a policy target's cube (not targets themselves): the cube's masks and row filters reach them, so they are probed too. */
  reachedViews?: string[];
  /** Cubes and views the pull request adds under an access policy, with the personas whose preview /meta lists them. */
  newGuarded?: { target: string; seenBy: string[] }[];
  /** The personas' groups did not reach the policies on this deployment (src/impact/access/reach.ts): no persona's change is fact. */
  groupsUnreached?: GroupsUnreached;
  /** Persona probes that were found but not run (`data-diff-max-queries`), and why the probes did not run at all. */
  probesNotRun?: { count: number; why?: string };
}

/**
 * The security context a persona's tokens carry: its own context, and its groups where Cube Cloud puts a
 * user's groups (`cubeCloud.groups`, the reserved element the vendor documents) and at the top level
 * (`groups`, where a deployment's own `contextToGroups` commonly reads them). The groups are every group the
 * persona names in any of the three places (the personas file refuses places that disagree), so a group
 * given only in its own context is never overwritten by an absent `groups`. Which claim reaches the policies
 * is the tenant's: docs/api-assumptions.md.
 */
export function personaSecurityContext(p: Persona): Record<string, unknown> {
  const own = p.securityContext.cubeCloud;
  const cubeCloud = own && typeof own === 'object' && !Array.isArray(own) ? (own as Record<string, unknown>) : {};
  const names = (v: unknown): string[] => (Array.isArray(v) ? v.filter((g): g is string => typeof g === 'string') : []);
  const groups = [...new Set([...p.groups, ...names(p.securityContext.groups), ...names(cubeCloud.groups)])];
  // A Cube Cloud user always carries user attributes: without them `{ userAttributes.x }` fails the request instead of reading nothing.
  return { ...p.securityContext, groups, cubeCloud: { userAttributes: {}, ...cubeCloud, groups } };
}
