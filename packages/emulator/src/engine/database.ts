/**
 * The databases behind the data API: real Postgres (PGlite, compiled to WebAssembly, in process),
 * one per deployment, holding the demo data. Starting Postgres and seeding it is the slow part (about
 * 2.5 s, and 400 to 700 MB): the first database of the process is made that way, and its data folder
 * kept in memory; every later one (other deployments, other emulators) starts from that copy (about 1 s).
 */
import { demoDataSql } from './demo-data.js';
import { loadPglite } from './vendor.js';

export interface QueryResult {
  rows: Record<string, unknown>[];
  /** The columns, in order. */
  fields: { name: string; dataTypeID: number }[];
}

export interface Database {
  query(sql: string, params: unknown[]): Promise<QueryResult>;
  close(): Promise<void>;
}

/** How a database was made, and how long it took. */
export interface Opened {
  db: Database;
  from: 'seed' | 'copy';
  ms: number;
}

/**
 * Every value as Postgres prints it (text), booleans aside: Cube's answers carry numbers as strings
 * and re-format times themselves.
 */
function textParsers(): Record<number, (value: string) => string> {
  const { types } = loadPglite();
  const asText = (value: string) => value;
  const ids = [
    types.INT2,
    types.INT4,
    types.INT8,
    types.OID,
    types.FLOAT4,
    types.FLOAT8,
    types.NUMERIC,
    types.DATE,
    types.TIMESTAMP,
    types.TIMESTAMPTZ,
    types.JSON,
    types.JSONB,
  ];
  return Object.fromEntries(ids.map((id) => [id, asText]));
}

type Pglite = InstanceType<ReturnType<typeof loadPglite>['PGlite']>;

function wrap(pg: Pglite): Database {
  return {
    async query(sql, params) {
      const res = await pg.query<Record<string, unknown>>(sql, params);
      return { rows: res.rows, fields: res.fields.map((f) => ({ name: f.name, dataTypeID: f.dataTypeID })) };
    },
    close: () => pg.close(),
  };
}

/** The seeded data folder, taken once per process. */
let seededImage: Promise<Blob> | undefined;

async function start(image?: Blob): Promise<Pglite> {
  const { PGlite } = loadPglite();
  const pg = new PGlite({ parsers: textParsers(), ...(image ? { loadDataDir: image } : {}) });
  await pg.waitReady;
  await pg.exec("SET TIME ZONE 'UTC'");
  return pg;
}

/** A database holding the demo data, fresh for its caller. */
export async function openDemoDatabase(): Promise<Opened> {
  const started = performance.now();
  if (seededImage) {
    const pg = await start(await seededImage);
    return { db: wrap(pg), from: 'copy', ms: performance.now() - started };
  }
  const seeding = (async () => {
    const pg = await start();
    for (const statement of demoDataSql()) await pg.exec(statement);
    // Uncompressed: about 40 MB in memory, and three times faster to take than gzip.
    return { pg, image: await pg.dumpDataDir('none') };
  })();
  seededImage = seeding.then((s) => s.image);
  seededImage.catch(() => (seededImage = undefined));
  const { pg } = await seeding;
  return { db: wrap(pg), from: 'seed', ms: performance.now() - started };
}
