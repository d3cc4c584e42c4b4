/**
 * The databases behind the data API: real Postgres (PGlite, compiled to WebAssembly), one per
 * deployment, holding the demo data, all in one thread beside the emulator's (postgres-thread.mjs), so
 * that starting one (seconds of CPU) holds up no answer. Starting Postgres and seeding it is the slow
 * part (about 2.5 s, and 400 to 700 MB): the first database made on a machine is made that way, and its
 * data folder kept (5 MB, gzipped, in the system's temporary folder, and in memory); every later one
 * (other deployments, other emulators, other processes) starts from that copy (0.5 s).
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { gunzipSync } from 'node:zlib';
import { demoDataSql } from './demo-data.js';

export interface QueryResult {
  rows: Record<string, unknown>[];
  /** The columns, in order. */
  fields: { name: string; dataTypeID: number }[];
}

export interface Database {
  query(sql: string, params: unknown[]): Promise<QueryResult>;
  /** The query as the data stood before `undo` (statements run in a transaction that is rolled back; nothing else runs meanwhile). */
  queryAsOf(sql: string, params: unknown[], undo: string[]): Promise<QueryResult>;
  close(): Promise<void>;
}

/** How a database was made, and how long it took. */
export interface Opened {
  db: Database;
  from: 'seed' | 'copy';
  ms: number;
}

type Request =
  | { op: 'open'; image?: ArrayBuffer }
  | { op: 'exec' | 'query'; handle: number; sql: string; params?: unknown[] }
  | { op: 'queryAsOf'; handle: number; sql: string; params: unknown[]; undo: string[] }
  | { op: 'dump' | 'close'; handle: number };

interface Answer {
  id: number;
  value?: unknown;
  error?: { message: string } & Record<string, unknown>;
}

/** The Postgres thread of the process: started on the first request, holding the process open only while a request waits. */
class PostgresThread {
  private worker: Worker | undefined;
  private readonly waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private next = 1;

  send<T>(request: Request): Promise<T> {
    const worker = this.worker ?? this.start();
    const id = this.next++;
    if (this.waiting.size === 0) worker.ref();
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
      worker.postMessage({ ...request, id });
    });
  }

  private start(): Worker {
    const worker = new Worker(new URL('./postgres-thread.mjs', import.meta.url));
    worker.unref();
    worker.on('message', (a: Answer) => {
      const w = this.waiting.get(a.id);
      this.waiting.delete(a.id);
      if (this.waiting.size === 0) worker.unref();
      if (!w) return;
      if (a.error) w.reject(Object.assign(new Error(a.error.message), a.error));
      else w.resolve(a.value);
    });
    // A thread that dies fails what waits on it; the next request starts another.
    const fail = (e: Error) => {
      if (this.worker === worker) this.worker = undefined;
      for (const w of this.waiting.values()) w.reject(e);
      this.waiting.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the Postgres thread ended (exit code ${code})`)));
    this.worker = worker;
    return worker;
  }
}

const thread = new PostgresThread();

function wrap(handle: number): Database {
  return {
    query: (sql, params) => thread.send<QueryResult>({ op: 'query', handle, sql, params }),
    queryAsOf: (sql, params, undo) => thread.send<QueryResult>({ op: 'queryAsOf', handle, sql, params, undo }),
    close: () => thread.send<void>({ op: 'close', handle }),
  };
}

/**
 * Where the seeded data folder is kept between processes: named by PGlite's version and the seed, so a
 * new version or other demo data never starts from an old image.
 */
export function seededImagePath(): string {
  const version = pgliteVersion();
  const key = createHash('sha256')
    .update(`${version}\0${demoDataSql().join('\0')}`)
    .digest('hex')
    .slice(0, 16);
  return join(tmpdir(), 'datamodel-ci-emulator', `postgres-${version}-${key}.tar.gz`);
}

/** The version of the PGlite the thread loads (its package.json, found above its entry: it exports no other path to it). */
function pgliteVersion(): string {
  let dir = dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
  for (; dir !== dirname(dir); dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === '@electric-sql/pglite' && pkg.version) return pkg.version;
    } catch {
      // Not this folder: go up.
    }
  }
  return 'unknown';
}

/** The kept image (unzipped), or undefined when there is none (or it cannot be read or unzipped). */
function readKeptImage(): ArrayBuffer | undefined {
  try {
    return plain(readFileSync(seededImagePath()));
  } catch {
    return undefined;
  }
}

/** Keep the image for later processes: written beside, then renamed, so no reader sees half a file. */
function keepImage(image: ArrayBuffer): void {
  const path = seededImagePath();
  const part = `${path}.${process.pid}.part`;
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(part, new Uint8Array(image));
    renameSync(part, path);
  } catch {
    // Only a later start is slower without it.
    rmSync(part, { force: true });
  }
}

/** The seeded data folder, taken once per process, unzipped (see `plain`). */
let seededImage: Promise<ArrayBuffer> | undefined;

/**
 * The image as a plain tar, unzipped once per process: PGlite reads either, but unzipping 5 MB into 40
 * on every start cost a quarter of it (0.15 to 0.25 s of CPU, for each emulator's database).
 */
function plain(gzipped: ArrayBuffer | Uint8Array): ArrayBuffer {
  const tar = gunzipSync(gzipped);
  return tar.buffer.slice(tar.byteOffset, tar.byteOffset + tar.byteLength);
}

/** Seed a new database and keep its data folder (in memory, and on disk for later processes). */
async function seed(): Promise<{ handle: number; image: ArrayBuffer }> {
  const handle = await thread.send<number>({ op: 'open' });
  for (const sql of demoDataSql()) await thread.send({ op: 'exec', handle, sql });
  const image = await thread.send<ArrayBuffer>({ op: 'dump', handle });
  keepImage(image);
  return { handle, image };
}

/** A database holding the demo data, fresh for its caller. */
export async function openDemoDatabase(): Promise<Opened> {
  const started = performance.now();
  if (!seededImage) {
    const kept = readKeptImage();
    if (kept) seededImage = Promise.resolve(kept);
  }
  if (seededImage) {
    const image = await seededImage;
    const handle = await thread.send<number>({ op: 'open', image }).catch(() => undefined);
    if (handle !== undefined) return { db: wrap(handle), from: 'copy', ms: performance.now() - started };
    // A kept image this PGlite cannot start from: seed again, and keep the new one.
    seededImage = undefined;
  }
  const seeding = seed();
  seededImage = seeding.then((s) => plain(s.image));
  seededImage.catch(() => (seededImage = undefined));
  const { handle } = await seeding;
  return { db: wrap(handle), from: 'seed', ms: performance.now() - started };
}
