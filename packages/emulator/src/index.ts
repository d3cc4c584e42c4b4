/** The emulator's public face: start it in process (tests, demo, bench) or from its bin. */
export { startEmulator, type Emulator, type EmulatorInfo, type EmulatorOptions } from './server.js';
export { DEMO_MODEL, SEEDS, type SeedName } from './seed.js';
export { startGitHubStandin, type GitHubStandin } from './github/standin.js';
export { makeLocalTls, type LocalTls } from './tls.js';
export { main } from './main.js';
