/** The emulator's public face: start it in process (tests, demo, bench) or from its bin. */
export { startEmulator, type Emulator, type EmulatorInfo, type EmulatorOptions } from './server.js';
export type { State } from './state.js';
export type { FileMap } from './build/models.js';
export { DEMO_MODEL, FINANCE_MODEL } from './seed/demo-model.js';
export { SEEDS, type SeedName } from './seed/index.js';
export { OTHER_REPOSITORY, OTHER_REPOSITORY_PREVIEWS, PLATFORM_WRITTEN_FILES, PLATFORM_WRITTEN_ROOT } from './seed/profile-seeds.js';
export {
  crlfOnPlatform,
  dbtMerge,
  driftCube,
  failedProductionBuild,
  mergeWithoutBuild,
  outOfBandUpload,
  productionView,
  pushToRepository,
  slowBuild,
  uiMerge,
  unwalkedFiles,
  UNWALKED_FILES,
  type DriftEnv,
  type DriftResult,
  type FileChanges,
} from './drift/scenarios.js';
export { BOT_LOGIN, startGitHubStandin, type GitHubStandin } from './github/standin.js';
export { makeLocalTls, type LocalTls } from './tls.js';
export { main } from './main.js';
