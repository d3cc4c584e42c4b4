import type { InputSpec, OutputSpec } from './action-spec.js';
import { DEFAULTS } from './defaults.js';

/** The inputs and outputs of the impact (the member diff, the data diff): the `impact` and `pr` actions share them. */

export const FAIL_ON_BREAKING: InputSpec = {
  name: 'fail-on-breaking',
  description:
    'Fail the step (and the `datamodel-ci / impact` check, docs/checks.md) when the pull request makes a breaking change to the semantic layer (a member removed or made private, a type changed, a view member gone, a granularity removed), whether or not content uses it; also when none is established: the two layers could not be compared, or the review could not see every member the model files declare public (docs/impact.md, "The whole layer").',
  default: 'false',
};

/** The data diff: key queries run on production and on the preview, the numbers compared. */
export const DATA_DIFF_INPUTS: InputSpec[] = [
  {
    name: 'data-diff',
    description:
      "`off` (default), `values` or `relative`: run key queries (the team's own file, the reports and dashboards that use a member whose numbers change, probes of each changed or added measure) on production and on the preview, and show how the numbers move; `relative` shows only relative changes and row counts, never a value. Production's numbers are data: on a public repository `data-diff-allow-public` must say so too; never runs for a pull request from a fork.",
    default: 'off',
  },
  {
    name: 'data-diff-allow-public',
    description:
      "Allow the data diff on a public repository (the comment, job summary and JSON file then show production's numbers to anyone who can read the pull request).",
    default: 'false',
  },
  {
    name: 'data-diff-build-rollups',
    description:
      "Let the preview's loads (key queries, persona probes) run when their plan needs a pre-aggregation production does not have (a rollup the pull request changes or adds): Cube builds it on that load, from the warehouse, in the Cube Store production shares with every branch. Off (default): those loads are skipped and said in one line.",
    default: 'false',
  },
  {
    name: 'data-diff-queries',
    description: 'Path of a JSON file of key queries (`{ "queries": [{ "name": …, "query": { … } }] }`, the data API\'s REST format; docs/impact.md).',
    default: '',
  },
  {
    name: 'data-diff-base-queries',
    description:
      "Path of the key-queries file as the base has it (the same form). Production then runs each base query and the preview the pull request's, matched by name; a query only one file has is new or gone. Empty (default): in a pull request's run the file named by `data-diff-queries` is read with git at the event's base commit (fetched from `origin` when the checkout is shallow); elsewhere both sides run the pull request's.",
    default: '',
  },
  {
    name: 'data-diff-security-context',
    description: 'Security context (a JSON object) of the data-API tokens the key queries run with: access policies shape the numbers. Default `{}`.',
    default: '',
  },
  {
    name: 'data-diff-max-queries',
    description: 'Key queries run at most (the rest are counted, not run); persona probes have a budget of the same size of their own.',
    default: String(DEFAULTS.dataDiffMaxQueries),
  },
  {
    name: 'data-diff-max-rows',
    description: 'Rows a key query returns at most (its own limit when lower); a persona probe counting rows stops there (at least).',
    default: String(DEFAULTS.dataDiffMaxRows),
  },
  {
    name: 'data-diff-concurrency',
    description: 'Key queries (and persona probes) in flight at once on each environment.',
    default: String(DEFAULTS.dataDiffConcurrency),
  },
  {
    name: 'data-diff-query-timeout',
    description: 'Seconds one key query may take on one environment ("Continue wait" polls included) before it is reported as failed.',
    default: String(DEFAULTS.dataDiffQueryTimeoutSeconds),
  },
  { name: 'data-diff-abs-tolerance', description: 'A value counts as changed only when it moves by more than this much…', default: '0' },
  { name: 'data-diff-rel-tolerance', description: '…and by more than this fraction of the larger value (`0.001` is 0.1 %).', default: '0' },
  {
    name: 'fail-on-data-change',
    description:
      'Fail the step (and the `datamodel-ci / numbers` check) when a key query answers differently on the preview than on production (beyond the tolerances; a query that fails is not a change).',
    default: 'false',
  },
  {
    name: 'fail-on-rollup-loss',
    description:
      "Fail the step (and the `datamodel-ci / cost` check) when a key query (or a persona's) that a pre-aggregation serves on production is served by none on the preview (it would reach the warehouse). The rollup plans (`/v1/sql`, no data read) run whenever the model has a pre-aggregation, even with `data-diff: off`.",
    default: 'false',
  },
];

/** Who can see what: the personas whose view of the model is compared, and the gate on a gain of access. */
export const ACCESS_INPUTS: InputSpec[] = [
  {
    name: 'personas',
    description:
      "Path of a YAML or JSON file of personas (`{ personas: [{ name, groups?, securityContext? }] }`, kept in the repository): each one's view of production and of the preview is read with tokens under its own security context, and the comment says who gains or loses what (docs/impact.md). Read and checked before the first network call.",
    default: '',
  },
  {
    name: 'fail-on-exposure',
    description:
      'Fail the step (and the `datamodel-ci / access` check) when any persona gains access: a member or view exposed, a mask lifted, or more rows counted on the preview.',
    default: 'false',
  },
];

/** The Cube version skew: production's older Cube may refuse a key that staging's newest accepts. */
export const FAIL_ON_VERSION_SKEW: InputSpec = {
  name: 'fail-on-version-skew',
  description:
    "Fail the step (and the `datamodel-ci / cost` check) when the Cube version production will run after the merge (its own when held, else its channel's newest patch) refuses a key (or a value) of the pull request's model that staging's newer one accepts: the model would break production after the merge. A key the key table cannot settle is a warning, never a failure (docs/impact.md, \"Cube version\").",
  default: 'true',
};

/** By name, so the root action can list them in its own order. */
export const IMPACT_OUTPUT = {
  breakingCount: { name: 'breaking-count', description: 'Number of breaking changes to the semantic layer (empty when it was not compared).' },
  addedCount: { name: 'added-count', description: 'Number of members added to the semantic layer.' },
  changedCount: { name: 'changed-count', description: 'Number of non-breaking changes to existing members (title, description, format, granularity added).' },
  affectedContentCount: {
    name: 'affected-content-count',
    description: 'Number of reports, dashboards and notifications that use a member the pull request breaks.',
  },
  valuesChangedCount: {
    name: 'values-changed-count',
    description:
      "Number of changes that keep names and types but move the numbers (a measure's sql, a filter, a table, a join, …; empty when the layers were not compared).",
  },
  dataChangedCount: {
    name: 'data-changed-count',
    description: 'Number of key queries whose results differ between production and the preview (empty when the data diff did not run).',
  },
  dataDiffFile: {
    name: 'data-diff-file',
    description: 'Path of a JSON file with the whole data diff, in the mode it ran in (in `RUNNER_TEMP`; empty when it did not run).',
  },
  accessChangedCount: {
    name: 'access-changed-count',
    description: 'Number of changes in who can see what, over every persona (empty when the layers were not compared).',
  },
  exposedCount: {
    name: 'exposed-count',
    description: 'Number of those by which a persona gains access (exposed, unmasked, rows widened).',
  },
  rollupsLostCount: {
    name: 'rollups-lost-count',
    description:
      "Number of key queries (per persona too) a pre-aggregation serves on production and none on the preview, none that may come from the sides' Cube versions (empty when the rollup plans did not run).",
  },
  rollupsRebuiltCount: {
    name: 'rollups-rebuilt-count',
    description:
      "Number of pre-aggregations whose tables the merge builds anew, a key query's plans or the rollup's own query on each side telling (empty when the rollup plans did not run); none that may come from the sides' Cube versions.",
  },
  versionSkewCount: {
    name: 'version-skew-count',
    description:
      "Number of keys of the model that the Cube version production will run after the merge refuses (empty when production's version is unknown or older than the key table); keys not known are not counted.",
  },
  changeSetFile: {
    name: 'change-set-file',
    description: 'Path of a JSON file with the whole change set and the affected content, for later steps (in `RUNNER_TEMP`).',
  },
} satisfies Record<string, OutputSpec>;

export const IMPACT_OUTPUTS: OutputSpec[] = [
  IMPACT_OUTPUT.breakingCount,
  IMPACT_OUTPUT.valuesChangedCount,
  IMPACT_OUTPUT.addedCount,
  IMPACT_OUTPUT.changedCount,
  IMPACT_OUTPUT.affectedContentCount,
  IMPACT_OUTPUT.changeSetFile,
  IMPACT_OUTPUT.dataChangedCount,
  IMPACT_OUTPUT.dataDiffFile,
  IMPACT_OUTPUT.accessChangedCount,
  IMPACT_OUTPUT.exposedCount,
  IMPACT_OUTPUT.rollupsLostCount,
  IMPACT_OUTPUT.rollupsRebuiltCount,
  IMPACT_OUTPUT.versionSkewCount,
];
