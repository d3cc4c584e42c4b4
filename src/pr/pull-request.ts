/**
 * The pull request's side of a run: the event that started it, GitHub (when a token was given) and our
 * comment thread on it, opened once. Every write to GitHub goes through this room (src/pr/).
 */
import { branchForPr, prOfBranch, prOfQueueBranch } from '../branch-names.js';
import { InputError } from '../client/errors.js';
import { messageOf } from '../client/errors.js';
import type { RunContext } from '../github/event.js';
import type { GitHubApi } from '../github/types.js';
import type { Reporter } from '../report/reporter.js';
import { CommentThread, readLedger } from './comment/thread.js';
import { ledgerFacts } from './comment/ledger.js';
import { RunLedger, type LedgerFacts } from '../operations/ledger.js';

/** The check run that carries a validation: what branch protection requires. */
export const CHECK_NAME = 'datamodel-ci / validation';

/** What the pull request's side needs of the run's settings. */
export interface PullRequestSettings {
  deploymentId: number;
  /** The platform's address: the comment links to the deployment's page there. */
  apiUrl: string;
  /** A dry run writes nothing to GitHub. */
  dryRun: boolean;
  branchPrefix: string;
  /** One model of several (`deployments`): its folder names its check run and GitHub deployment. */
  label?: string;
}

/** The comment a side writes to: the PR's own thread, or (several models) one section of it. */
export interface PreviewThread {
  readonly ledger: CommentThread['ledger'];
  write: CommentThread['write'];
}

/** The account GITHUB_TOKEN writes as. */
const ACTIONS_BOT = 'github-actions[bot]';

export class PullRequestSide {
  private opened: Promise<PreviewThread | undefined> | undefined;
  private ledger: Promise<RunLedger> | undefined;

  constructor(
    readonly event: RunContext,
    readonly github: GitHubApi | undefined,
    readonly reporter: Reporter,
    readonly settings: PullRequestSettings,
    /** Where the comment goes instead of the PR's own thread (a section of the several models' comment). */
    section?: () => Promise<PreviewThread | undefined>,
  ) {
    if (section) this.opened = section();
  }

  /** The commit the run checks: the pull request's head, or the merge queue group's. */
  get headSha(): string | undefined {
    return this.event.pr?.headSha ?? this.event.group?.headSha;
  }

  /** The validation check's name: `datamodel-ci / validation`, with the model's folder when there are several. */
  get checkName(): string {
    return this.checkNameOf('validation');
  }

  /** A check's name: `datamodel-ci / <facet>`, with the model's folder when there are several (docs/security.md). */
  checkNameOf(facet: 'validation' | 'impact' | 'numbers' | 'access' | 'cost' | 'evals'): string {
    const name = `datamodel-ci / ${facet}`;
    return this.settings.label ? `${name} (${this.settings.label})` : name;
  }

  /** The PR's conversation with our comment (listed once per run), when there is a PR and a token. */
  thread(): Promise<PreviewThread | undefined> {
    const { pr } = this.event;
    const github = this.github;
    if (!pr || !github) return Promise.resolve(undefined);
    this.opened ??= this.openThread(String(this.settings.deploymentId));
    return this.opened;
  }

  /** List the PR's comments and find ours for `key` (a deployment id, or the several models' comment). */
  openThread(key: string): Promise<CommentThread | undefined> {
    const { pr } = this.event;
    const github = this.github;
    if (!pr || !github) return Promise.resolve(undefined);
    return CommentThread.open(github, { pr: pr.number, deploymentId: key, authors: this.tokenIdentity(github) }).catch((e: unknown) => {
      this.reporter.warning(`could not read the pull request comments: ${messageOf(e)}`);
      return undefined;
    });
  }

  /**
   * The shared branch: `given` (the input), else `<prefix>pr-<n>` of the event. The ledger only confirms
   * it: a ledger naming any other branch is ignored, so no comment can steer a write or a delete elsewhere.
   */
  async resolveBranch(given: string | undefined): Promise<string> {
    if (given) return given;
    const ledger = (await this.thread())?.ledger;
    const pr = this.event.pr;
    if (pr) {
      const ours = branchForPr(this.settings.branchPrefix, pr.number);
      // A repository-fed preview records the PR's own head branch: not a stray name.
      if (ledger?.branch && ledger.branch !== ours && ledger.branch !== pr.headRef) {
        this.reporter.warning(`the PR comment's ledger names branch ${JSON.stringify(ledger.branch)}, not this PR's ${ours}: ignoring it`);
      }
      return ours;
    }
    if (ledger?.branch) return ledger.branch;
    throw new InputError('branch', undefined, 'a branch name (this run has no pull_request event to derive it from)');
  }

  /**
   * The run's ledger for this side: what the comment's ledger says this pull request's runs made (read
   * once), and what this run records. The operations take their evidence from it (src/operations/door.ts).
   */
  runLedger(): Promise<RunLedger> {
    this.ledger ??= this.thread().then((t) => RunLedger.of(ledgerFacts(t?.ledger)));
    return this.ledger;
  }

  /** The facts this run's ledger holds now, when it was made (publish writes them back into the comment). */
  async ledgerNow(): Promise<LedgerFacts | undefined> {
    return this.ledger ? (await this.ledger).toFacts() : undefined;
  }

  /** `branch` is a name the toolkit generates (`<prefix>pr-<n>`, `<prefix>mq-…`): its ref upstream may go with it. */
  generatedName(branch: string): boolean {
    const prefix = this.settings.branchPrefix;
    return prOfBranch(prefix, branch) !== undefined || prOfQueueBranch(prefix, branch) !== undefined;
  }

  /** What pull request `number`'s comment's ledger records (the sweep's evidence); undefined without one. */
  async ledgerOf(number: number): Promise<LedgerFacts | undefined> {
    const github = this.github;
    if (!github) return undefined;
    const ledger = await readLedger(github, number, String(this.settings.deploymentId), this.tokenIdentity(github)).catch(() => undefined);
    return ledger && ledgerFacts(ledger);
  }

  /** True when the PR's head moved on since this run started: a stale run stops quietly. */
  async isStale(): Promise<boolean> {
    const pr = this.event.pr;
    if (!pr || !this.github) return false;
    const current = await this.github.getPull(pr.number).catch(() => undefined);
    return !!current && current.headSha !== pr.headSha;
  }

  /** The commit message of an upload: `given` (the input), else one naming the PR and its head. */
  commitMessage(given?: string): string {
    if (given) return given;
    const pr = this.event.pr;
    return pr ? `datamodel-ci: PR #${pr.number} at ${pr.headSha.slice(0, 7)}` : 'datamodel-ci upload';
  }

  /** Who the token is: only its own comments (and issues) are ours (another bot's forged ledger steers nothing). */
  async tokenIdentity(github: GitHubApi): Promise<readonly string[]> {
    const login = await github.login?.();
    if (login) return [login];
    this.reporter.warning(`could not learn which account the github-token acts as: trusting only comments by ${ACTIONS_BOT}`);
    return [ACTIONS_BOT];
  }
}
