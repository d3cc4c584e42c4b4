/**
 * The account-area emulator tests' shared fixture: one emulator (demo seed, manual clock) and a client per
 * credential, as live bindings the test files import; call useAccountEmulator() once per file.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { PlatformClient, type ClientOptions, type PlatformError } from '../../src/client/index.js';
import { startEmulator, type Emulator } from '../../packages/emulator/src/index.js';

export let em: Emulator;
export let admin: PlatformClient;
export let member: PlatformClient;
export let scoped: PlatformClient;
export let scim: PlatformClient;
export let scimApiKey: PlatformClient;
export let scimWithAdminKey: PlatformClient;
export let bogus: PlatformClient;
export let dir: string;
const clients: PlatformClient[] = [];

function client(apiKey: string, extra: Partial<ClientOptions> = {}): PlatformClient {
  const c = new PlatformClient({ baseUrl: em.baseUrl, apiKey, ca: em.ca, retry: { baseDelayMs: 1, maxDelayMs: 5 }, ...extra });
  clients.push(c);
  return c;
}

export function useAccountEmulator(): void {
  beforeAll(async () => {
    em = await startEmulator({ seed: 'demo', clock: { mode: 'manual', start: Date.parse('2025-03-14T12:00:00Z') } });
    admin = client(em.credentials.admin);
    member = client(em.credentials.member);
    scoped = client(em.credentials.scoped);
    scim = client(em.credentials.scim);
    scimApiKey = client(em.credentials.scim, { authScheme: 'api-key' });
    scimWithAdminKey = client(em.credentials.admin);
    bogus = client('dmci_bogus_0000000000000000');
    dir = await mkdtemp(join(tmpdir(), 'emu-account-'));
  });
  afterAll(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    await em?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });
}

export const snapshot = () => JSON.stringify(em.state);

/** The error a promise rejects with, checked to be of a class and status. */
export async function rejection<T extends PlatformError>(p: Promise<unknown>, cls: new (...a: never[]) => T, status: number): Promise<T> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(cls);
  expect((error as T).status).toBe(status);
  return error as T;
}

/** Prove a rejected request changed nothing in the state. */
export async function rejectsUnchanged<T extends PlatformError>(p: () => Promise<unknown>, cls: new (...a: never[]) => T, status: number): Promise<T> {
  const before = snapshot();
  const error = await rejection(p(), cls, status);
  expect(snapshot()).toBe(before);
  return error;
}
