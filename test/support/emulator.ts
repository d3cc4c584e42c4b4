/** Start an in-process emulator and clients for its credentials; raw requests, control routes, uploads. */
import { createHash } from 'node:crypto';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { PlatformClient, type ClientOptions } from '../../src/client/index.js';
import type { Io } from '../../src/io.js';
import { readLocalModel } from '../../src/model/local-model.js';
import { MemoryReporter } from '../../src/report/reporter.js';
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
  // A manual clock moves only when a test moves it: builds and warm-ups are instant unless a test asks otherwise.
  const em = await startEmulator({ seed: 'demo', clock: { mode: 'manual' }, buildMs: 0, warmupMs: 0, ...options });
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

/** A request over node:https exactly as given (no header added but Host), to see what the server itself answers. */
export function rawRequest(
  em: Emulator,
  req: { method: string; path: string; headers?: Record<string, string>; body?: string | Buffer },
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
  return new Promise((resolve, reject) => {
    const r = httpsRequest(new URL(req.path, em.baseUrl), { method: req.method, headers: req.headers ?? {}, ca: em.ca, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    r.on('error', reject);
    r.end(req.body);
  });
}

/** Call a control route under `/_emulator/` with the admin key; throws on a non-2xx answer. */
export async function control(em: Emulator, path: string, body?: unknown): Promise<any> {
  const text = body === undefined ? '' : JSON.stringify(body);
  const res = await rawRequest(em, {
    method: body === undefined ? 'GET' : 'POST',
    path: `/_emulator/${path}`,
    headers: { authorization: `Bearer ${em.credentials.admin}`, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) },
    body: text,
  });
  if (res.status >= 300) throw new Error(`control ${path}: ${res.status}: ${(JSON.parse(res.text) as { error?: string }).error ?? res.text}`);
  return JSON.parse(res.text);
}

/** SHA-1 hex of the raw bytes, as file-hashes and the finish manifest carry it. */
/** The model of `dir`, read and checked as a command reads it before its first call (what `uploadModel` takes). */
export const localOf = (dir: string, exclude?: string[]) => readLocalModel(new MemoryReporter(), dir, exclude);

export const sha1 = (s: string | Buffer) => createHash('sha1').update(s).digest('hex');

/**
 * The vendor's `deploy`: hashes, start, each changed file (transaction as JSON text, base name as
 * the part's filename), finish with the full manifest. Returns finish's answer.
 */
export async function uploadTree(
  c: PlatformClient,
  deploymentId: number,
  branchName: string | undefined,
  tree: Record<string, string>,
  autoRemoveFiles = true,
): Promise<{ lastHash?: string | null }> {
  const query = branchName ? { branchName } : {};
  const upstream = await c.dataModel.fileHashes({ deploymentId, query });
  const { transaction } = await c.dataModel.startUpload({ deploymentId, query });
  const files: Record<string, { hash: string }> = {};
  for (const [path, content] of Object.entries(tree)) {
    files[path] = { hash: sha1(content) };
    if (upstream[path]?.hash === files[path].hash) continue;
    await c.dataModel.uploadFile({ deploymentId, query, body: { transaction: JSON.stringify(transaction), fileName: path, file: content } });
  }
  return c.dataModel.finishUpload({ deploymentId, query, body: { transaction, files, autoRemoveFiles } });
}

/** What a call threw (undefined when it succeeded), to check the error's class and message. */
export const failure = (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );

/** The CLI's I/O, recorded, with its settings pointing at the emulator as the admin (`extra` over them). */
export function cliIo(em: Emulator, extra: NodeJS.ProcessEnv = {}): Io & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const env = {
    DATAMODEL_CI_API_URL: em.baseUrl,
    DATAMODEL_CI_API_KEY: em.credentials.admin,
    DATAMODEL_CI_CA_CERT: em.ca,
    RUNNER_TEMP: tmpdir(),
    ...extra,
  };
  return { stdout, stderr, out: (l) => stdout.push(l), err: (l) => stderr.push(l), env };
}
