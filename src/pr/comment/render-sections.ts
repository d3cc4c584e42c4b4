/**
 * The comment of several models (`deployments`): one heading that adds them up, then a section per model
 * in the input's order, each its own preview (state, verdict, errors, steps, impact, numbers, links)
 * under a heading naming its folder and deployment, or one line saying why it was not previewed; the
 * commit and the run once, at the end.
 */
import type { ModelLedger } from './ledger.js';
import { code, text } from './markdown.js';
import { PREVIEW_TITLE, renderPreview, trailLine, type RenderOptions } from './render-preview.js';
import type { PreviewState, ViewError } from './view.js';

export interface SectionsOptions {
  /** Every error of each section's run, by folder (the view keeps the first ones). */
  errors: Record<string, ViewError[]>;
  commentErrors?: number;
  commentImpactRows?: number;
  detail?: RenderOptions['detail'];
}

type SectionState = PreviewState | 'untouched';

/** The words of the heading's tally, in the order it lists them (the worst first). */
const WORDS: Record<SectionState, string> = {
  failed: 'failed',
  invalid: 'invalid',
  updating: 'updating',
  ready: 'ready',
  merged: 'merged',
  closed: 'closed',
  skipped: 'skipped',
  untouched: 'not previewed',
};

/** A section this run has not written yet (its ledger only: the view is the run's) waits for it. */
const stateOf = (m: ModelLedger): SectionState | undefined =>
  m.view ? m.view.state : m.state === 'untouched' || (m.untouched && !m.branch) ? 'untouched' : m.branch ? 'updating' : undefined;

const folder = (m: ModelLedger) => (m.key === '.' ? 'the repository' : code(`${m.key}/`));

/** The heading that adds the models up: the worst state leads. */
function heading(states: SectionState[]): string {
  const icon = states.some((s) => s === 'invalid' || s === 'failed')
    ? '❌'
    : states.includes('updating')
      ? '⏳'
      : states.every((s) => s === 'merged' || s === 'untouched') && states.includes('merged')
        ? '🔀'
        : states.every((s) => s === 'closed' || s === 'merged' || s === 'untouched')
          ? ''
          : states.every((s) => s === 'untouched' || s === 'skipped')
            ? '⏭️'
            : '✅';
  const tally = (Object.keys(WORDS) as SectionState[])
    .map((w) => [WORDS[w], states.filter((s) => s === w).length] as const)
    .filter(([, n]) => n > 0)
    .map(([word, n]) => `${n} ${word}`)
    .join(', ');
  return `### ${icon ? `${icon} ` : ''}${PREVIEW_TITLE}s · ${states.length} models: ${tally}`;
}

/** One model's section: its preview under a heading of its own, or the line saying why there is none. */
function section(m: ModelLedger, options: SectionsOptions): string {
  const name = `${folder(m)} (deployment ${text(m.deploymentId)})`;
  if (!m.view && stateOf(m) === 'updating') return `#### ⏳ ${name} · waiting for this run\n\nThis run has not written this model's section yet.\n`;
  if (!m.view) return `#### ⏭️ ${name} · not previewed\n\nThe pull request changes no file under ${folder(m)}: nothing to preview.\n`;
  const errors = options.errors[m.key];
  const body = renderPreview(m.view, {
    target: 'comment',
    trail: false,
    ...(errors ? { errors } : {}),
    ...(options.commentErrors !== undefined ? { commentErrors: options.commentErrors } : {}),
    ...(options.commentImpactRows !== undefined ? { commentImpactRows: options.commentImpactRows } : {}),
    ...(options.detail ? { detail: options.detail } : {}),
  });
  const [first = '', ...rest] = body.split('\n');
  return [first.replace(/^### /, '#### ').replace(PREVIEW_TITLE, name), ...rest].join('\n');
}

/** The whole comment body of several models (the marker and ledger go above it). */
export function renderSections(models: ModelLedger[], options: SectionsOptions): string {
  const shown = models.filter((m) => stateOf(m) !== undefined);
  const states = shown.map((m) => stateOf(m) as SectionState);
  // The commit and the run, once: of the latest write (every section this run wrote shares them).
  const latest = shown
    .map((m) => m.view)
    .filter((v) => v !== undefined)
    .sort((a, b) => (b.updatedAt ?? '').localeCompare(a.updatedAt ?? ''))[0];
  return `${[heading(states), ...shown.map((m) => section(m, options)), ...(latest ? [trailLine(latest)] : [])]
    .join('\n\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim()}\n`;
}
