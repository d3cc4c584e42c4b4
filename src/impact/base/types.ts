/**
 * The shapes several facets share: a data-API query (the data diff's, the probes', a rollup's own), a load
 * that would build a rollup (the data diff's and the probes'), and an access change (the change set carries
 * them). A facet re-exports the ones its callers outside src/impact/ take from it.
 */

/** A query in the data API's REST format (the fields the data diff reads; the rest passes through). */
export interface CubeQuery {
  measures?: string[];
  dimensions?: string[];
  timeDimensions?: { dimension: string; granularity?: string; dateRange?: unknown; compareDateRange?: unknown }[];
  segments?: string[];
  filters?: unknown[];
  order?: unknown;
  limit?: number;
  [key: string]: unknown;
}

/**
 * Why a load would build: `changed`, production's plans name the rollup with other tables (or the merge
 * rebuilds it); `unseen`, production's plans never name it (a new rollup, or one no production plan reaches:
 * the plans cannot tell them apart); `unplanned`, the preview's plan is not known and the pull request may
 * change a rollup.
 */
export type BuildReason = 'changed' | 'unseen' | 'unplanned';

export interface RollupBuild {
  /** The rollup (`orders.orders_by_status`); for `unplanned`, the cubes whose pre-aggregations may change. */
  rollup: string;
  reason: BuildReason;
}

/**
 * hidden / exposed: a member, cube or view the persona could see and no longer can (or the reverse);
 * masked / unmasked: the persona now reads a member's mask instead of its value (or the reverse);
 * rows-narrowed / rows-widened: the persona's probe counts fewer (more) rows on the preview;
 * rows-filter-changed: the row filter that applies changed, the counts did not move;
 * denied-all: the persona's probe answers no rows at all on the preview (a silent deny), where production answered some.
 */
export type AccessChangeKind = 'hidden' | 'exposed' | 'masked' | 'unmasked' | 'rows-narrowed' | 'rows-widened' | 'rows-filter-changed' | 'denied-all';

export interface AccessChange {
  persona: string;
  /** A member's full name (`orders.amount`), or a cube's or view's name. */
  target: string;
  change: AccessChangeKind;
  /** One short phrase: why, with the evidence (`group finance no longer in the view's policy`, `rows 1,204 → 0`). */
  detail: string;
}
