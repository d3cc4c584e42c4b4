/** Every default of the toolkit, in one place: the action table, the settings and the operations read them here. */
export const DEFAULTS = {
  /** Per-request timeout of a platform call, seconds (input `request-timeout`). */
  requestTimeoutSeconds: 30,
  /**
   * Git-bound writes (`upload/finish`, commit, merges) commit to the platform's git repository: they
   * get at least this long for an answer, ms (the vendor's CLI waits 120 s on an idle read).
   */
  gitWriteTimeoutMs: 120_000,
  /**
   * How long one platform operation (a call with all its retries and checks) may take, ms: retries end
   * at this deadline, not after a count of failures.
   */
  operationDeadlineMs: 120_000,
  /** Retries of a host that has not answered once in this run (refused, unknown name): likely a wrong address. */
  unreachedHostBudgetMs: 15_000,
  /** Data-API calls get at least this long, ms: Cube caps one long poll at 90 s. */
  dataApiTimeoutMs: 95_000,
  /** Files uploaded in parallel at most (input `concurrency`); uploads start lower and grow. */
  uploadConcurrency: 16,
  /** Parallel uploads an upload starts with before growing towards `concurrency`. */
  uploadStartConcurrency: 4,
  /** Deadline of the staging smoke test, seconds (input `smoke-timeout-seconds`). */
  smokeTimeoutSeconds: 120,
  /** How long a dbt sync may run before it is cancelled, minutes (input `timeout-minutes`). */
  dbtTimeoutMinutes: 30,
  /**
   * Wait before the first status read of a dbt sync, seconds (input `first-poll-seconds`): progress comes
   * in whole percents, so a read this early says little and is a poll wasted.
   */
  dbtFirstPollSeconds: 20,
  /**
   * The build wait's polls, ms: the first a quarter second after the change landed (a small model's build
   * may be done by then), doubling to one every 5 s (a long build costs two reads more than from 1 s).
   */
  buildFirstPollMs: 250,
  buildMaxPollMs: 5_000,
  /** How long a branch's build may take before validation gives up, minutes (the vendor's CLI waits 15). */
  buildWaitMinutes: 15,
  /**
   * How long a staging environment reported `Branch is not active` right after it was enabled (or woken)
   * is given to start, ms: the vendor says staging environments sleep when idle and workers take a while.
   */
  stagingWakeMs: 180_000,
  /** Within that grace, a staging environment still not active is woken again this often, ms (one answered request may not resume it). */
  stagingWakeRepeatMs: 15_000,
  /** How long a build reported `none` or `stopped` is taken as about to start, ms (the vendor's grace). */
  buildIdleGraceMs: 60_000,
  /** A dbt sync may be invisible (404) this long after it started, ms (measured by the vendor). */
  dbtStartGraceMs: 60_000,
  /** Items asked for per page when the impact reads reports, workbooks and notifications. */
  impactPageSize: 100,
  /**
   * The data diff's caps (inputs `data-diff-*`): 20 key queries, 4 at a time on each environment, keep
   * a run to five rounds of queries (under a minute when a query takes a few seconds, as on a typical
   * tenant); each query may take 45 s, its "Continue wait" polls included; 1,000 rows a query.
   */
  dataDiffMaxQueries: 20,
  dataDiffMaxRows: 1_000,
  dataDiffConcurrency: 4,
  dataDiffQueryTimeoutSeconds: 45,
  /**
   * Until an environment has answered once, its key queries may take this long from its first request,
   * seconds: the first query makes Cube compile the model (seconds to minutes for a large or dynamic
   * one), and every query sent meanwhile waits for that compile. The smoke test's one query gets as long.
   */
  dataDiffFirstQueryTimeoutSeconds: 120,
  /**
   * Cube's cache mode the key queries ask for (`/load`'s `cache`): `no-cache` reads the warehouse, so
   * production's answer is not its cache's (the default, `stale-if-slow`, answers stale when fresh is slow).
   */
  dataDiffCacheMode: 'no-cache',
  /** Rows of the top-changed table of each key query shown in a comment (the job summary shows all kept). */
  dataDiffCommentRows: 5,
  /** Key queries shown in a comment (the job summary shows them all). */
  dataDiffCommentQueries: 10,
  /**
   * Personas in the `personas` file at most: each one costs two `/meta` reads (and, with probes, two
   * counting queries per policy-guarded view) on every push.
   */
  accessMaxPersonas: 20,
  /** Personas whose `/meta` is read at once on each environment. */
  accessMetaConcurrency: 4,
  /** Models of `deployments` previewed at once (input `deployments-concurrency`): each preview is itself many calls. */
  deploymentsConcurrency: 2,
  /**
   * How long the drift watch waits for a production build in progress before it says "not proven",
   * minutes (input `build-wait-minutes`): a build that is merely slow ends within it. The vendor's CLI
   * gives a build 15 minutes, as the build wait does.
   */
  driftBuildWaitMinutes: 15,
  /** The newest completed dbt syncs whose generated files the drift watch compares with a change, to name a sync's branch as its cause. */
  driftDbtRuns: 5,
  /** Label of the drift watch's GitHub issue (input `issue-label`): its issues are listed by it. */
  driftIssueLabel: 'datamodel-ci-drift',
  /** Prefix of a PR's shared branch (input `branch-prefix`). */
  branchPrefix: 'preview-',
  /**
   * After a merge, how long the proof waits for production's build newer than the mark read before it
   * (input `proof-wait`): then it says "not proven" (the vendor's CLI waits 15 minutes for a build).
   */
  productionProofWait: '15m',
  /** The agents folder under model-dir (input `agents-folder`): the default of the deployment's `CUBE_CLOUD_AGENTS_CONFIG_PATH`. */
  agentsFolder: 'agents',
  /** The eval delta (input `evals`): off unless asked; a run costs the tenant an agent answer per question. */
  evals: 'off',
  /** A newly failing eval question fails the check (input `fail-on-eval-regression`): advisory first. */
  failOnEvalRegression: false,
  /** How long an evaluation run may take before it is "not compared" (input `evals-timeout`; the vendor's CLI waits 30m). */
  evalsTimeout: '30m',
  /** Production's side (input `evals-production`): a new run, as before; `last-complete` reuses production's last complete run. */
  evalsProduction: 'run',
  /** Runs per side (input `evals-runs`, at most `evalsMaxRuns`): more than one shows the flaky questions, at a run's cost each. */
  evalsRuns: 1,
  evalsMaxRuns: 3,
  /** The eval wait's status reads, ms, on the client's clock. */
  evalsPollMs: 5_000,
  /** Results pages followed at most: a server whose cursor never ends makes the side "not compared". */
  evalsMaxPages: 1_000,
  /** Sweep: only branches whose PR closed at least this long ago (input `min-age`). */
  sweepMinAge: '1h',
} as const;
