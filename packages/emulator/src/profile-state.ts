/** Turning tenant profiles on and off, with what that changes in the state (a connected repository). */
import type { Clock } from './clock.js';
import type { Controls } from './context.js';
import { connectRepository, disconnectRepository, type Feed } from './deployments/repository.js';
import type { ProfileName } from './profiles.js';
import { VERSION_CATALOG, newestPatch } from './deployments/models.js';
import { seedOtherRepositoryPreviews, seedPlatformWrittenFiles } from './seed/profile-seeds.js';
import type { State } from './state.js';

/** The profiles that connect every deployment to `acme/<name>`; they differ only in how it is fed, so any mix is one feed. */
const CONNECTING: readonly ProfileName[] = ['github-connected', 'connected-later', 'cli-with-repository'];

/** The feed a set of profiles gives: `cli-with-repository` makes it CLI mode, `connected-later` says it was made by upload. */
function feedOf(profiles: readonly ProfileName[]): Feed | undefined {
  if (!profiles.some((p) => CONNECTING.includes(p))) return undefined;
  const cli = profiles.includes('cli-with-repository');
  return { deployMode: cli ? 'cli' : 'git', creationMethod: profiles.includes('connected-later') ? 'upload' : 'github', dotfiles: cli };
}

/** Set the tenant's profiles (already parsed), connecting or disconnecting the deployments as they say. */
export function applyProfiles(env: { state: State; clock: Clock; controls: Controls }, profiles: ProfileName[]): void {
  const was = feedOf(env.controls.profiles) !== undefined;
  const feed = feedOf(profiles);
  env.controls.profiles = [...profiles];
  for (const d of env.state.deployments) {
    if (feed) connectRepository(d, d.connected?.repository ?? `acme/${d.name}`, feed);
    else if (was && d.connected) disconnectRepository(d);
    // Data two profiles add the first time they are on (the platform's files first: the previews are made from them).
    if (profiles.includes('platform-written-files')) seedPlatformWrittenFiles(d, env.clock.now());
    if (profiles.includes('another-repository-previews')) seedOtherRepositoryPreviews(d, env.clock.now());
    // Production follows the release channel (the vendor's other channel): an older Cube than staging's newest.
    if (profiles.includes('production-release-channel') && !d.versionHold && d.releaseChannel !== 'release') {
      d.releaseChannel = 'release';
      d.version = VERSION_CATALOG.release?.[0] ?? d.version;
    }
    // A new patch came to production's channel since its last deploy, and it holds no version.
    if (profiles.includes('patch-upgrade-pending') && !d.versionHold && d.version === newestPatch(d.releaseChannel, d.version)) {
      const older = VERSION_CATALOG[d.releaseChannel]?.find((v) => v !== d.version && newestPatch(d.releaseChannel, v) === d.version);
      if (older) d.version = older;
    }
  }
}
