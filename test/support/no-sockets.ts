/**
 * The guard of `npm run test:unit` (installed by test/support/unit-setup.ts): the unit tests are pure
 * logic, so opening a socket, listening or starting a process is an error there (the whole suite,
 * `npm test`, runs the tests that need them).
 */
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';

const PROCESS_FUNCTIONS = ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const;

function refuse(what: string): never {
  throw new Error(`test:unit runs pure logic only, but a test tried to ${what}: move it out of vitest.unit.config.ts`);
}

/** Refuse sockets, listening and child processes in this process; returns what puts them back. */
export function refuseSockets(): () => void {
  // Descriptors, not the methods: they are put back as they were, never called from here.
  const connect = Object.getOwnPropertyDescriptor(net.Socket.prototype, 'connect')!;
  const listen = Object.getOwnPropertyDescriptor(net.Server.prototype, 'listen')!;
  const cp = childProcess as unknown as Record<string, unknown>;
  const saved = PROCESS_FUNCTIONS.map((name) => [name, cp[name]] as const);
  net.Socket.prototype.connect = function connect() {
    return refuse('open a socket');
  };
  net.Server.prototype.listen = function listen() {
    return refuse('listen on a port');
  };
  for (const name of PROCESS_FUNCTIONS) cp[name] = () => refuse(`start a process (${name})`);
  // Named imports (`import { spawn } from 'node:child_process'`) see the replacements only after this.
  syncBuiltinESMExports();
  return () => {
    Object.defineProperty(net.Socket.prototype, 'connect', connect);
    Object.defineProperty(net.Server.prototype, 'listen', listen);
    for (const [name, f] of saved) cp[name] = f;
    syncBuiltinESMExports();
  };
}
