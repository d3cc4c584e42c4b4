/** Turning tenant profiles on and off, with what that changes in the state (a connected repository). */
import type { Clock } from './clock.js';
import type { Controls } from './context.js';
import { connectRepository, disconnectRepository } from './deployments/repository.js';
import type { ProfileName } from './profiles.js';
import type { State } from './state.js';

/** Set the tenant's profiles (already parsed). `github-connected` connects every deployment to `acme/<name>`. */
export function applyProfiles(env: { state: State; clock: Clock; controls: Controls }, profiles: ProfileName[]): void {
  const was = env.controls.profiles.includes('github-connected');
  const now = profiles.includes('github-connected');
  env.controls.profiles = [...profiles];
  for (const d of env.state.deployments) {
    if (now && !d.connected) connectRepository(d, `acme/${d.name}`);
    if (!now && was && d.connected) disconnectRepository(d);
  }
}
