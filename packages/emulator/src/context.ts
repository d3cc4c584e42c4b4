/** What every emulator handler sees and returns. */
import type { Endpoint } from '@datamodel-ci/platform-api';
import type { ApiKeyRec, UserRec } from './account/models.js';
import type { Clock } from './clock.js';
import type { DbtPhasePlan } from './dbt/models.js';
import type { DeploymentRec } from './deployments/models.js';
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

/** Hooks the tests and the control routes use to steer the emulator. */
export interface Controls {
  /** The next dbt sync started fails in this phase with this message. */
  failNextDbtSync?: { phase: string; message: string };
  /** Every token the emulator minted (tests scan logs for them). */
  minted: string[];
  /** The phases (and durations) of every dbt sync started from now on; default `DBT_PHASES`. */
  dbtPhases?: DbtPhasePlan[];
}

export interface Ctx {
  endpoint: Endpoint;
  state: State;
  clock: Clock;
  controls: Controls;
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
