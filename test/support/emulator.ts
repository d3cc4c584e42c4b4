/** Start an in-process emulator and clients for its credentials. */
import { PlatformClient, type ClientOptions } from '../../src/client/index.js';
import { startEmulator, type Emulator, type EmulatorOptions } from '../../packages/emulator/src/index.js';

export interface EmulatorFixture {
  em: Emulator;
  admin: PlatformClient;
  member: PlatformClient;
  scoped: PlatformClient;
  /** A client for any key (closed with the fixture). */
  client(apiKey: string, extra?: Partial<ClientOptions>): PlatformClient;
  close(): Promise<void>;
}

export async function emulatorFixture(options: EmulatorOptions = {}): Promise<EmulatorFixture> {
  const em = await startEmulator({ seed: 'demo', clock: { mode: 'manual' }, ...options });
  const clients: PlatformClient[] = [];
  const client = (apiKey: string, extra: Partial<ClientOptions> = {}) => {
    const c = new PlatformClient({ baseUrl: em.baseUrl, apiKey, ca: em.ca, retry: { baseDelayMs: 1, maxDelayMs: 5 }, ...extra });
    clients.push(c);
    return c;
  };
  return {
    em,
    admin: client(em.credentials.admin),
    member: client(em.credentials.member),
    scoped: client(em.credentials.scoped),
    client,
    async close() {
      await Promise.all(clients.map((c) => c.close()));
      await em.close();
    },
  };
}

/** The state as text, to prove that a rejected request changed nothing. */
export function snapshot(em: Emulator): string {
  return JSON.stringify(em.state);
}
