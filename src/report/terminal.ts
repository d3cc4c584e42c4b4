/** The Reporter of a terminal run: plain lines, secrets masked, annotations as `file:line[:column]: message`. */
import type { AnnotationProps, Reporter } from './reporter.js';

export class TerminalReporter implements Reporter {
  private readonly secrets = new Set<string>();
  readonly summaries: string[] = [];

  constructor(
    private readonly out: (line: string) => void,
    private readonly err: (line: string) => void,
    private readonly verbose = false,
  ) {}

  /** `text` with every known secret replaced. */
  masked(text: string): string {
    let s = text;
    for (const secret of this.secrets) s = s.split(secret).join('***');
    return s;
  }
  private where(p?: AnnotationProps): string {
    if (!p?.file) return '';
    if (!p.line) return `${p.file}: `;
    return p.column ? `${p.file}:${p.line}:${p.column}: ` : `${p.file}:${p.line}: `;
  }
  info(message: string) {
    this.out(this.masked(message));
  }
  debug(message: string) {
    if (this.verbose) this.err(this.masked(`debug: ${message}`));
  }
  notice(message: string, p?: AnnotationProps) {
    this.out(this.masked(`notice: ${this.where(p)}${message}`));
  }
  warning(message: string, p?: AnnotationProps) {
    this.err(this.masked(`warning: ${this.where(p)}${message}`));
  }
  error(message: string, p?: AnnotationProps) {
    this.err(this.masked(`error: ${this.where(p)}${message}`));
  }
  async group<T>(name: string, fn: () => Promise<T>): Promise<T> {
    this.out(this.masked(`== ${name}`));
    return fn();
  }
  summary(markdown: string) {
    this.summaries.push(markdown);
  }
  secret(value: string) {
    if (value && value.length >= 6) this.secrets.add(value);
  }
}
