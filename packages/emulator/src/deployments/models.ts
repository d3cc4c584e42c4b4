/** State of a deployment: its settings and runtime, plus the build and dbt state it carries. */
import type { BuildState } from '../build/models.js';
import type { DbtRunRec } from '../dbt/models.js';
import type { EvalRunRec } from '../evals/runs.js';
import type { JsonObject } from '../json.js';
import type { ConnectedRepo } from './repository.js';
import type { CubeStoreRec } from '../data-api/cube-store.js';

export interface EnvVarRec {
  name: string;
  value: string;
}

export interface DeploymentRec extends BuildState {
  id: number;
  name: string;
  createdAt: string;
  deployBranch: string;
  creationStep: string;
  /** Settings as last written (cloud provider, region, repository…; any key the API accepts). */
  settings: JsonObject;
  releaseChannel: string;
  version: string;
  /** `releaseChannelVersionHold`: production keeps its version at a deploy; without it a production build moves it to its channel's newest patch. */
  versionHold: boolean;
  templateVariables: JsonObject;
  envVars: EnvVarRec[];
  dbtRuns: DbtRunRec[];
  /** Evaluation runs of the deployment's agents (evals/runs.ts); absent until the first. */
  evaluations?: EvalRunRec[];
  /** An older deployment: dbt sync ignores `ref` and syncs `dbtSavedRef` (measured by the vendor). */
  olderDeployment?: boolean;
  /** The branch of the dbt project a sync uses when no `ref` is given (default `main`). */
  dbtSavedRef?: string;
  /** Fed from a connected repository (GitHub): its refs. */
  connected?: ConnectedRepo;
  /** Profile `platform-written-files`: the paths the platform wrote on the deploy branch (set once, when first turned on). */
  platformWritten?: string[];
  /** Profile `another-repository-previews`: the other repository's preview branches (set once, when first turned on). */
  otherPreviews?: string[];
  /** Its Cube Store, shared by every environment: the pre-aggregation tables built, and the builds `/load`s triggered. */
  cubeStore?: CubeStoreRec;
}

export type DeployMode = 'git' | 'cli';

/** `cli`: production changes only with an upload to the deploy branch; `git` (default): with every commit or merge into it. */
export function deployModeOf(d: DeploymentRec): DeployMode {
  return d.settings.deployMode === 'cli' ? 'cli' : 'git';
}

/** Production built from the repository's pushes (a connected Git-mode deployment): its deploy branch takes no uploads or merges. */
export function fedFromRepository(d: DeploymentRec): d is DeploymentRec & { connected: ConnectedRepo } {
  return !!d.connected && deployModeOf(d) === 'git';
}

/**
 * Runtime versions by channel, newest first (the head of each channel is its latest). The release
 * channel's versions straddle a key that came late (`mask`, `member_masking`: 1.6.33 accepts them, 1.6.10
 * does not) with 1.6.30 between them, a version the key table does not cover.
 */
export const VERSION_CATALOG: Record<string, string[]> = {
  latest: ['1.7.20', '1.7.19', '1.7.18'],
  release: ['1.6.33', '1.6.30', '1.6.10'],
};

const minorOf = (v: string) => v.split('.').slice(0, 2).join('.');

/** The newest patch of `version`'s minor on the channel: what an automatic patch upgrade moves to. */
export function newestPatch(channel: string, version: string): string {
  return VERSION_CATALOG[channel]?.find((v) => minorOf(v) === minorOf(version)) ?? version;
}

/** A production deploy: without a hold, production moves to its channel's newest patch (automatic patch upgrades). */
export function upgradeOnDeploy(d: DeploymentRec): void {
  if (!d.versionHold) d.version = newestPatch(d.releaseChannel, d.version);
}

/** What differs between deployments when one is made; the rest starts empty. */
export type NewDeployment = Pick<DeploymentRec, 'id' | 'name' | 'createdAt' | 'creationStep' | 'settings' | 'envVars'>;

/** A new deployment record with no branches (the caller adds the deploy branch). */
export function newDeployment(d: NewDeployment): DeploymentRec {
  return {
    id: d.id,
    name: d.name,
    createdAt: d.createdAt,
    deployBranch: 'main',
    creationStep: d.creationStep,
    settings: d.settings,
    // The channel the vendor recommends, auto-upgraded: production runs the newest Cube, as staging does
    // (a test moves production to the release channel's older Cube with PUT, as a tenant would).
    releaseChannel: 'latest',
    version: VERSION_CATALOG.latest?.[0] as string,
    versionHold: false,
    templateVariables: {},
    envVars: d.envVars,
    branches: {},
    nextBranchId: 1,
    nextBuildJobId: 1,
    devSessions: {},
    uploads: {},
    dbtRuns: [],
  };
}
