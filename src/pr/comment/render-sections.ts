/**
 * The comment of several models (`deployments`): one heading that adds them up, then a section per model
 * in the input's order, each its own preview (state, steps, impact, numbers, links, errors) under a
 * heading naming its folder and deployment, or one line saying why it was not previewed.
 */
import type { ModelLedger } from './ledger.js';
import { code, text } from './markdown.js';
import { PREVIEW_TITLE, renderPreview } from './render-preview.js';
import type { PreviewState, ViewError } from './view.js';

export interface SectionsOptions {
  /** Every error of each section's run, by folder (the ledger keeps the first ones). */
  errors: Record<string, ViewError[]>;
  commentErrors?: number;
  commentImpactRows?: number;
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

const stateOf = (m: ModelLedger): SectionState | undefined => (m.view ? m.view.state : m.untouched ? 'untouched' : undefined);

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
  if (!m.view) return `#### ⏭️ ${name} · not previewed\n\nThe pull request changes no file under ${folder(m)}: nothing to preview.\n`;
  const errors = options.errors[m.key];
  const body = renderPreview(m.view, {
    target: 'comment',
    ...(errors ? { errors } : {}),
    ...(options.commentErrors !== undefined ? { commentErrors: options.commentErrors } : {}),
    ...(options.commentImpactRows !== undefined ? { commentImpactRows: options.commentImpactRows } : {}),
  });
  const [first = '', ...rest] = body.split('\n');
  return [first.replace(/^### /, '#### ').replace(PREVIEW_TITLE, name), ...rest].join('\n');
}

/** The whole comment body of several models (the marker and ledger go above it). */
export function renderSections(models: ModelLedger[], options: SectionsOptions): string {
  const shown = models.filter((m) => stateOf(m) !== undefined);
  const states = shown.map((m) => stateOf(m) as SectionState);
  return `${[heading(states), ...shown.map((m) => section(m, options))]
    .join('\n\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim()}\n`;
}
