/** Deployments, environments, tokens, versions, build state and regions (spec 4.1–4.3, 4.5–4.7, 4.15). */
import { z } from 'zod';
import { endpoint } from '../endpoint.js';
import {
  AnyObject,
  CursorQuery,
  DeploymentListItem,
  DeploymentParams,
  DeploymentVersion,
  Environment,
  EnvironmentType,
  IdLike,
  MetadataToken,
  Name,
  OffsetQuery,
  PageInfo,
  Pagination,
  PosInt,
  WriteResponse,
  cursorPage,
  dataOf,
} from '../schemas.js';

const DEPLOYMENT = '/api/v1/deployments/{deploymentId}';
const ENVIRONMENT = `${DEPLOYMENT}/environments/{environmentId}`;

// ---------------------------------------------------------------------------------------------
// Enumerations of inputs. Where the spec and the vendor file differ, both spellings are accepted.

/** Spec 4.6 says `platform`, the vendor file `cubecloud`: both accepted. */
export const CloudProvider = z.enum(['platform', 'cubecloud', 'aws', 'gcp']);
/** Spec 4.6 says `platform`, the vendor file `cubecloud`: both accepted. */
export const CreationMethod = z.enum(['upload', 'platform', 'cubecloud', 'github', 'ssh']);
export const DeployMode = z.enum(['git', 'cli']);
export const ReleaseChannel = z.enum(['latest', 'release']);
export const DeploymentTemplate = z.enum(['single', 'simpleCluster', 'multiCluster']);
export const CreationStep = z.enum(['project', 'upload', 'schema', 'github', 'ssh', 'databases', 'ready', 'demo']);
/** Spec 4.15 says `platform-server`, the vendor file `cubejs-server`: both accepted. */
export const LogContainer = z.enum(['INIT', 'MAIN', 'platform-server', 'cubejs-server', 'vector', 'api-proxy']);
export const LogSource = z.enum(['production', 'dev']);

// ---------------------------------------------------------------------------------------------
// Offset lists.

/**
 * An offset list read as `items`: the spec sends `{ data: { <key>: [...] }, pagination }`, the vendor
 * `{ items, data: [...], pagination }`. `items` wins when present.
 */
export function offsetList<T extends z.ZodType>(item: T, key: string) {
  return z.preprocess(
    (v) => {
      if (!v || typeof v !== 'object' || Array.isArray(v)) return v;
      const o = v as Record<string, unknown>;
      if (o.items !== undefined) return v;
      const data = o.data;
      if (Array.isArray(data)) return { ...o, items: data };
      if (data && typeof data === 'object') {
        const inner = (data as Record<string, unknown>)[key];
        if (Array.isArray(inner)) return { ...o, items: inner };
      }
      return v;
    },
    z.looseObject({
      items: z.array(item),
      data: z.unknown().optional(),
      pagination: Pagination.nullish(),
      pageInfo: PageInfo.nullish(),
      count: z.number().int().nullish(),
      totalCount: z.number().int().nullish(),
    }),
  );
}

// ---------------------------------------------------------------------------------------------
// Records.

/** The vendor's `Deployment` (get, create, creation steps, GitHub connect). */
export const Deployment = DeploymentListItem.extend({
  deploymentUrl: z.string(),
  creationStep: z.string(),
});
export type Deployment = z.infer<typeof Deployment>;

export const DeploymentsPage = offsetList(DeploymentListItem, 'deployments');
export type DeploymentsPage = z.infer<typeof DeploymentsPage>;

/** Cube Store private storage (`CspsConfig`, same shape on input and output). */
export const CspsConfig = z.looseObject({
  enabled: z.boolean(),
  storageProvider: z.string(),
  awsRoleArn: z.string().nullish(),
  azureClientId: z.string().nullish(),
  azureContainer: z.string().nullish(),
  azureStorageAccount: z.string().nullish(),
  azureTenantId: z.string().nullish(),
  gcpServiceAccountEmail: z.string().nullish(),
  gcpWorkloadIdentityProvider: z.string().nullish(),
  gcsBucket: z.string().nullish(),
  s3Bucket: z.string().nullish(),
  s3Region: z.string().nullish(),
  s3Sse: z.string().nullish(),
});

/** Every setting except secrets (vendor `DeploymentSettings`); enumerated fields are read as plain strings. */
export const DeploymentSettings = z.looseObject({
  id: IdLike,
  name: z.string(),
  template: z.string(),
  cloudProvider: z.string(),
  creationStep: z.string(),
  deploymentUrl: z.string(),
  releaseChannel: z.string(),
  deployBranchName: z.string(),
  deployBranchReadOnly: z.boolean(),
  deployBranchMergeAllowed: z.boolean(),
  deployProjectRoot: z.string(),
  isCubeSqlEnabled: z.boolean(),
  isSupportPreAggregations: z.boolean(),
  autoDomain: z.string().nullish(),
  creationMethod: z.string().nullish(),
  cspsConfig: CspsConfig.nullish(),
  cubeImageCloud: z.string().nullish(),
  cubeImageVersion: z.string().nullish(),
  customDomain: z.string().nullish(),
  defaultLaunchpadViewGroup: z.string().nullish(),
  deployMode: z.string().nullish(),
  isCold: z.boolean().nullish(),
  isManaged: z.boolean().nullish(),
  launchpadTabs: z.array(z.string()).nullish(),
  region: z.string().nullish(),
  releaseChannelVersion: z.string().nullish(),
  releaseChannelVersionHold: z.boolean().nullish(),
  repoType: z.string().nullish(),
  targetPlatform: z.string().nullish(),
  templateVariables: AnyObject.nullish(),
});
export type DeploymentSettings = z.infer<typeof DeploymentSettings>;

/** 4.6 partial update: omitted fields are left alone, `templateVariables` merges key by key. */
export const UpdateDeploymentInput = z.looseObject({
  name: z.string().min(1).nullish(),
  releaseChannelVersion: z.string().min(1).nullish(),
  releaseChannel: ReleaseChannel.nullish(),
  releaseChannelVersionHold: z.boolean().nullish(),
  cloudProvider: CloudProvider.nullish(),
  region: z.string().nullish(),
  template: DeploymentTemplate.nullish(),
  templateVariables: AnyObject.nullish(),
  defaultLaunchpadViewGroup: z.string().nullish(),
  launchpadTabs: z.array(z.string()).nullish(),
  creationMethod: CreationMethod.nullish(),
  deployMode: DeployMode.nullish(),
  customDomain: z.string().nullish(),
  deployBranchName: z.string().nullish(),
  deployBranchReadOnly: z.boolean().nullish(),
  deployBranchMergeAllowed: z.boolean().nullish(),
  deployProjectRoot: z.string().nullish(),
  cspsConfig: CspsConfig.nullish(),
});

/** `POST /build/api/v1/deployments` (vendor `CreateDeploymentInput`). */
export const CreateDeploymentInput = z.looseObject({
  name: z.string().min(1),
  cloudProvider: CloudProvider,
  region: z.string().min(1),
  targetPlatform: z.string(),
  isManaged: z.boolean(),
  creationStep: CreationStep,
  creationMethod: CreationMethod.nullish(),
  deployMode: DeployMode.nullish(),
});

export const ConnectGitHubInput = z.looseObject({
  installationId: z.number().int(),
  name: z.string().min(1),
  deployBranchName: z.string().nullish(),
  deployProjectRoot: z.string().nullish(),
  isNewRepo: z.boolean().nullish(),
  private: z.boolean().nullish(),
});

export const AdvanceCreationStepInput = z.looseObject({ creationStep: CreationStep });

/** Environment ids are strings in the spec and the list, integers in the vendor's path: both accepted. */
export const EnvironmentParams = z.object({
  deploymentId: PosInt,
  environmentId: z.union([z.number().int().min(1), Name]),
});

export const EnvironmentsQuery = OffsetQuery.extend({
  type: EnvironmentType.optional(),
  first: PosInt.optional(),
  after: z.string().optional(),
});

export const EnvironmentsPage = offsetList(Environment, 'environments');
export type EnvironmentsPage = z.infer<typeof EnvironmentsPage>;

/** The environments of a list answer, whichever form it took. */
export function environmentsOf(page: EnvironmentsPage): Environment[] {
  return page.items;
}

/** 4.3: `security_context` required; `expires_in` in seconds (server default 86400, bounds not shown). */
export const MetaSyncTokenInput = z.looseObject({
  security_context: AnyObject,
  expires_in: z.number().positive().nullish(),
  scopes: z.array(z.string()).nullish(),
});

/** Vendor `createDeploymentEnvironmentToken`: `expires_in` 1 to 3600 seconds. */
export const EnvironmentTokenInput = z.looseObject({
  security_context: AnyObject,
  expires_in: z.number().int().min(1).max(3600).nullish(),
  scopes: z.array(z.string()).nullish(),
});

/** A token of an environment (vendor `DeploymentEnvironmentToken`). */
export const EnvironmentToken = MetadataToken.extend({ security_context: AnyObject });
export type EnvironmentToken = z.infer<typeof EnvironmentToken>;

/** 4.7: `expiresIn` 60 to 86400 seconds, default 24 hours. */
export const DeploymentTokenInput = z.looseObject({
  expiresIn: z.number().int().min(60).max(86400).nullish(),
});

/** 4.7 answer: the vendor's `{ cubeApiToken }`; a body that says `token` is read as the same. */
export const DeploymentToken = z.preprocess(
  (v) => {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      const o = v as Record<string, unknown>;
      if (o.cubeApiToken === undefined && typeof o.token === 'string') return { ...o, cubeApiToken: o.token };
    }
    return v;
  },
  z.looseObject({ cubeApiToken: z.string(), token: z.string().optional() }),
);
export type DeploymentToken = z.infer<typeof DeploymentToken>;

export const BuildStatus = z.looseObject({
  branchName: z.string(),
  deploymentId: z.number().int(),
  mode: z.string(),
  status: z.string(),
  buildJobId: z.number().int().nullish(),
  deploymentStatus: z.string().nullish(),
  errorText: z.string().nullish(),
  filesHash: z.string().nullish(),
  lastHash: z.string().nullish(),
  updatedAt: z.string().nullish(),
});
export type BuildStatus = z.infer<typeof BuildStatus>;

export const LogsQuery = CursorQuery.extend({
  source: LogSource.optional(),
  pod: z.string().min(1).optional(),
  container: LogContainer.optional(),
});

export const LogLine = z.looseObject({ date: z.string(), message: z.string(), pod: z.string() });
export type LogLine = z.infer<typeof LogLine>;

export const Pod = z.looseObject({
  name: z.string(),
  containers: z.array(z.string()).nullish(),
  ready: z.boolean().nullish(),
  restartCount: z.number().int().nullish(),
  status: z.string().nullish(),
  type: z.string().nullish(),
});
export type Pod = z.infer<typeof Pod>;

export const EnvVariable = z.looseObject({ name: z.string(), value: z.string() });
export type EnvVariable = z.infer<typeof EnvVariable>;

/** Upsert by name; the masked read value `[ENCRYPTED]` is rejected by the platform, so it is caught here. */
export const SetEnvVariablesInput = z.looseObject({
  env_variables: z.array(
    EnvVariable.extend({
      name: z.string().min(1),
      value: z.string().refine((s) => s !== '[ENCRYPTED]', {
        message: 'a real value (the masked [ENCRYPTED] placeholder is rejected: omit variables you do not change)',
      }),
    }),
  ),
});

export const Region = z.looseObject({
  id: z.number().int(),
  name: z.string(),
  title: z.string().nullish(),
  provider: z.string().nullish(),
  isDedicated: z.boolean().nullish(),
  isHybrid: z.boolean().nullish(),
  isPublic: z.boolean().nullish(),
  useAiEngineer: z.boolean().nullish(),
});
export type Region = z.infer<typeof Region>;

// ---------------------------------------------------------------------------------------------

export const deploymentEndpoints = {
  list: endpoint({
    id: 'getDeployments',
    method: 'GET',
    path: '/api/v1/deployments',
    section: '4.1',
    summary: 'List the deployments the caller can access',
    query: OffsetQuery.extend({ creationStep: z.array(CreationStep).optional() }),
    response: DeploymentsPage,
    pagination: 'offset',
  }),
  get: endpoint({
    id: 'getDeployment',
    method: 'GET',
    path: DEPLOYMENT,
    section: '4.6',
    summary: 'Get one deployment',
    params: DeploymentParams,
    response: Deployment,
  }),
  update: endpoint({
    id: 'updateDeployment',
    method: 'PUT',
    path: DEPLOYMENT,
    section: '4.6',
    summary: 'Partial update of a deployment (version, channel, settings)',
    params: DeploymentParams,
    body: UpdateDeploymentInput,
    response: DeploymentSettings,
  }),
  remove: endpoint({
    id: 'deleteDeployment',
    method: 'DELETE',
    path: DEPLOYMENT,
    section: '4.6',
    summary: 'Delete a deployment',
    params: DeploymentParams,
    response: WriteResponse,
  }),
  settings: endpoint({
    id: 'getDeploymentSettings',
    method: 'GET',
    path: `${DEPLOYMENT}/settings`,
    section: '4.6',
    summary: 'Every setting of a deployment except secrets',
    params: DeploymentParams,
    response: DeploymentSettings,
  }),
  environments: endpoint({
    id: 'getDeploymentEnvironments',
    method: 'GET',
    path: `${DEPLOYMENT}/environments`,
    section: '4.2',
    summary: 'List the environments of a deployment (production, staging, development)',
    params: DeploymentParams,
    query: EnvironmentsQuery,
    response: EnvironmentsPage,
    pagination: 'offset',
  }),
  createMetaSyncToken: endpoint({
    id: 'createDeploymentEnvironmentTokenForMetaSync',
    method: 'POST',
    path: `${ENVIRONMENT}/tokens-for-meta-sync`,
    section: '4.3',
    summary: 'Mint a JWT for the metadata endpoints only',
    params: EnvironmentParams,
    body: MetaSyncTokenInput,
    response: dataOf(MetadataToken),
  }),
  environmentTokens: endpoint({
    id: 'getDeploymentEnvironmentTokens',
    method: 'GET',
    path: `${ENVIRONMENT}/tokens`,
    section: '4.3',
    summary: 'List the tokens of an environment',
    params: EnvironmentParams,
    query: OffsetQuery.extend({ first: PosInt.optional(), after: z.string().optional() }),
    response: offsetList(EnvironmentToken, 'tokens'),
    pagination: 'offset',
  }),
  createEnvironmentToken: endpoint({
    id: 'createDeploymentEnvironmentToken',
    method: 'POST',
    path: `${ENVIRONMENT}/tokens`,
    section: '4.3',
    summary: 'Mint a token for an environment',
    params: EnvironmentParams,
    body: EnvironmentTokenInput,
    response: dataOf(EnvironmentToken),
  }),
  versions: endpoint({
    id: 'listDeploymentVersions',
    method: 'GET',
    path: `${DEPLOYMENT}/versions`,
    section: '4.5',
    summary: 'Versions a deployment can switch to',
    params: DeploymentParams,
    query: CursorQuery,
    response: cursorPage(DeploymentVersion),
    pagination: 'cursor',
  }),
  token: endpoint({
    id: 'deploymentToken',
    method: 'POST',
    path: `${DEPLOYMENT}/token`,
    section: '4.7',
    summary: 'Mint a token for the data APIs (60 to 86400 seconds, default 24 hours)',
    params: DeploymentParams,
    body: DeploymentTokenInput.optional(),
    response: DeploymentToken,
  }),
  buildStatus: endpoint({
    id: 'buildStatus',
    method: 'GET',
    path: `${DEPLOYMENT}/build-status`,
    section: '4.15',
    summary: 'Build state of a branch',
    params: DeploymentParams,
    query: z.object({ branchName: z.string().min(1).optional() }),
    response: BuildStatus,
  }),
  logs: endpoint({
    id: 'logs',
    method: 'GET',
    path: `${DEPLOYMENT}/logs`,
    section: '4.15',
    summary: 'Log lines of a deployment’s pods',
    params: DeploymentParams,
    query: LogsQuery,
    response: cursorPage(LogLine),
    pagination: 'cursor',
  }),
  pods: endpoint({
    id: 'pods',
    method: 'GET',
    path: `${DEPLOYMENT}/pods`,
    section: '4.15',
    summary: 'Pods of a deployment',
    params: DeploymentParams,
    query: CursorQuery,
    response: cursorPage(Pod),
    pagination: 'cursor',
  }),
  envVars: endpoint({
    id: 'getEnvVariables',
    method: 'GET',
    path: `${DEPLOYMENT}/env-vars`,
    section: '4.15',
    summary: 'Environment variables (secret-named values masked)',
    params: DeploymentParams,
    query: CursorQuery,
    response: cursorPage(EnvVariable),
    pagination: 'cursor',
  }),
  setEnvVars: endpoint({
    id: 'setEnvVariables',
    method: 'PUT',
    path: `${DEPLOYMENT}/env-vars`,
    section: '4.15',
    summary: 'Upsert environment variables by name',
    params: DeploymentParams,
    body: SetEnvVariablesInput,
    response: cursorPage(EnvVariable),
  }),
  advanceCreationStep: endpoint({
    id: 'advanceCreationStep',
    method: 'POST',
    path: `${DEPLOYMENT}/creation-step/advance`,
    section: '4.15',
    summary: 'Move the setup wizard to a step',
    params: DeploymentParams,
    body: AdvanceCreationStepInput,
    response: Deployment,
  }),
  resetCreationStep: endpoint({
    id: 'resetCreationStep',
    method: 'POST',
    path: `${DEPLOYMENT}/creation-step/reset`,
    section: '4.15',
    summary: 'Reset the setup wizard',
    params: DeploymentParams,
    response: Deployment,
  }),
  create: endpoint({
    id: 'createDeployment',
    method: 'POST',
    path: '/build/api/v1/deployments',
    section: '4.15',
    summary: 'Create a deployment (scaffolds a starter project unless creationMethod is github)',
    body: CreateDeploymentInput,
    response: Deployment,
  }),
  connectGitHub: endpoint({
    id: 'connect',
    method: 'POST',
    path: '/build/api/v1/deployments/{deploymentId}/github/connect',
    section: '4.15',
    summary: 'Connect a GitHub repository to a deployment',
    params: DeploymentParams,
    body: ConnectGitHubInput,
    response: Deployment,
  }),
  regions: endpoint({
    id: 'listRegions',
    method: 'GET',
    path: '/api/v1/regions',
    section: '4.15',
    summary: 'Regions available to the account',
    query: CursorQuery,
    response: cursorPage(Region),
    pagination: 'cursor',
  }),
} as const;
