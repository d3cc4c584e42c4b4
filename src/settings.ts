/**
 * Every input of a command, read and checked before its first network call: from a `--flag`, else its
 * `DATAMODEL_CI_*` variable (how action.yml passes inputs), else the action table's default. A bad value
 * is an InputError naming the input, the value and the expected form; nothing has been sent yet.
 */
import { prefixProblem } from './branch-names.js';
import { actionSpec, inputsOf, type CommandName } from './action-spec.js';
import { InputError } from './client/errors.js';
import { parseBaseUrl, type AuthScheme } from './client/http.js';
import { DEFAULTS } from './defaults.js';
import { parseDeployments, type ModelTarget } from './deployments-input.js';
import { readDriftInputs, type DriftInputs } from './drift-input.js';
import { readMergeInputs, type MergeInputs } from './merge-input.js';
import type { UploadVia } from './operations/upload-model.js';
import type { DataDiffSettings } from './impact/data/types.js';
import { readRevertInputs, type RevertInputs } from './revert-input.js';

export { InputReader, sourceOf, type Source } from './input-reader.js';
import { InputReader, type Source } from './input-reader.js';
import { readAgentsFolderInput } from './agents-input.js';

export interface ConnectionSettings {
  apiUrl: string;
  /** Undefined when not given: operations skip with a notice (fork PRs get no secrets). */
  apiKey: string | undefined;
  /** Unset: the key decides (`sk-…` keys as `Api-Key`, others as `Bearer`). */
  authScheme: AuthScheme | undefined;
  caCert: string | undefined;
  /** Per-request timeout, ms. */
  requestTimeoutMs: number;
}

export interface CommonSettings {
  connection: ConnectionSettings;
  /** The deployment (with `deployments`: the first model's). */
  deploymentId: number;
  /** Several models, each its own deployment (input `deployments`); undefined for one model. */
  targets?: ModelTarget[];
  githubToken: string | undefined;
  modelDir: string;
  branchPrefix: string;
  dryRun: boolean;
}

/** Who can see what (the impact and pr actions): the personas file is read and checked by `readPersonas`, before the first network call. */
export interface AccessSettings {
  personasFile?: string;
  failOnExposure: boolean;
}

/** Each command's own inputs, typed. */
export interface CommandInputs {
  'start-dev-branch': { branch?: string };
  'upload-model': { branch?: string; concurrency: number; commitMessage?: string; exclude: string[]; via: UploadVia; allowModelDeletion: boolean };
  validate: { branch?: string; failOnInvalid: boolean; agentsFolder: string };
  'enable-staging': { branch?: string; smokeTest: boolean; smokeTimeoutMs: number };
  'dbt-sync-and-wait': { ref?: string; branchName?: string; source: 'git' | 'manifest'; timeoutMs: number; firstPollMs: number };
  'merge-to-default': { branch?: string; keepBranch: boolean; message?: string; exclude: string[]; allowModelDeletion: boolean } & MergeInputs;
  'cleanup-branch': { branch?: string; mode: 'pr' | 'sweep'; minAgeMs: number; removeOnUpstream: boolean; deleteOrphans: boolean };
  impact: {
    branch?: string;
    failOnBreaking: boolean;
    dataDiff: DataDiffSettings;
    access: AccessSettings;
    failOnVersionSkew: boolean;
    /** The agents' configuration folder under model-dir (`agents-folder`). */
    agentsFolder: string;
    /** The agents' eval delta on the branch against the deploy branch (`evals: on`); undefined when off. */
    evals?: EvalSettings;
  };
  drift: DriftInputs;
  revert: RevertInputs;
  pr: MergeInputs & {
    branch?: string;
    mergeOnClose: 'auto' | 'true' | 'false';
    failOnInvalid: boolean;
    smokeTest: boolean;
    concurrency: number;
    removeOnUpstream: boolean;
    exclude: string[];
    via: UploadVia;
    allowModelDeletion: boolean;
    preflight: boolean;
    /** Empty: no GitHub deployment. */
    environmentPrefix: string | undefined;
    impact: boolean;
    failOnBreaking: boolean;
    dataDiff: DataDiffSettings;
    access: AccessSettings;
    /** Fail when production's Cube version refuses a key of the model. */
    failOnVersionSkew: boolean;
    /** With `deployments`: models previewed at once. */
    deploymentsConcurrency: number;
    /** Preview a model the pull request does not touch. */
    previewUntouched: boolean;
    /** The agents' configuration folder under model-dir (`agents-folder`). */
    agentsFolder: string;
    /** The agents' eval delta (`evals: on`); undefined when off. */
    evals?: EvalSettings;
  };
}

/** What a run without an API key does (docs/security.md). */
export interface CredentialsPolicy {
  /** Where the repository's secrets are available: fail (the default), or skip writing no check. */
  missing: 'fail' | 'skip';
  /** Fail a fork's or Dependabot's pull request too: the deprecated `fail-without-credentials: true`. */
  failUntrusted: boolean;
  /** The warning for the deprecated input, when it was given. */
  deprecation?: string;
}

export type Settings<C extends CommandName = CommandName> = CommonSettings & {
  command: C;
  credentials: CredentialsPolicy;
  inputs: CommandInputs[C];
};

/** `without-credentials`, unless the deprecated `fail-without-credentials` was given: it decides then, with a warning. */
export function readCredentialsPolicy(r: InputReader): CredentialsPolicy {
  const missing = r.oneOf('without-credentials', ['fail', 'skip'] as const);
  if (r.raw('fail-without-credentials') === undefined) return { missing, failUntrusted: false };
  const fail = r.bool('fail-without-credentials');
  const instead = fail
    ? "without-credentials: fail (the default; unlike fail-without-credentials: true it skips a fork's or Dependabot's pull request, which gets no secrets, with a warning)"
    : 'without-credentials: skip';
  return {
    missing: fail ? 'fail' : 'skip',
    failUntrusted: fail,
    deprecation: `the input fail-without-credentials is deprecated and decides this run (${fail}); write ${instead} instead`,
  };
}

/** The connection inputs alone (the `check` and `api` commands). */
export function readConnection(r: InputReader): ConnectionSettings {
  const apiUrl = r.required('api-url', "the platform's https:// address");
  parseBaseUrl(apiUrl, 'api-url');
  return {
    apiUrl,
    apiKey: r.raw('api-key'),
    authScheme: r.oneOf('auth-scheme', ['bearer', 'api-key'] as const, { optional: true }),
    caCert: r.raw('ca-cert'),
    requestTimeoutMs: (r.positive('request-timeout') ?? DEFAULTS.requestTimeoutSeconds) * 1000,
  };
}

/** The inputs every action shares. */
export function readCommon(r: InputReader): CommonSettings {
  const connection = readConnection(r);
  const branchPrefix = r.raw('branch-prefix') ?? '';
  const badPrefix = prefixProblem(branchPrefix);
  if (badPrefix) throw new InputError('branch-prefix', branchPrefix, badPrefix);
  const given = r.int('deployment-id', 1);
  const modelDirGiven = r.raw('model-dir');
  if (modelDirGiven?.split(/[\\/]/).includes('..')) {
    throw new InputError('model-dir', modelDirGiven, 'a folder inside the repository, without ".." segments');
  }
  const many = r.declares('deployments') ? r.raw('deployments') : undefined;
  const targets = many === undefined ? undefined : parseDeployments(many, connection.apiUrl);
  if (targets && given !== undefined) throw new InputError('deployment-id', given, "empty when `deployments` names each model's deployment");
  if (targets && modelDirGiven !== undefined && modelDirGiven !== '.')
    throw new InputError('model-dir', modelDirGiven, "empty when `deployments` names each model's folder");
  const deploymentId = targets?.[0]?.deploymentId ?? given;
  if (deploymentId === undefined) throw new InputError('deployment-id', undefined, 'the id of the platform deployment (a positive integer)');
  const modelDir = targets?.[0]?.modelDir ?? modelDirGiven ?? '.';
  const githubToken = r.raw('github-token');
  if (githubToken && /\s/.test(githubToken)) throw new InputError('github-token', '(hidden)', 'a token without spaces or line breaks');
  return { connection, deploymentId, ...(targets ? { targets } : {}), githubToken, modelDir, branchPrefix, dryRun: r.bool('dry-run') };
}

const UPLOAD_VIAS = ['auto', 'direct', 'dev-mode'] as const satisfies readonly UploadVia[];
const CONCURRENCY = { min: 1, max: 64, fallback: DEFAULTS.uploadConcurrency };

/** A number of at least 0 (fractions allowed). */
function nonNegative(r: InputReader, name: string): number {
  const v = r.raw(name) ?? '0';
  const n = Number(v);
  if (!/^\d+(\.\d+)?(e-?\d+)?$/i.test(v) || !Number.isFinite(n)) throw new InputError(name, v, 'a number of at least 0');
  return n;
}

function securityContext(r: InputReader): Record<string, unknown> {
  const v = r.raw('data-diff-security-context');
  if (v === undefined) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(v);
  } catch {
    throw new InputError('data-diff-security-context', '(not shown)', 'a JSON object, e.g. {"tenant":"acme"}');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new InputError('data-diff-security-context', '(not shown)', 'a JSON object, e.g. {"tenant":"acme"}');
  return parsed as Record<string, unknown>;
}

/** The data diff's inputs (the impact and pr actions). */
function readDataDiff(r: InputReader): DataDiffSettings {
  const mode = r.oneOf('data-diff', ['off', 'values', 'relative'] as const);
  const queriesFile = r.string('data-diff-queries');
  const baseQueriesFile = r.string('data-diff-base-queries');
  if (baseQueriesFile && !queriesFile)
    throw new InputError(
      'data-diff-base-queries',
      baseQueriesFile,
      "data-diff-queries too: the base's key queries are matched with the pull request's by name",
    );
  return {
    mode,
    allowPublic: r.bool('data-diff-allow-public'),
    buildRollups: r.bool('data-diff-build-rollups'),
    ...(queriesFile ? { queriesFile } : {}),
    ...(baseQueriesFile ? { baseQueriesFile } : {}),
    securityContext: securityContext(r),
    limits: {
      maxQueries: r.int('data-diff-max-queries', 1, 500) ?? DEFAULTS.dataDiffMaxQueries,
      maxRows: r.int('data-diff-max-rows', 1, 50_000) ?? DEFAULTS.dataDiffMaxRows,
      concurrency: r.int('data-diff-concurrency', 1, 16) ?? DEFAULTS.dataDiffConcurrency,
      queryTimeoutMs: (r.int('data-diff-query-timeout', 1, 600) ?? DEFAULTS.dataDiffQueryTimeoutSeconds) * 1000,
      absTolerance: nonNegative(r, 'data-diff-abs-tolerance'),
      relTolerance: nonNegative(r, 'data-diff-rel-tolerance'),
    },
    failOnChange: r.bool('fail-on-data-change'),
    failOnRollupLoss: r.bool('fail-on-rollup-loss'),
  };
}

function readAccess(r: InputReader): AccessSettings {
  const personasFile = r.string('personas');
  return { ...(personasFile ? { personasFile } : {}), failOnExposure: r.bool('fail-on-exposure') };
}

type Readers = { [C in CommandName]: (r: InputReader) => CommandInputs[C] };

/** One reader per command: each reads all of its command's own inputs. */
const readers: Readers = {
  'start-dev-branch': (r) => ({ branch: r.branch('branch') }),
  'upload-model': (r) => ({
    branch: r.branch('branch'),
    concurrency: r.int('concurrency', CONCURRENCY.min, CONCURRENCY.max) ?? CONCURRENCY.fallback,
    commitMessage: r.string('commit-message'),
    exclude: r.globs('exclude'),
    via: r.oneOf('upload-via', UPLOAD_VIAS),
    allowModelDeletion: r.bool('allow-model-deletion'),
  }),
  validate: (r) => ({ branch: r.branch('branch'), failOnInvalid: r.bool('fail-on-invalid'), agentsFolder: readAgentsFolderInput(r) }),
  'enable-staging': (r) => ({
    branch: r.branch('branch'),
    smokeTest: r.bool('smoke-test'),
    smokeTimeoutMs: (r.int('smoke-timeout-seconds', 1) ?? DEFAULTS.smokeTimeoutSeconds) * 1000,
  }),
  'dbt-sync-and-wait': (r) => ({
    ref: r.string('ref'),
    branchName: r.branch('branch-name'),
    source: r.oneOf('source', ['git', 'manifest'] as const),
    timeoutMs: (r.positive('timeout-minutes') ?? DEFAULTS.dbtTimeoutMinutes) * 60_000,
    firstPollMs: (r.int('first-poll-seconds', 0, 3_600) ?? DEFAULTS.dbtFirstPollSeconds) * 1000,
  }),
  'merge-to-default': (r) => ({
    branch: r.branch('branch'),
    keepBranch: r.bool('keep-branch'),
    message: r.string('message'),
    ...readMergeInputs(r),
    exclude: r.globs('exclude'),
    allowModelDeletion: r.bool('allow-model-deletion'),
  }),
  'cleanup-branch': (r) => ({
    branch: r.branch('branch'),
    mode: r.oneOf('mode', ['pr', 'sweep'] as const),
    minAgeMs: r.duration('min-age'),
    removeOnUpstream: r.bool('remove-on-upstream'),
    deleteOrphans: r.bool('delete-orphans'),
  }),
  impact: (r) => ({
    branch: r.branch('branch'),
    failOnBreaking: r.bool('fail-on-breaking'),
    dataDiff: readDataDiff(r),
    access: readAccess(r),
    failOnVersionSkew: r.bool('fail-on-version-skew'),
    agentsFolder: readAgentsFolderInput(r),
    ...readEvals(r),
  }),
  drift: readDriftInputs,
  revert: readRevertInputs,
  pr: (r) => ({
    branch: r.branch('branch'),
    mergeOnClose: r.oneOf('merge-on-close', ['auto', 'true', 'false'] as const),
    failOnInvalid: r.bool('fail-on-invalid'),
    smokeTest: r.bool('smoke-test'),
    concurrency: r.int('concurrency', CONCURRENCY.min, CONCURRENCY.max) ?? CONCURRENCY.fallback,
    removeOnUpstream: r.bool('remove-on-upstream'),
    exclude: r.globs('exclude'),
    via: r.oneOf('upload-via', UPLOAD_VIAS),
    ...readMergeInputs(r),
    allowModelDeletion: r.bool('allow-model-deletion'),
    preflight: r.bool('preflight'),
    environmentPrefix: r.environmentName('environment-prefix'),
    impact: r.bool('impact'),
    failOnBreaking: r.bool('fail-on-breaking'),
    dataDiff: readDataDiff(r),
    access: readAccess(r),
    failOnVersionSkew: r.bool('fail-on-version-skew'),
    deploymentsConcurrency: r.int('deployments-concurrency', 1, 8) ?? DEFAULTS.deploymentsConcurrency,
    previewUntouched: r.bool('preview-untouched'),
    agentsFolder: readAgentsFolderInput(r),
    ...readEvals(r),
  }),
};

/** The agents' eval delta: `evals`, `fail-on-eval-regression`, `evals-timeout`, `evals-agent`, `evals-production`, `evals-runs`. */
export interface EvalSettings {
  failOnRegression: boolean;
  timeoutMs: number;
  agent?: string;
  /** `last-complete`: reuse production's last complete run when one is shown to be production's. */
  production: 'run' | 'last-complete';
  /** Runs per side (a reused production run is its side's one). */
  runs: number;
}

function readEvals(r: InputReader): { evals?: EvalSettings } {
  const on = r.oneOf('evals', ['off', 'on'] as const) === 'on';
  const failOnRegression = r.bool('fail-on-eval-regression');
  const timeoutMs = r.duration('evals-timeout');
  if (timeoutMs <= 0) throw new InputError('evals-timeout', r.string('evals-timeout') ?? '', 'a duration above zero such as 30m');
  const agent = r.string('evals-agent');
  if (agent !== undefined && !/^[\w.-]{1,100}$/.test(agent)) throw new InputError('evals-agent', agent, 'an agent name (letters, digits, `_`, `-`, `.`)');
  const production = r.oneOf('evals-production', ['run', 'last-complete'] as const);
  const runs = r.int('evals-runs', 1, DEFAULTS.evalsMaxRuns) ?? DEFAULTS.evalsRuns;
  return on ? { evals: { failOnRegression, timeoutMs, ...(agent ? { agent } : {}), production, runs } } : {};
}

/** Read and check every input of `command`; throws an InputError on the first bad one. */
export function readSettings<C extends CommandName>(command: C, source: Source): Settings<C> {
  const r = new InputReader(source, inputsOf(actionSpec(command)));
  return readSettingsWith(command, r);
}

/** As `readSettings`, with a given reader (tests record what it read). */
export function readSettingsWith<C extends CommandName>(command: C, r: InputReader): Settings<C> {
  const common = readCommon(r);
  const inputs = readers[command](r);
  return { ...common, command, credentials: readCredentialsPolicy(r), inputs };
}
