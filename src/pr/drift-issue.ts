/**
 * One GitHub issue per deployment for the drift watch: opened when production differs (the files, the
 * members, since when, the likely cause, the last record's commit), rewritten in place by later runs,
 * closed when production matches again and reopened (never a second one) if it differs later. The issue
 * is found by its label, then by the token's own login (GitHub drops labels in silence for some tokens),
 * and only an issue the token's own login wrote, whose hidden first-line marker names the deployment,
 * counts: anyone may open an issue with the same label or text.
 */
import { messageOf } from '../client/errors.js';
import type { GitHubApi, IssueInfo } from '../github/types.js';
import type { DriftReport } from '../operations/drift.js';
import type { Reporter } from '../report/reporter.js';
import { cut, link, text } from './comment/markdown.js';
import { renderDrift, type DriftContext } from './drift-render.js';

/** What the marker remembers between runs. */
interface IssueState {
  /** ISO time the watch first saw this drift (kept while it lasts). */
  since?: string;
}

const MARKER = /^<!-- datamodel-ci:drift deployment=(\d+)(?: state=([A-Za-z0-9+/=]*))? -->/;

/** The issue's first line: the deployment, and the state as base64 JSON (no `-->` can appear in it). */
export function driftMarker(deploymentId: number, state: IssueState): string {
  return `<!-- datamodel-ci:drift deployment=${deploymentId} state=${Buffer.from(JSON.stringify(state)).toString('base64')} -->`;
}

/** The deployment and state an issue body's marker names, or undefined when its first line is no marker. */
export function parseDriftMarker(body: string): { deploymentId: number; state: IssueState } | undefined {
  const m = MARKER.exec(body.replace(/\r\n?/g, '\n').split('\n', 1)[0] ?? '');
  if (!m) return undefined;
  let state: IssueState = {};
  try {
    const raw: unknown = JSON.parse(Buffer.from(m[2] ?? '', 'base64').toString('utf8'));
    const since = (raw as { since?: unknown } | null)?.since;
    if (typeof since === 'string' && !Number.isNaN(Date.parse(since))) state = { since };
  } catch {
    // A marker whose state cannot be read still names the issue; its time is forgotten.
  }
  return { deploymentId: Number(m[1]), state };
}

export const driftTitle = (deploymentId: number) => `datamodel-ci: production of deployment ${deploymentId} differs from the model in git`;

/** Where the issue goes and who wrote ours. */
export interface IssueKeeper {
  github: GitHubApi;
  /** The token's own login(s): only issues they wrote are ours. */
  authors: Promise<readonly string[]>;
  label: string;
  /** Write nothing; say what would be written. */
  dryRun: boolean;
  reporter: Reporter;
}

export interface IssueOutcome {
  action: 'opened' | 'updated' | 'reopened' | 'closed' | 'none';
  number?: number;
  url?: string;
}

/** GitHub's limit on an issue body, with room for its own counting. */
const BODY_LIMIT = 65_000;

/** The deployment's issues the token wrote: found by label, else by the token's login. */
async function ourIssues(k: IssueKeeper, deploymentId: number): Promise<IssueInfo[]> {
  const authors = await k.authors;
  const ours = (list: IssueInfo[]) => list.filter((i) => authors.includes(i.author) && parseDriftMarker(i.body)?.deploymentId === deploymentId);
  const byLabel = ours(await k.github.listIssues({ label: k.label }));
  if (byLabel.length) return byLabel;
  for (const creator of authors) {
    const found = ours(await k.github.listIssues({ creator }));
    if (found.length) return found;
  }
  return [];
}

/** The issue a run keeps: the oldest open one, else the newest closed one (to reopen). */
function pick(issues: IssueInfo[]): { issue?: IssueInfo; others: IssueInfo[] } {
  const open = issues.filter((i) => i.state === 'open').sort((a, b) => a.number - b.number);
  const issue = open[0] ?? [...issues].sort((a, b) => b.number - a.number)[0];
  return { issue, others: open.slice(1) };
}

/** The body of an open issue: the marker, then the report. */
function driftBody(r: DriftReport, ctx: DriftContext): string {
  return cut(`${driftMarker(ctx.deploymentId, { since: ctx.since })}\n${renderDrift(r, ctx, 'issue')}`, BODY_LIMIT);
}

/** The body of a closed issue: production matches again, and what differed when last seen. */
function closedBody(previous: IssueInfo, ctx: DriftContext): string {
  const since = parseDriftMarker(previous.body)?.state.since;
  const last = previous.body.replace(/\r\n?/g, '\n').split('\n').slice(1).join('\n').trim();
  const head = [
    driftMarker(ctx.deploymentId, {}),
    '### ✅ Production matches the model in git again',
    '',
    `Checked ${text(ctx.checkedAt)}${ctx.runUrl ? ` (${link('run', ctx.runUrl)})` : ''}${since ? `; it had differed since ${text(since)}` : ''}.`,
    '',
    '<details><summary>What differed when last seen</summary>',
    '',
  ].join('\n');
  return `${head}${cut(last, BODY_LIMIT - head.length - 20)}\n\n</details>`;
}

/** Open, rewrite, reopen or close the deployment's drift issue for this run's report; a refusal is a warning, not a failure. */
export async function keepDriftIssue(k: IssueKeeper, r: DriftReport, ctx: DriftContext): Promise<IssueOutcome> {
  try {
    return await keep(k, r, ctx);
  } catch (e) {
    const hint = /not accessible|403/i.test(messageOf(e)) ? ' (the job needs `permissions: issues: write`)' : '';
    k.reporter.warning(`the drift issue of deployment ${ctx.deploymentId} could not be written: ${messageOf(e)}${hint}`);
    return { action: 'none' };
  }
}

async function keep(k: IssueKeeper, r: DriftReport, ctx: DriftContext): Promise<IssueOutcome> {
  const { issue, others } = pick(await ourIssues(k, ctx.deploymentId));
  if (others.length)
    k.reporter.warning(
      `more drift issues of deployment ${ctx.deploymentId} are open (${others.map((i) => `#${i.number}`).join(', ')}): #${issue!.number} is kept, the others left alone`,
    );
  const found = issue ? { number: issue.number, url: issue.htmlUrl } : {};
  const labels = issue && !issue.labels.includes(k.label) ? { labels: [...issue.labels, k.label] } : {};
  const would = (what: string) => k.reporter.info(`dry run: would ${what}`);
  if (r.status === 'in-sync') {
    if (issue?.state !== 'open') return { action: 'none', ...found };
    if (k.dryRun) return (would(`close drift issue #${issue.number}`), { action: 'none', ...found });
    const closed = await k.github.updateIssue(issue.number, { body: closedBody(issue, ctx), state: 'closed' });
    k.reporter.info(`closed drift issue #${closed.number}: production matches the model in git again`);
    return { action: 'closed', number: closed.number, url: closed.htmlUrl };
  }
  if (r.status === 'not-proven') {
    // A run that proved nothing leaves the issue as the last run that did left it.
    if (issue?.state === 'open') k.reporter.info(`drift issue #${issue.number} left as it was: this run proved nothing either way`);
    return { action: 'none', ...found };
  }
  const open = issue?.state === 'open';
  const since = (open ? parseDriftMarker(issue.body)?.state.since : undefined) ?? ctx.checkedAt;
  const body = driftBody(r, { ...ctx, since });
  if (!issue) {
    if (k.dryRun) return (would('open a drift issue'), { action: 'none' });
    const made = await k.github.createIssue({ title: driftTitle(ctx.deploymentId), body, labels: [k.label] });
    if (!made.labels.includes(k.label)) k.reporter.info(`GitHub did not keep the label ${k.label} on issue #${made.number}: later runs find it by its author`);
    k.reporter.info(`opened drift issue #${made.number}`);
    return { action: 'opened', number: made.number, url: made.htmlUrl };
  }
  if (k.dryRun) return (would(`${open ? 'update' : 'reopen'} drift issue #${issue.number}`), { action: 'none', ...found });
  const done = await k.github.updateIssue(issue.number, { title: driftTitle(ctx.deploymentId), body, ...(open ? {} : { state: 'open' }), ...labels });
  k.reporter.info(`${open ? 'updated' : 'reopened'} drift issue #${done.number}`);
  return { action: open ? 'updated' : 'reopened', number: done.number, url: done.htmlUrl };
}
