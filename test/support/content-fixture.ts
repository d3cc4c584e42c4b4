/**
 * The content-area emulator tests' shared fixture: one emulator (demo seed, manual clock), an admin and a
 * member client, as live bindings the test files import; call useContentEmulator() once per file.
 */
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, expect } from 'vitest';
import { PlatformClient } from '../../src/client/index.js';
import { startEmulator, type Emulator } from '../../packages/emulator/src/index.js';

export let em: Emulator;
export let c: PlatformClient;
export let member: PlatformClient;
/** The demo seed's deployment. */
export const D = 1;

export function useContentEmulator(): void {
  beforeAll(async () => {
    em = await startEmulator({ seed: 'demo', clock: { mode: 'manual' } });
    c = new PlatformClient({ baseUrl: em.baseUrl, apiKey: em.credentials.admin, ca: em.ca });
    member = new PlatformClient({ baseUrl: em.baseUrl, apiKey: em.credentials.member, ca: em.ca });
  });
  afterAll(async () => {
    await c?.close();
    await member?.close();
    await em?.close();
  });
}

export const snapshot = () => JSON.stringify(em.state);

/** Run a request that must be rejected with `cls`, and prove the state did not change. */
export async function rejectedUnchanged(call: () => Promise<unknown>, cls: abstract new (...args: never[]) => Error, message?: RegExp): Promise<void> {
  const before = snapshot();
  const error = await call().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(cls);
  if (message) expect((error as Error).message).toMatch(message);
  expect(snapshot()).toBe(before);
}

export async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks);
}
