/**
 * One sticky PR comment per deployment: a hidden marker, a hidden ledger (what the runs remember of the
 * platform: the evidence cleanup, the merge and the proof act on), and the rendered preview, rewritten
 * whole by every run that still owns the PR's head commit, from that run's own view. The ledger keeps no
 * view: a run renders what it saw (steps of one job carry their view in RUNNER_TEMP, view-store.ts).
 */
import { deflateSync, inflateSync } from 'node:zlib';
import { renderPreview, type RenderOptions } from './render-preview.js';
import { renderSections } from './render-sections.js';
import type { PreviewView, ViewError } from './view.js';
import type { IssueComment } from '../../github/types.js';
import type { BuildRecord, LedgerFacts } from '../../operations/ledger.js';
import { readLeanRecord, type LedgerRecord } from '../../operations/validation-record.js';

/** GitHub rejects bodies over 65 536 characters. */
export const GITHUB_COMMENT_LIMIT = 65_536;
/** What we allow ourselves, leaving room for GitHub's own counting. */
export const COMMENT_LIMIT = 65_000;

/** What the runs of one deployment remember between them; cleanup reads it instead of recomputing names. */
export interface Ledger {
  /** Platform deployment the comment belongs to. */
  deploymentId: string;
  /** Shared branch of the PR. */
  branch?: string;
  /** Dev-mode fork an upload went through (dev-mode uploads only; older ledgers: `forks` has it now). */
  devBranch?: string;
  /** The branch a run of this PR created: the evidence that lets cleanup delete it (docs/faults.md). */
  created?: string;
  /** The branch whose staging environment a run of this PR turned on (off again at the close). */
  stagingOn?: string;
  /** Dev-mode forks runs of this PR opened: the only forks cleanup deletes. */
  forks?: string[];
  /** The last model a run landed on the branch (digest) and the build status read before: the next wait's mark. */
  landed?: LedgerFacts['landed'];
  /** The last build a run accepted as its change's, and whether its model was valid: a merge without a checkout needs it. */
  validated?: LedgerFacts['validated'];
  /** Production's build status read before the merge (a preview of a repository-fed deployment, or the close): the proof's mark. */
  production?: LedgerFacts['production'];
  /** The last push that validated, without its per-file hashes (docs/production.md): the close carries it to the merge. */
  record?: LedgerRecord;
  /** Head commit of the PR when the ledger was written. */
  headSha?: string;
  /** Workflow run that wrote the ledger. */
  runId?: number;
  /** ISO time of the write. */
  updatedAt?: string;
  /** Lifecycle state, e.g. `open`, `merged`, `closed`. */
  state?: string;
  /** What the comment shows: this run's view, in memory only (never encoded; the next run renders its own). */
  view?: PreviewView;
  /** Several models (`deployments`): one section each, in the order of the input; the comment's own view is unused. */
  models?: ModelLedger[];
  /** A model the pull request did not touch: why it was not previewed (its section says so in a line). */
  untouched?: string;
}

/** One model's section: what its runs remember, as a ledger of its own, and its folder. */
export interface ModelLedger extends Ledger {
  key: string;
}

/** The marker key of the several models' comment (deployment ids are numbers: no clash). */
export const MODELS_COMMENT = 'models';

export interface ParsedComment {
  /** Deployment named by the first-line marker; undefined when the comment is not ours. */
  deploymentId: string | undefined;
  /** The ledger, when present, readable and naming the same deployment. */
  ledger: Ledger | undefined;
}

const PREFIX = 'datamodel-ci';
const COMMENT_RE = new RegExp(`^<!-- ${PREFIX}:comment deployment=(\\S+) -->$`);
const LEDGER_RE = new RegExp(`^<!-- ${PREFIX}:ledger ([A-Za-z0-9+/=]*) -->$`, 'm');
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

/** Make `<!--` and `-->` impossible inside rendered content, so no marker or ledger can be forged or closed. */
export function neutraliseComments(content: string): string {
  return content.replace(/\r\n?/g, '\n').replace(/<!--/g, '&lt;!--').replace(/-->/g, '--&gt;');
}

const optionalString = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** What a ledger keeps of `ledger`: every fact, never the view (the run renders its own), each model's section the same way. */
export function leanLedger(ledger: Ledger): Ledger {
  // `stagingUrl`: written by earlier versions, read by nothing.
  const { view: _view, models, ...kept } = ledger as Ledger & { stagingUrl?: unknown };
  delete (kept as { stagingUrl?: unknown }).stagingUrl;
  return { ...kept, ...(models ? { models: models.map((m) => ({ ...leanLedger(m), key: m.key })) } : {}) };
}

/** Largest ledger JSON read back (a deflated ledger is a few kilobytes; anything near this is not ours). */
const MAX_LEDGER_JSON = 1 << 20;

/** Encode a ledger as deflated JSON in base64 (no content can end the hidden comment); its kept fields only. */
export function encodeLedger(ledger: Ledger): string {
  return deflateSync(Buffer.from(JSON.stringify(leanLedger(ledger)), 'utf8'), { level: 9 }).toString('base64');
}

/** Decode a ledger, keeping only well-typed known fields; undefined when unreadable. */
export function decodeLedger(base64: string): Ledger | undefined {
  let raw: unknown;
  try {
    const bytes = Buffer.from(base64, 'base64');
    // Comments written before the ledger was deflated hold the JSON itself (`{` first); zlib's header starts 0x78.
    const json = bytes[0] === 0x7b ? bytes : inflateSync(bytes, { maxOutputLength: MAX_LEDGER_JSON });
    raw = JSON.parse(json.toString('utf8'));
  } catch {
    return undefined;
  }
  return ledgerOf(raw, true);
}

/** A ledger from parsed JSON, its known well-typed fields only (the sections of several models one level down). */
function ledgerOf(raw: unknown, top: boolean): Ledger | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined;
  const r = raw as Record<string, unknown>;
  if (typeof r.deploymentId !== 'string' || !r.deploymentId) return undefined;
  const ledger: Ledger = { deploymentId: r.deploymentId };
  for (const key of ['branch', 'devBranch', 'created', 'stagingOn', 'headSha', 'updatedAt', 'state', 'untouched'] as const) {
    const v = optionalString(r[key]);
    if (v !== undefined) ledger[key] = v;
  }
  if (typeof r.runId === 'number' && Number.isSafeInteger(r.runId)) ledger.runId = r.runId;
  const record = readLeanRecord(r.record);
  if (record) ledger.record = record;
  // An older comment's `view` is not read: the run renders its own.
  Object.assign(ledger, factsOf(r));
  if (top && Array.isArray(r.models)) {
    ledger.models = r.models.flatMap((m: unknown) => {
      const key = optionalString((m as { key?: unknown } | null)?.key);
      const section = key ? ledgerOf(m, false) : undefined;
      return section && key ? [{ ...section, key }] : [];
    });
  }
  return ledger;
}

const buildRecord = (raw: unknown): BuildRecord | undefined => {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const r = raw as Record<string, unknown>;
  if (typeof r.status !== 'string') return undefined;
  return {
    status: r.status,
    ...(typeof r.jobId === 'string' ? { jobId: r.jobId } : {}),
    ...(typeof r.updatedAt === 'number' && Number.isFinite(r.updatedAt) ? { updatedAt: r.updatedAt } : {}),
    ...(typeof r.lastHash === 'string' ? { lastHash: r.lastHash } : {}),
  };
};

const record = (raw: unknown): Record<string, unknown> | undefined =>
  typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as Record<string, unknown>) : undefined;

/** The evidence fields of a ledger, well-typed ones only (a ledger is outside text: a malformed field is dropped). */
function factsOf(r: Record<string, unknown>): Partial<Ledger> {
  const out: Partial<Ledger> = {};
  if (Array.isArray(r.forks)) out.forks = r.forks.filter((f): f is string => typeof f === 'string').slice(0, 10);
  const landed = record(r.landed);
  if (landed && typeof landed.branch === 'string' && typeof landed.digest === 'string') {
    const mark = buildRecord(landed.mark);
    out.landed = { branch: landed.branch, digest: landed.digest, ...(mark ? { mark } : {}) };
  }
  const v = record(r.validated);
  if (v && typeof v.branch === 'string' && typeof v.headSha === 'string' && typeof v.valid === 'boolean') {
    const build = buildRecord(v.build);
    out.validated = {
      branch: v.branch,
      headSha: v.headSha,
      valid: v.valid,
      ...(typeof v.digest === 'string' ? { digest: v.digest } : {}),
      ...(build ? { build } : {}),
    };
  }
  const p = record(r.production);
  const mark = buildRecord(p?.mark);
  if (p && typeof p.branch === 'string' && mark) out.production = { branch: p.branch, mark };
  return out;
}

/** What a ledger remembers of the platform, for the run's ledger (older ledgers' `devBranch` is a fork of the PR's runs too). */
export function ledgerFacts(ledger: Ledger | undefined): LedgerFacts {
  if (!ledger) return {};
  const forks = [...new Set([...(ledger.forks ?? []), ...(ledger.devBranch ? [ledger.devBranch] : [])])];
  return {
    ...(ledger.created ? { created: ledger.created } : {}),
    ...(ledger.stagingOn ? { stagingOn: ledger.stagingOn } : {}),
    ...(forks.length ? { forks } : {}),
    ...(ledger.landed ? { landed: ledger.landed } : {}),
    ...(ledger.validated ? { validated: ledger.validated } : {}),
    ...(ledger.production ? { production: ledger.production } : {}),
  };
}

/** The ledger fields that carry `facts` back: an absent fact is written as absent (a branch deleted is no longer this PR's). */
export function factsPatch(facts: LedgerFacts): Partial<Ledger> {
  return {
    created: facts.created,
    stagingOn: facts.stagingOn,
    forks: facts.forks,
    devBranch: undefined,
    landed: facts.landed,
    validated: facts.validated,
    production: facts.production,
  };
}

/** Read a comment body: its deployment and ledger (a comment that is not ours has no deployment). */
export function parseComment(body: string): ParsedComment {
  const text = body.replace(/\r\n?/g, '\n');
  const firstLine = text.split('\n', 1)[0] ?? '';
  const marker = COMMENT_RE.exec(firstLine);
  const deploymentId = marker?.[1] === undefined ? undefined : decodeDeploymentId(marker[1]);
  if (deploymentId === undefined) return { deploymentId, ledger: undefined };
  // The ledger lives in the header, before anything rendered: nothing the preview shows can stand in for it.
  const header = text.split('\n').slice(0, 2).join('\n');
  const ledgerText = LEDGER_RE.exec(header)?.[1];
  let ledger = ledgerText === undefined ? undefined : decodeLedger(ledgerText);
  if (ledger && ledger.deploymentId !== deploymentId) ledger = undefined;
  return { deploymentId, ledger };
}

export interface ComposeInput {
  deploymentId: string;
  ledger: Ledger;
  /** Every error of the run, for the comment's count and its first errors. */
  render?: Omit<RenderOptions, 'target'>;
  /** Several models: every error of each section's run, by folder. */
  sectionErrors?: Record<string, ViewError[]>;
  /** Maximum body length (default 65 000). */
  limit?: number;
}

/**
 * The comment body: marker, ledger, the rendered view. Too long for the limit, it shows fewer errors and
 * rows, then each section in its one line (its headline), with fewer errors again, until it fits.
 */
export function composeComment(input: ComposeInput): string {
  const limit = input.limit ?? COMMENT_LIMIT;
  const ledger: Ledger = { ...input.ledger, deploymentId: input.deploymentId };
  const header = [commentMarker(input.deploymentId), `<!-- ${PREFIX}:ledger ${encodeLedger(ledger)} -->`].join('\n');
  const view = ledger.view;
  const models = ledger.models;
  if (!view && !models?.length) return `${header}\n`;
  const first = input.render?.commentErrors ?? 15;
  const levels: { detail: 'full' | 'headlines'; shown: number }[] = [];
  for (let shown = first; ; shown = Math.floor(shown / 2)) {
    levels.push({ detail: 'full', shown });
    if (shown === 0) break;
  }
  levels.push({ detail: 'headlines', shown: Math.min(first, 3) }, { detail: 'headlines', shown: 0 });
  let body = header;
  for (const { detail, shown } of levels) {
    const rows = Math.min(shown, input.render?.commentImpactRows ?? shown);
    const rendered = models?.length
      ? renderSections(models, { errors: input.sectionErrors ?? {}, commentErrors: shown, commentImpactRows: rows, detail })
      : renderPreview(view!, { ...input.render, target: 'comment', commentErrors: shown, commentImpactRows: rows, detail });
    body = `${header}\n\n${neutraliseComments(rendered)}`;
    if (body.length <= limit) return body;
  }
  // The view's texts are capped (view.ts): the headlines of even many models fit; past that GitHub refuses the write, said as a warning.
  return body;
}

/** Our comments for `deploymentId`, oldest first; only authors in `authors` (default: any `[bot]` account) count. */
export function findStickyComments(comments: IssueComment[], deploymentId: string, authors?: readonly string[]): IssueComment[] {
  // WHY the author check: anyone can comment on a public PR, and a forged ledger would steer cleanup.
  const trusted = (login: string): boolean => (authors ? authors.includes(login) : login.endsWith('[bot]'));
  return comments.filter((c) => trusted(c.author) && parseComment(c.body).deploymentId === deploymentId).sort((a, b) => a.id - b.id);
}
