/** What every emulator handler sees and returns. */
import type { Endpoint } from '@datamodel-ci/platform-api';
import type { ApiKeyRec, UserRec } from './account/models.js';
import type { Clock } from './clock.js';
import type { DbtPhasePlan } from './dbt/models.js';
import type { DeploymentRec } from './deployments/models.js';
import type { Engine } from './engine/index.js';
import type { ProfileName } from './profiles.js';
import type { State } from './state.js';

/** A rejection: status and the `{ error }` message (spec section 7). */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** Why one item of a bulk request failed. */
export interface ItemError {
  status: number;
  message: string;
}

/** Act on each item in order; an HttpError fails that item alone and nothing is rolled back. */
export function settleEach<T, R>(items: T[], act: (item: T, index: number) => R) {
  const succeeded: { item: T; result: R }[] = [];
  const failed: { item: T; error: ItemError }[] = [];
  items.forEach((item, i) => {
    try {
      succeeded.push({ item, result: act(item, i) });
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
      failed.push({ item, error: { status: error.status, message: error.message } });
    }
  });
  return { succeeded, failed };
}

/** The caller, resolved from the Authorization header. */
export interface Principal {
  key: ApiKeyRec;
  user: UserRec;
}

/** How this tenant behaves where real tenants differ; set by options and the control route `/_emulator/tenant`. */
export interface Behaviour {
  /** Uploads go to any branch (the vendor's `deploy --branch`); off, to a dev-mode branch only. */
  directUploads: boolean;
  /** `file-hashes` answers `{ files: {…} }` instead of the plain map. */
  wrapFileHashes: boolean;
  /** `data-model/files` lists files flat (relative paths) instead of the vendor's nested tree (`/model/…`, `children`). */
  flatFileList: boolean;
  /** Emulated ms a build takes (commit, finish, merge). */
  buildMs: number;
  /** Emulated ms a runtime takes to start (staging enabled, dev mode entered). */
  warmupMs: number;
  /** Emulated ms a dbt sync stays invisible (404) after its start. */
  dbtInvisibleMs: number;
  /** Polls of a data query answered `{"error":"Continue wait"}` before its rows. */
  continueWaitPolls: number;
  /** Profile `staging-cold`: emulated ms a staging environment stays asleep after it is enabled (unless a data request wakes it). */
  coldMs: number;
  /** Profile `staging-cold`: emulated ms without a data request after which a staging environment falls asleep. */
  idleMs: number;
}

/** Builds and warm-ups short enough for the demo and the tests, long enough that their states are seen. */
export const DEFAULT_BEHAVIOUR: Behaviour = {
  directUploads: true,
  wrapFileHashes: false,
  flatFileList: false,
  buildMs: 300,
  warmupMs: 500,
  dbtInvisibleMs: 5_000,
  continueWaitPolls: 2,
  coldMs: 60_000,
  idleMs: 15 * 60_000,
};

/** The behaviour with `changes` applied; checked whole first (a bad field changes nothing), undefined fields skipped. */
export function behaviourWith(current: Behaviour, changes: Record<string, unknown>): Behaviour {
  const next: Behaviour = { ...current };
  for (const [key, value] of Object.entries(changes)) {
    if (value === undefined) continue;
    if (key === 'directUploads' || key === 'wrapFileHashes' || key === 'flatFileList') {
      if (typeof value !== 'boolean') throw new HttpError(400, `${key}: got ${JSON.stringify(value)}, expected true or false`);
      next[key] = value;
    } else if (key === 'buildMs' || key === 'warmupMs' || key === 'dbtInvisibleMs' || key === 'coldMs' || key === 'idleMs') {
      if (typeof value !== 'number' || !(value >= 0) || !Number.isFinite(value)) {
        throw new HttpError(400, `${key}: got ${JSON.stringify(value)}, expected a non-negative number of ms`);
      }
      next[key] = value;
    } else if (key === 'continueWaitPolls') {
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
        throw new HttpError(400, `${key}: got ${JSON.stringify(value)}, expected a whole number of polls, 0 or more`);
      }
      next[key] = value;
    } else {
      throw new HttpError(400, `${key}: not a tenant setting; expected one of ${Object.keys(DEFAULT_BEHAVIOUR).join(', ')}`);
    }
  }
  return next;
}

/** How the next build of a branch ends, set through `/_emulator/builds/fail-next`. */
export interface BuildFailure {
  status: 'failed' | 'cancelled';
  errorText: string;
}

/** Hooks the tests and the control routes use to steer the emulator. */
export interface Controls {
  behaviour: Behaviour;
  /** The tenant profiles on (see profiles.ts). */
  profiles: ProfileName[];
  /** The next build of a branch fails, keyed by `<deploymentId>:<branch>`. */
  failNextBuild: Record<string, BuildFailure>;
  /** The next build of a branch takes this many emulated ms instead of `buildMs`, keyed as `failNextBuild`. */
  slowNextBuild?: Record<string, number>;
  /** The next dbt sync started fails in this phase with this message. */
  failNextDbtSync?: { phase: string; message: string };
  /** Every token the emulator minted (tests scan logs for them). */
  minted: string[];
  /** The phases (and durations) of every dbt sync started from now on; default `DBT_PHASES`. */
  dbtPhases?: DbtPhasePlan[];
  /** The evaluations' fixture agent: a REST query per question text or name (`POST /_emulator/evals/answers`). */
  evalAnswers?: Record<string, unknown>;
}

/** Is this tenant profile on? */
export function profileOn(env: { controls: Controls }, name: ProfileName): boolean {
  return env.controls.profiles.includes(name);
}

export interface Ctx {
  endpoint: Endpoint;
  state: State;
  clock: Clock;
  controls: Controls;
  /** Cube's engine: compiles, databases. */
  engine: Engine;
  principal: Principal;
  /** Parsed path parameters (numbers where the schema says integer). */
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  body: unknown;
  /** Origin the emulator answers on (`https://host:port`). */
  origin: string;
  /** The deployment named by `deploymentId`, when the path has one (checked to exist and be in scope). */
  deployment: DeploymentRec | undefined;
}

/** A handler's answer: a plain value is a 200 JSON body. */
export interface Reply {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Raw body (CSV, bytes) instead of JSON. */
  raw?: string | Buffer;
}

export function reply(r: Reply): Reply & { __reply: true } {
  return { ...r, __reply: true };
}

export function isReply(v: unknown): v is Reply & { __reply: true } {
  return !!v && typeof v === 'object' && (v as { __reply?: unknown }).__reply === true;
}

export type Handler = (ctx: Ctx) => unknown;

/** Handlers by endpoint id. */
export type HandlerTable = Record<string, Handler>;

/** The deployment of a context (the router has already answered 404 for an unknown one). */
export function requireDeployment(ctx: Ctx): DeploymentRec {
  if (!ctx.deployment) throw new HttpError(400, 'this operation needs a deployment');
  return ctx.deployment;
}

/** Data-API address of a deployment. */
export function deploymentUrl(origin: string, deploymentId: number): string {
  return `${origin}/d/${deploymentId}`;
}
