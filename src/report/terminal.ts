/**
 * The Reporter of a terminal run: plain lines, secrets masked, annotations as `file:line[:column]: message`.
 * Progress redraws one status line, and only when the Io has a terminal to draw it on.
 */
import type { AnnotationProps, Reporter } from './reporter.js';

/** Redraws of the status line at most this often (ms): a 300-file upload would otherwise flicker. */
const REDRAW_MS = 100;

export class TerminalReporter implements Reporter {
  private readonly secrets = new Set<string>();
  readonly summaries: string[] = [];
  private current: { phase: string; detail: string; since: number } | undefined;
  private drawnAt = 0;
  /** Redraws the elapsed time while a phase waits between updates (a dbt poll can take 30 s). */
  private ticker: NodeJS.Timeout | undefined;

  constructor(
    private readonly out: (line: string) => void,
    private readonly err: (line: string) => void,
    private readonly verbose = false,
    private readonly status?: (line: string) => void,
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
  progress(phase: string, detail = '') {
    if (!this.status) return;
    if (!phase) {
      clearInterval(this.ticker);
      this.ticker = undefined;
      this.current = undefined;
      this.status('');
      return;
    }
    const now = Date.now();
    const changed = phase !== this.current?.phase;
    this.current = { phase, detail, since: changed ? now : (this.current?.since ?? now) };
    if (!changed && now - this.drawnAt < REDRAW_MS) return;
    this.draw();
    if (!this.ticker) {
      this.ticker = setInterval(() => this.draw(), 1000);
      // The ticker never keeps the process alive on its own.
      this.ticker.unref();
    }
  }
  private draw() {
    if (!this.current || !this.status) return;
    this.drawnAt = Date.now();
    const seconds = Math.floor((this.drawnAt - this.current.since) / 1000);
    this.status(this.masked(`${this.current.phase} (${seconds} s)${this.current.detail ? `: ${this.current.detail}` : ''}`));
  }
}
