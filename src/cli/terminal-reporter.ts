/** The Reporter of a terminal run: plain lines, secrets masked, annotations as `file:line: message`. */
import type { AnnotationProps, Reporter } from '../workflows/reporter.js';

export class TerminalReporter implements Reporter {
  private readonly secrets = new Set<string>();
  readonly summaries: string[] = [];

  constructor(
    private readonly out: (line: string) => void,
    private readonly err: (line: string) => void,
    private readonly verbose = false,
  ) {}

  private mask(text: string): string {
    let s = text;
    for (const secret of this.secrets) s = s.split(secret).join('***');
    return s;
  }
  private where(p?: AnnotationProps): string {
    if (!p?.file) return '';
    return p.line ? `${p.file}:${p.line}: ` : `${p.file}: `;
  }
  info(message: string) {
    this.out(this.mask(message));
  }
  debug(message: string) {
    if (this.verbose) this.err(this.mask(`debug: ${message}`));
  }
  notice(message: string, p?: AnnotationProps) {
    this.out(this.mask(`notice: ${this.where(p)}${message}`));
  }
  warning(message: string, p?: AnnotationProps) {
    this.err(this.mask(`warning: ${this.where(p)}${message}`));
  }
  error(message: string, p?: AnnotationProps) {
    this.err(this.mask(`error: ${this.where(p)}${message}`));
  }
  async group<T>(name: string, fn: () => Promise<T>): Promise<T> {
    this.out(this.mask(`== ${name}`));
    return fn();
  }
  summary(markdown: string) {
    this.summaries.push(markdown);
  }
  secret(value: string) {
    if (value && value.length >= 6) this.secrets.add(value);
  }
}
