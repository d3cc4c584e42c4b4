/**
 * The PR conversation as one run sees it: the comments are listed once, our sticky comment (and its
 * ledger) is found among them, and every write of the run goes to that comment, unless a newer head
 * commit owns the PR by then.
 */
import { composeComment, findStickyComments, parseComment, type Ledger } from './ledger.js';
import type { ViewError } from './view.js';
import type { GitHubApi } from '../../github/types.js';

/** The state an `update` callback sees: the comment's ledger (and the view inside it). */
export interface CommentState {
  ledger: Ledger | undefined;
}

/** What `update` returns: `deploymentId`, `headSha`, `runId` and `updatedAt` of the ledger are filled in. */
export interface CommentUpdate {
  ledger: Partial<Ledger>;
  /** Every error of the run (the view keeps the first ones). */
  errors?: ViewError[];
  /** Several models: every error of each section's run, by folder. */
  sectionErrors?: Record<string, ViewError[]>;
}

export interface WriteOptions {
  /** Head commit this run works on; nothing is written once the PR has moved on. */
  headSha: string;
  runId: number;
  /** URL of this run. */
  runUrl?: string;
  /** Compute the new content from the current one; `null` writes nothing. */
  update(current: CommentState | undefined): CommentUpdate | null | Promise<CommentUpdate | null>;
  /** Clock (tests). */
  now?: () => Date;
}

export interface ThreadOptions {
  pr: number;
  deploymentId: string;
  /**
   * Logins our comments are written by: the token's own (default: any `[bot]` account). A promise is
   * awaited alongside the listing (the identity lookup costs no extra round trip on the chain).
   */
  authors?: readonly string[] | Promise<readonly string[]>;
}

export type UpsertOptions = ThreadOptions & WriteOptions;

export type SkipReason = 'stale' | 'skipped' | 'pr-not-found';

export interface UpsertResult {
  written: boolean;
  /** The comment written, or the existing one when nothing was written. */
  commentId?: number;
  created: boolean;
  reason?: SkipReason;
  /** Other comments of ours for the same deployment (left alone; a race created them). */
  duplicates: number[];
}

export class CommentThread {
  private constructor(
    private readonly api: GitHubApi,
    private readonly options: ThreadOptions,
    private commentId: number | undefined,
    private current: CommentState | undefined,
    readonly duplicates: number[],
  ) {}

  /** List the PR's comments (once) and find ours. */
  static async open(api: GitHubApi, options: ThreadOptions): Promise<CommentThread> {
    const [comments, authors] = await Promise.all([api.listComments(options.pr), options.authors]);
    const [ours, ...others] = findStickyComments(comments, options.deploymentId, authors);
    const parsed = ours ? parseComment(ours.body) : undefined;
    const state = parsed ? { ledger: parsed.ledger } : undefined;
    return new CommentThread(
      api,
      options,
      ours?.id,
      state,
      others.map((c) => c.id),
    );
  }

  /** The ledger of our comment, as listed (what cleanup acts on). */
  get ledger(): Ledger | undefined {
    return this.current?.ledger;
  }

  get state(): CommentState | undefined {
    return this.current;
  }

  /** Create or update our comment, unless a newer head commit owns the PR. */
  async write(options: WriteOptions): Promise<UpsertResult> {
    const { pr, deploymentId } = this.options;
    const base = { commentId: this.commentId, created: false, duplicates: this.duplicates };
    // Read the PR while the new content is computed: both come after every result the comment reports.
    const pullRead = this.api.getPull(pr);
    pullRead.catch(() => undefined);
    const next = await options.update(this.current);
    if (next === null) return { ...base, written: false, reason: 'skipped' };

    const updatedAt = (options.now?.() ?? new Date()).toISOString();
    const ledger: Ledger = { ...next.ledger, deploymentId, headSha: options.headSha, runId: options.runId, updatedAt };
    if (ledger.view) ledger.view = { ...ledger.view, updatedAt };
    const body = composeComment({
      deploymentId,
      ledger,
      ...(next.errors ? { render: { errors: next.errors } } : {}),
      ...(next.sectionErrors ? { sectionErrors: next.sectionErrors } : {}),
    });

    // A push since this run started hands the comment to the newer run.
    const pull = await pullRead;
    if (!pull) return { ...base, written: false, reason: 'pr-not-found' };
    if (pull.headSha !== options.headSha) return { ...base, written: false, reason: 'stale' };

    const created = this.commentId === undefined;
    const written = created ? await this.api.createComment(pr, body) : await this.api.updateComment(this.commentId as number, body);
    this.commentId = written.id;
    this.current = { ledger };
    return { ...base, written: true, commentId: written.id, created };
  }
}

/** The ledger of the deployment's comment on the PR, or undefined (one listing). */
export async function readLedger(api: GitHubApi, pr: number, deploymentId: string, authors?: ThreadOptions['authors']): Promise<Ledger | undefined> {
  return (await CommentThread.open(api, { pr, deploymentId, ...(authors ? { authors } : {}) })).ledger;
}

/** Create or update the deployment's sticky comment in one go (one listing, one write). */
export async function upsertStickyComment(api: GitHubApi, options: UpsertOptions): Promise<UpsertResult> {
  const { pr, deploymentId, authors, ...write } = options;
  const thread = await CommentThread.open(api, { pr, deploymentId, ...(authors ? { authors } : {}) });
  return thread.write(write);
}
