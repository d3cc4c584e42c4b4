/**
 * Cube's own engine inside the emulator: its compiler validates models and describes them (/meta),
 * its Postgres query class writes the SQL, and a real Postgres (PGlite) per deployment runs it. One
 * `Engine` per emulator holds that emulator's databases; compiles are kept per process, by content.
 */
import type { FileMap } from '../build/models.js';
import { openDemoDatabase, type Database, type Opened } from './database.js';
import { compileTree, type CompiledModel } from './model.js';

export type { CompiledModel } from './model.js';
export type { ModelError } from './compile.js';
export type { Database } from './database.js';

/** How one database of this engine was started. */
export interface DatabaseStart {
  deploymentId: number;
  from: Opened['from'];
  ms: number;
}

export class Engine {
  private readonly databases = new Map<number, Promise<Opened>>();
  private closed = false;
  /** Every database started, in order (the bench reads the times). */
  readonly started: DatabaseStart[] = [];

  /** Compile a tree with Cube's compiler (or answer from the process's cache of compiles). */
  compile(tree: FileMap): Promise<CompiledModel> {
    return compileTree(tree);
  }

  /** The database of a deployment, started (and seeded) on its first use. */
  async database(deploymentId: number): Promise<Database> {
    if (this.closed) throw new Error('the emulator is closed');
    let opening = this.databases.get(deploymentId);
    if (!opening) {
      opening = openDemoDatabase();
      this.databases.set(deploymentId, opening);
      opening.then(
        (o) => this.started.push({ deploymentId, from: o.from, ms: o.ms }),
        () => this.databases.delete(deploymentId),
      );
    }
    return (await opening).db;
  }

  /** Start a deployment's database without waiting for it (while a client polls). */
  warm(deploymentId: number): void {
    this.database(deploymentId).catch(() => undefined);
  }

  /** Start the deployments' databases and compile their production models, answering nothing (the demo will query them). */
  warmUp(deployments: { id: number; tree: FileMap }[]): void {
    for (const d of deployments) this.warm(d.id);
    for (const d of deployments) this.compile(d.tree).catch(() => undefined);
  }

  /** Close every database (those still starting once they have started). */
  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.databases.values()];
    this.databases.clear();
    await Promise.all(all.map(async (o) => (await o.catch(() => undefined))?.db.close()));
  }
}
