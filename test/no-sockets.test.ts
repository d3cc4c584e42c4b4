/** The guard of `npm run test:unit` refuses what a unit test must not do, and puts it all back after. */
import { execFile, spawn } from 'node:child_process';
import net, { connect, createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { refuseSockets } from './support/no-sockets.js';

describe('the test:unit guard', () => {
  it('refuses to listen, to connect and to start a process, naming what was tried', () => {
    const methods = () => [Object.getOwnPropertyDescriptor(net.Server.prototype, 'listen'), Object.getOwnPropertyDescriptor(net.Socket.prototype, 'connect')];
    const before = methods();
    const restore = refuseSockets();
    try {
      expect(() => createServer().listen(0)).toThrow(/listen on a port/);
      expect(() => connect(1, '127.0.0.1')).toThrow(/open a socket/);
      expect(() => spawn('true')).toThrow(/start a process \(spawn\)/);
      expect(() => execFile('true')).toThrow(/start a process \(execFile\)/);
    } finally {
      restore();
    }
    expect(methods()).toEqual(before);
  });
});
