/**
 * One sticky PR comment per deployment: a hidden marker, a hidden ledger, and one section per action,
 * rewritten in place by every run that still owns the PR's head commit.
 */
import { escapeHtml, escapeMarkdown, truncate } from './escape.js';
import type { IssueComment } from './types.js';

/** GitHub rejects bodies over 65 536 characters. */
export const GITHUB_COMMENT_LIMIT = 65_536;
/** What we allow ourselves, leaving room for GitHub's own counting. */
export const COMMENT_LIMIT = 65_000;
/** Sections in the order they are shown, whatever order they were written in. */
export const SECTION_ORDER = ['preview', 'upload', 'validate', 'staging', 'dbt', 'merge', 'cleanup'] as const;
export type SectionName = (typeof SECTION_ORDER)[number];
export const DEFAULT_TITLE = 'Data-model preview';

/** Markdown of each section, already escaped by the caller; `undefined` removes the section. */
export interface Sections {
  preview?: string;
  upload?: string;
  validate?: string;
  staging?: string;
  dbt?: string;
  merge?: string;
  cleanup?: string;
  /** Sections of a newer version of this toolkit are kept, after the known ones. */
  [name: string]: string | undefined;
}

/** What the runs of one deployment remember between them; cleanup reads it instead of recomputing names. */
export interface Ledger {
  /** Platform deployment the comment belongs to. */
  deploymentId: string;
  /** Branch of the PR (head ref). */
  branch?: string;
  /** Shared development branch made on the platform for the PR. */
  devBranch?: string;
  /** URL of the staging environment. */
  stagingUrl?: string;
  /** Head commit of the PR when the ledger was written. */
  headSha?: string;
  /** Workflow run that wrote the ledger. */
  runId?: number;
  /** ISO time of the write. */
  updatedAt?: string;
  /** Lifecycle state, e.g. `open`, `merged`, `cleaned`. */
  state?: string;
}

export interface ParsedComment {
  /** Deployment named by the first-line marker; undefined when the comment is not ours. */
  deploymentId: string | undefined;
  /** The ledger, when present, readable and naming the same deployment. */
  ledger: Ledger | undefined;
  sections: Sections;
}

export interface RenderInput {
  deploymentId: string;
  ledger?: Ledger;
  sections: Sections;
  /** Plain text (escaped here); default `Data-model preview`. */
  title?: string;
  /** Link given in the note that replaces a section too large for the comment. */
  runUrl?: string;
  /** Maximum body length (default 65 000). */
  limit?: number;
}

export interface Layout {
  body: string;
  /** Markdown of the sections moved out of the comment, for the job summary. */
  overflow?: string;
  /** Names of the sections replaced by a note. */
  truncated: string[];
}

const PREFIX = 'datamodel-ci';
const COMMENT_RE = new RegExp(`^<!-- ${PREFIX}:comment deployment=(\\S+) -->$`);
const LEDGER_RE = new RegExp(`^<!-- ${PREFIX}:ledger ([A-Za-z0-9+/=]*) -->$`, 'm');
const SECTION_RE = new RegExp(`^<!-- ${PREFIX}:section:([a-z][a-z0-9_]*) -->\\n([\\s\\S]*?)\\n<!-- ${PREFIX}:end:\\1 -->$`, 'gm');
const SECTION_START = `<!-- ${PREFIX}:section:`;
const NAME_RE = /^[a-z][a-z0-9_]*$/;
const ID_SAFE = /^[A-Za-z0-9._~:]$/;

function percent(ch: string): string {
  return [...Buffer.from(ch, 'utf8')].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
}

/** Put a deployment id in a marker: percent-encoded, so it holds no space, `>` or `--`. */
export function encodeDeploymentId(id: string): string {
  let out = '';
  for (const ch of id) out += ID_SAFE.test(ch) || (ch === '-' && !out.endsWith('-')) ? ch : percent(ch);
  return out;
}

function decodeDeploymentId(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/** The first-line marker of the comment of `deploymentId`. */
export function commentMarker(deploymentId: string): string {
  if (!deploymentId) throw new Error('The deployment id of a sticky comment must not be empty');
  return `<!-- ${PREFIX}:comment deployment=${encodeDeploymentId(deploymentId)} -->`;
}

/** Make `<!--` and `-->` impossible inside section content, so no marker or ledger can be forged or closed. */
export function neutraliseComments(content: string): string {
  return content.replace(/\r\n?/g, '\n').replace(/<!--/g, '&lt;!--').replace(/-->/g, '--&gt;');
}

function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** Encode a ledger as base64 JSON (no content can end the hidden comment). */
export function encodeLedger(ledger: Ledger): string {
  return Buffer.from(JSON.stringify(ledger), 'utf8').toString('base64');
}

/** Decode a ledger, keeping only well-typed known fields; undefined when unreadable. */
export function decodeLedger(base64: string): Ledger | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(Buffer.from(base64, 'base64').toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined;
  const r = raw as Record<string, unknown>;
  if (typeof r.deploymentId !== 'string' || !r.deploymentId) return undefined;
  const ledger: Ledger = { deploymentId: r.deploymentId };
  for (const key of ['branch', 'devBranch', 'stagingUrl', 'headSha', 'updatedAt', 'state'] as const) {
    const v = optionalString(r[key]);
    if (v !== undefined) ledger[key] = v;
  }
  if (typeof r.runId === 'number' && Number.isSafeInteger(r.runId)) ledger.runId = r.runId;
  return ledger;
}

/** Read a comment body: its deployment, ledger and sections (a comment that is not ours has no deployment). */
export function parseComment(body: string): ParsedComment {
  const text = body.replace(/\r\n?/g, '\n');
  const firstLine = text.split('\n', 1)[0] ?? '';
  const marker = COMMENT_RE.exec(firstLine);
  const deploymentId = marker?.[1] === undefined ? undefined : decodeDeploymentId(marker[1]);
  const sections: Sections = {};
  if (deploymentId === undefined) return { deploymentId, ledger: undefined, sections };

  // The ledger lives in the header only: nothing a section holds can stand in for it.
  const sectionAt = text.indexOf(`\n${SECTION_START}`);
  const header = sectionAt < 0 ? text : text.slice(0, sectionAt);
  const ledgerText = LEDGER_RE.exec(header)?.[1];
  let ledger = ledgerText === undefined ? undefined : decodeLedger(ledgerText);
  if (ledger && ledger.deploymentId !== deploymentId) ledger = undefined;

  for (const m of text.matchAll(SECTION_RE)) {
    const name = m[1] as string;
    if (sections[name] !== undefined) continue;
    sections[name] = (m[2] ?? '').replace(/^\n/, '').replace(/\n$/, '');
  }
  return { deploymentId, ledger, sections };
}

/** Section names in display order: the known ones first, in their fixed order, then any others by name. */
export function orderSections(sections: Sections): string[] {
  const names = Object.keys(sections).filter((n) => sections[n] !== undefined);
  for (const n of names) {
    if (!NAME_RE.test(n)) throw new Error(`Invalid section name ${JSON.stringify(n)}: expected lower-case letters, digits, _`);
  }
  const known: readonly string[] = SECTION_ORDER;
  return [
    ...SECTION_ORDER.filter((n) => names.includes(n)),
    ...names.filter((n) => !known.includes(n)).sort(),
  ];
}

function renderSection(name: string, content: string): string {
  return `<!-- ${PREFIX}:section:${name} -->\n\n${content}\n\n<!-- ${PREFIX}:end:${name} -->`;
}

function truncationNote(runUrl: string | undefined, runId: number | undefined): string {
  if (runUrl && /^https?:\/\//i.test(runUrl)) {
    const label = runId === undefined ? escapeMarkdown(runUrl) : String(runId);
    return `… truncated: see the job summary of run <a href="${escapeHtml(runUrl)}">${label}</a>`;
  }
  return '… truncated: see the job summary of this run';
}

/** Render the comment and, when it would be too long, move the largest sections out into `overflow`. */
export function layoutComment(input: RenderInput): Layout {
  const limit = input.limit ?? COMMENT_LIMIT;
  const ledger: Ledger | undefined = input.ledger ? { ...input.ledger, deploymentId: input.deploymentId } : undefined;
  const header = [
    commentMarker(input.deploymentId),
    ...(ledger ? [`<!-- ${PREFIX}:ledger ${encodeLedger(ledger)} -->`] : []),
    `### ${escapeMarkdown(truncate(input.title ?? DEFAULT_TITLE, 200))}`,
  ].join('\n');

  const names = orderSections(input.sections);
  const contents = new Map(names.map((n) => [n, neutraliseComments(input.sections[n] as string)]));
  const render = (): string => [header, ...names.map((n) => renderSection(n, contents.get(n) as string))].join('\n\n');

  const truncated: string[] = [];
  const moved: string[] = [];
  const note = neutraliseComments(truncationNote(input.runUrl, ledger?.runId));
  let body = render();
  while (body.length > limit) {
    const candidates = names.filter((n) => !truncated.includes(n) && (contents.get(n) as string).length > note.length);
    const largest = candidates.sort((a, b) => (contents.get(b) as string).length - (contents.get(a) as string).length)[0];
    if (largest === undefined) {
      throw new Error(`The sticky comment is ${body.length} characters even with every section truncated (limit ${limit})`);
    }
    moved.push(`### ${largest}\n\n${contents.get(largest) as string}\n`);
    contents.set(largest, note);
    truncated.push(largest);
    body = render();
  }
  return moved.length ? { body, overflow: moved.join('\n'), truncated } : { body, truncated };
}

/** Render a comment body (see `layoutComment` for the overflow). */
export function renderComment(input: RenderInput): string {
  return layoutComment(input).body;
}

/** Our comments for `deploymentId`, oldest first; only authors in `authors` (default: any `[bot]` account) count. */
export function findStickyComments(comments: IssueComment[], deploymentId: string, authors?: readonly string[]): IssueComment[] {
  // WHY the author check: anyone can comment on a public PR, and a forged ledger would steer cleanup.
  const trusted = (login: string): boolean => (authors ? authors.includes(login) : login.endsWith('[bot]'));
  return comments
    .filter((c) => trusted(c.author) && parseComment(c.body).deploymentId === deploymentId)
    .sort((a, b) => a.id - b.id);
}
