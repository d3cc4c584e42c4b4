/**
 * The one comment of several models: each model's side writes its section as if it were the pull
 * request's own comment (its ledger, its view); the sections are kept together here and sent one write
 * at a time, each write carrying the latest of every section (writes that wait join the next one).
 */
import { MODELS_COMMENT, type Ledger, type ModelLedger } from './ledger.js';
import type { CommentThread, UpsertResult, WriteOptions } from './thread.js';
import type { ViewError } from './view.js';
import type { PreviewThread } from '../pull-request.js';

export class SectionedComment {
  private sections: ModelLedger[] = [];
  private readonly errors: Record<string, ViewError[]> = {};
  private pending: Promise<UpsertResult> | undefined;
  private running: Promise<unknown> = Promise.resolve();
  private readonly opened: Promise<CommentThread | undefined>;

  /** `open` lists the PR's comments for the several models' comment; `models` are the input's entries, in order. */
  constructor(open: (key: string) => Promise<CommentThread | undefined>, models: { key: string; deploymentId: number }[]) {
    this.opened = open(MODELS_COMMENT).then((thread) => {
      // Sections in the input's order; one the comment does not have yet starts empty, one no longer asked for goes.
      const had = thread?.ledger?.models ?? [];
      this.sections = models.map((m) => {
        const found = had.find((h) => h.key === m.key && h.deploymentId === String(m.deploymentId));
        return found ?? { key: m.key, deploymentId: String(m.deploymentId) };
      });
      return thread;
    });
  }

  /** Whether the pull request has the comment already (a run that previews nothing does not start one). */
  async exists(): Promise<boolean> {
    return (await this.opened)?.ledger !== undefined;
  }

  /** The section of model `key`, once the comment has been read; undefined when there is no thread (no token). */
  async section(key: string): Promise<PreviewThread | undefined> {
    const thread = await this.opened;
    if (!thread) return undefined;
    const index = () => this.sections.findIndex((m) => m.key === key);
    // What a side sees of its section: the ledger as a comment of its own (none until something was written).
    const current = (): Ledger | undefined => {
      const { key: _key, ...ledger } = this.sections[index()] as ModelLedger;
      return ledger.view || ledger.branch || ledger.untouched ? ledger : undefined;
    };
    const write = async (options: WriteOptions): Promise<UpsertResult> => {
      const i = index();
      const deploymentId = (this.sections[i] as ModelLedger).deploymentId;
      const next = await options.update({ ledger: current() });
      if (next === null) return { written: false, reason: 'skipped', created: false, duplicates: [] };
      const updatedAt = (options.now?.() ?? new Date()).toISOString();
      const ledger: ModelLedger = { ...next.ledger, key, deploymentId, headSha: options.headSha, runId: options.runId, updatedAt };
      if (ledger.view) ledger.view = { ...ledger.view, updatedAt };
      this.sections[i] = ledger;
      if (next.errors) this.errors[key] = next.errors;
      return this.flush(thread, options);
    };
    return {
      get ledger() {
        return current();
      },
      write,
    };
  }

  /** Send every section's latest state once; a flush that has not started yet takes later writes along. */
  private flush(thread: CommentThread, options: WriteOptions): Promise<UpsertResult> {
    if (this.pending) return this.pending;
    const pending = this.running.then(() => {
      this.pending = undefined;
      return thread.write({
        headSha: options.headSha,
        runId: options.runId,
        ...(options.runUrl ? { runUrl: options.runUrl } : {}),
        update: (state) => ({ ledger: { ...state?.ledger, models: this.sections.map((m) => ({ ...m })) }, sectionErrors: { ...this.errors } }),
      });
    });
    this.pending = pending;
    this.running = pending.catch(() => undefined);
    return pending;
  }
}
