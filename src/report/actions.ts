/** The Reporter of a GitHub Actions step: @actions/core logs, annotations, groups, masks and job summary. */
import * as core from '@actions/core';
import type { AnnotationProps, Reporter } from './reporter.js';

const props = (p?: AnnotationProps): core.AnnotationProperties | undefined =>
  p ? { title: p.title, file: p.file, startLine: p.line, ...(p.line && p.column ? { startColumn: p.column } : {}) } : undefined;

/**
 * A log line that cannot be a workflow command: outside text (file names, platform messages, dbt logs)
 * may hold a line break followed by `::error::`, or a legacy `##[error]` anywhere in a line. A zero-width
 * space after the leading blanks and inside `##[` keeps the text readable and the runner deaf to it.
 */
export function inertLog(message: string): string {
  return message
    .split(/\r?\n|\r/)
    .map((line) => line.replace(/^(\s*)::/, '$1\u200B::').replace(/##\[/g, '##\u200B['))
    .join('\n');
}

export class ActionsReporter implements Reporter {
  private readonly parts: string[] = [];
  private phase = '';

  info(message: string) {
    core.info(inertLog(message));
  }
  debug(message: string) {
    core.debug(message);
  }
  notice(message: string, p?: AnnotationProps) {
    core.notice(message, props(p));
  }
  warning(message: string, p?: AnnotationProps) {
    core.warning(message, props(p));
  }
  error(message: string, p?: AnnotationProps) {
    core.error(message, props(p));
  }
  group<T>(name: string, fn: () => Promise<T>): Promise<T> {
    return core.group(name, fn);
  }
  summary(markdown: string) {
    this.parts.push(markdown);
  }
  secret(value: string) {
    core.setSecret(value);
  }
  /** One log line per phase: a CI log is read afterwards, so redrawing a line would only repeat it. */
  progress(phase: string, detail?: string) {
    if (!phase || phase === this.phase) return;
    this.phase = phase;
    core.info(detail ? `${phase}: ${detail}` : phase);
  }
  setOutput(name: string, value: string | number | boolean) {
    core.setOutput(name, String(value));
  }
  /** Write the collected summary to GITHUB_STEP_SUMMARY. */
  async flush(): Promise<void> {
    if (!this.parts.length || !process.env.GITHUB_STEP_SUMMARY) return;
    await core.summary.addRaw(this.parts.join('\n\n'), true).write();
    this.parts.length = 0;
  }
}
