/**
 * How an operation talks to the outside: logs, annotations, job summary, secrets. The Actions entry
 * wires it to @actions/core; the CLI to the terminal; tests to an array. No @actions import here.
 */
export interface AnnotationProps {
  /** Repository path of the file. */
  file?: string;
  line?: number;
  /** 1-based; only with a line. */
  column?: number;
  title?: string;
}

export interface Reporter {
  info(message: string): void;
  debug(message: string): void;
  notice(message: string, props?: AnnotationProps): void;
  warning(message: string, props?: AnnotationProps): void;
  /** An error annotation (does not fail the step by itself). */
  error(message: string, props?: AnnotationProps): void;
  /** Run `fn` inside a collapsible log group that is closed on error too. */
  group<T>(name: string, fn: () => Promise<T>): Promise<T>;
  /** Append markdown to the job summary. */
  summary(markdown: string): void;
  /** Mask a secret in every later log line. */
  secret(value: string): void;
  /**
   * Progress of long work (`phase` such as "upload to preview-pr-12", `detail` such as "120/300 files"):
   * a redrawn line in a terminal, one log line per phase in GitHub Actions, nothing in a pipe or file.
   * An empty phase ends it.
   */
  progress(phase: string, detail?: string): void;
}

/** A reporter that records everything (tests, `--json` runs). */
export class MemoryReporter implements Reporter {
  readonly lines: { level: string; message: string; props?: AnnotationProps }[] = [];
  readonly summaries: string[] = [];
  readonly secrets: string[] = [];
  /** Every progress update, as `phase: detail`. */
  readonly progressLines: string[] = [];
  info(message: string) {
    this.lines.push({ level: 'info', message });
  }
  debug(message: string) {
    this.lines.push({ level: 'debug', message });
  }
  notice(message: string, props?: AnnotationProps) {
    this.lines.push({ level: 'notice', message, props });
  }
  warning(message: string, props?: AnnotationProps) {
    this.lines.push({ level: 'warning', message, props });
  }
  error(message: string, props?: AnnotationProps) {
    this.lines.push({ level: 'error', message, props });
  }
  async group<T>(name: string, fn: () => Promise<T>): Promise<T> {
    this.lines.push({ level: 'group', message: name });
    try {
      return await fn();
    } finally {
      this.lines.push({ level: 'endgroup', message: name });
    }
  }
  summary(markdown: string) {
    this.summaries.push(markdown);
  }
  secret(value: string) {
    this.secrets.push(value);
  }
  progress(phase: string, detail?: string) {
    if (phase) this.progressLines.push(detail ? `${phase}: ${detail}` : phase);
  }
  /** Everything printed, as one text (to scan for secrets). */
  text(): string {
    return [...this.lines.map((l) => `${l.level} ${l.message} ${JSON.stringify(l.props ?? {})}`), ...this.summaries].join('\n');
  }
}
