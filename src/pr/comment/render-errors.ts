/**
 * The validation's errors as the comment and the job summary list them: grouped by file, each a link to
 * its line at the head commit, worded by the one rewriter of the compiler's text (model/compiler-text.ts:
 * a long list of allowed values as its count, a "did you mean"). `errorLine` is the one place an error's text is rendered. The comment shows the first
 * errors, the rest folded or counted; the job summary shows them all.
 */
import { compilerMarkdown } from '../../model/compiler-text.js';
import { code, codeLink, cut, link, pathInUrl, text } from './markdown.js';
import type { PreviewView, ViewError } from './view.js';
import { plural } from '../../report/plural.js';

/** Errors of one file shown before the rest of the file's list is collapsed. */
const OPEN_PER_FILE = 5;
export const DEFAULT_COMMENT_ERRORS = 15;

/** A path GitHub can link at a commit: relative to the repository, not a runner's absolute path. */
const linkable = (v: PreviewView, file: string | undefined): file is string => !!file && !!v.repoUrl && !/^(?:\/|[A-Za-z]:[\\/])/.test(file);

/** How many files the errors are in. */
export function files(errors: ViewError[]): number {
  return new Set(errors.map((e) => e.file ?? '')).size;
}

/** One error: its line (a link at the head commit), the message with its hint, and its notes under it. */
export function errorLine(v: PreviewView, e: ViewError): string {
  // The one rewriter's words (the terminal and the annotations say the same), the names in code spans.
  const said = compilerMarkdown(e.message, (m) => text(cut(m, 600)), code);
  // What the model files add and the files the error's echoes are on: one line each, under it.
  const under = (e.notes ?? []).map((n) => `\n  - ${text(cut(n, 300))}`).join('');
  if (linkable(v, e.file) && e.line) return `- ${link(`line ${e.line}`, `${v.repoUrl}/blob/${v.headSha}/${pathInUrl(e.file)}#L${e.line}`)}: ${said}${under}`;
  if (e.line) return `- line ${e.line}: ${said}${under}`;
  return `- ${said}${under}`;
}

/** The errors grouped by file, in the order they came: at most `limit` (the rest counted, pointing to the job summary). */
export function errorBlock(v: PreviewView, errors: ViewError[], target: 'comment' | 'summary', limit: number): string[] {
  const groups = new Map<string, ViewError[]>();
  for (const e of errors) {
    const key = e.file ?? '';
    groups.set(key, [...(groups.get(key) ?? []), e]);
  }
  const out: string[] = ['**Errors**', ''];
  let shown = 0;
  for (const [file, list] of groups) {
    if (shown >= limit) break;
    const title = file ? (linkable(v, file) ? codeLink(file, `${v.repoUrl}/blob/${v.headSha}/${pathInUrl(file)}`) : code(file)) : 'No file named';
    out.push(`${title} · ${plural(list.length, 'error')}`, '');
    const take = list.slice(0, Math.max(0, limit - shown));
    const open = target === 'comment' ? take.slice(0, OPEN_PER_FILE) : take;
    const folded = target === 'comment' ? take.slice(OPEN_PER_FILE) : [];
    out.push(...open.map((e) => errorLine(v, e)), '');
    if (folded.length) {
      out.push(
        `<details><summary>${plural(folded.length, 'more error')} in this file</summary>`,
        '',
        ...folded.map((e) => errorLine(v, e)),
        '',
        '</details>',
        '',
      );
    }
    shown += take.length;
  }
  const total = v.validation?.errorCount ?? errors.length;
  if (shown < total) {
    const rest = `${plural(total - shown, 'more error')} ${total - shown === 1 ? 'is' : 'are'} listed in the job summary`;
    out.push(v.runUrl ? `… ${link(rest, v.runUrl)}.` : `… ${rest}.`, '');
  }
  return out;
}
