/**
 * Cube's data-model access policies, applied by Cube's own code: the `CompilerApi` of
 * `@cubejs-backend/server-core` 1.7.43 (row-level security, member masking, the silent deny, and the
 * visibility of members in /meta per security context), handed the compilers the engine already
 * compiled. It is loaded only for a model with an access policy; a model without one answers as before.
 * The packed emulator carries that one file of server-core bundled beside its index (scripts/build.mjs).
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { nativeStandIn } from './compile.js';
import type { MetaCube } from './meta.js';
import type { NormalizedQuery } from './query.js';
import { loadCompiler, type CubeCompilers } from './vendor.js';

/** Where the deployment's `contextToGroups` reads the user's groups (tenant profiles choose: docs/emulator.md). */
export type GroupsFrom = 'cubeCloud.groups' | 'groups' | 'roles';

/** What decides a request's policies: the token's security context and where its groups are read. */
export interface AccessContext {
  securityContext: Record<string, unknown>;
  groupsFrom: GroupsFrom;
}

/** The request context Cube's CompilerApi reads (the gateway's `{ securityContext, … }`). */
interface RequestContext {
  securityContext: Record<string, unknown>;
  // Part of the context Cube hashes for its per-context policy cache: compiles are shared by every emulator of the process.
  groupsFrom: GroupsFrom;
}

/** The methods of Cube's CompilerApi the emulator calls, typed narrowly. */
interface PolicyApi {
  compilers: Promise<CubeCompilers>;
  compilerVersion: string;
  applyRowLevelSecurity(query: NormalizedQuery, evaluatedQuery: NormalizedQuery, context: RequestContext): Promise<{ query: NormalizedQuery; denied: boolean }>;
  metaConfig(context: RequestContext, options: Record<string, unknown>): Promise<{ config: MetaCube }[]>;
}

type PolicyApiClass = new (repository: unknown, dbType: () => string, options: Record<string, unknown>) => PolicyApi;

/** The CompilerApi methods the emulator calls or replaces (checked when it loads). */
export const POLICY_METHODS = ['applyRowLevelSecurity', 'metaConfig', 'getCompilers', 'createNativeInstance'] as const;

const requireHere = createRequire(import.meta.url);
let apiClass: PolicyApiClass | undefined;

/** The user's groups as the deployment's `contextToGroups` gives them: a list of names, none when absent. */
export function contextToGroups(context: RequestContext): string[] {
  const sc = context.securityContext;
  const cubeCloud = sc.cubeCloud as Record<string, unknown> | undefined;
  const raw = context.groupsFrom === 'cubeCloud.groups' ? cubeCloud?.groups : sc[context.groupsFrom];
  if (typeof raw === 'string') return [raw];
  return Array.isArray(raw) ? raw.filter((g): g is string => typeof g === 'string') : [];
}

/** Cube's CompilerApi class, loaded once (about 0.1 s), with the engine's stand-in for the native module. */
function policyApiClass(): PolicyApiClass {
  if (apiClass) return apiClass;
  loadCompiler();
  const bundled = fileURLToPath(new URL('./compiler-api.cjs', import.meta.url));
  const source = existsSync(bundled) ? bundled : '@cubejs-backend/server-core/dist/src/core/CompilerApi.js';
  const { CompilerApi } = requireHere(source) as { CompilerApi: new (...args: unknown[]) => object };
  const missing = POLICY_METHODS.filter((m) => typeof (CompilerApi.prototype as Record<string, unknown>)[m] !== 'function');
  // Fail clearly on another version: these methods are server-core's internals, pinned to 1.7.43.
  if (missing.length) throw new Error(`the emulator's access policies need @cubejs-backend/server-core 1.7.43: its CompilerApi has no ${missing.join(', ')}`);
  class EmulatorCompilerApi extends CompilerApi {
    // Cube's constructor asks for its native module; the compiles it would run are the engine's (compile.ts).
    createNativeInstance() {
      return nativeStandIn();
    }
  }
  apiClass = EmulatorCompilerApi as unknown as PolicyApiClass;
  return apiClass;
}

const apis = new WeakMap<CubeCompilers, PolicyApi>();

/** One CompilerApi per compiled model, serving the engine's compile (it never compiles again). */
function policyApi(compilers: CubeCompilers): PolicyApi {
  let api = apis.get(compilers);
  if (!api) {
    const Api = policyApiClass();
    const repository = { localPath: () => '/emulated-model', dataSchemaFiles: () => Promise.resolve([]) };
    api = new Api(repository, () => 'postgres', { contextToGroups, allowNodeRequire: false, compileContext: {} });
    // getCompilers() answers these while the version stays Cube's default one.
    api.compilers = Promise.resolve(compilers);
    api.compilerVersion = 'default_schema_version';
    apis.set(compilers, api);
  }
  return api;
}

/** Whether any cube or view of the model has an access policy (the compiler's own test). */
export function hasAccessPolicies(compilers: CubeCompilers): boolean {
  return (compilers.cubeEvaluator as unknown as { isRbacEnabled(): boolean }).isRbacEnabled();
}

/** A request context of its own per call: Cube marks the context and its security context while it reads them. */
const requestContext = (access: AccessContext): RequestContext => ({ securityContext: structuredClone(access.securityContext), groupsFrom: access.groupsFrom });

/** Every cube and view as Cube describes them to this context: members its policies hide are not visible. */
export async function policyMeta(compilers: CubeCompilers, access: AccessContext): Promise<MetaCube[]> {
  const cubes = await policyApi(compilers).metaConfig(requestContext(access), {});
  return cubes.map((c) => c.config);
}

/** The query as Cube runs it for this context: row filters added, masked members listed, a deny as `1 = 0`. */
export async function applyPolicies(compilers: CubeCompilers, query: NormalizedQuery, access: AccessContext): Promise<NormalizedQuery> {
  if (!hasAccessPolicies(compilers)) return query;
  const own = structuredClone(query);
  const evaluated = { ...structuredClone(query), useNativeSqlPlanner: false };
  const { query: guarded } = await policyApi(compilers).applyRowLevelSecurity(own, evaluated, requestContext(access));
  return guarded;
}
