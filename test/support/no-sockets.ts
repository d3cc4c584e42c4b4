/**
 * Setup of `npm run test:unit`: the unit tests are pure logic, so opening a socket, listening or
 * starting a process is an error here (the whole suite, `npm test`, runs the tests that need them).
 */
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';

function refuse(what: string): never {
  throw new Error(`test:unit runs pure logic only, but a test tried to ${what}: move it out of vitest.unit.config.ts`);
}

net.Socket.prototype.connect = function connect() {
  return refuse('open a socket');
};
net.Server.prototype.listen = function listen() {
  return refuse('listen on a port');
} as typeof net.Server.prototype.listen;
for (const name of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const) {
  (childProcess as unknown as Record<string, unknown>)[name] = () => refuse(`start a process (${name})`);
}
// Named imports (`import { spawn } from 'node:child_process'`) see the replacements only after this.
syncBuiltinESMExports();
