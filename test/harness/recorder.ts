/** What one step writes (log lines, annotations, summaries, outputs), masked as it is written. */
import type { JobState } from './job-state.js';
import type { Annotation } from './types.js';

/** Collects what one step writes, and passes it up to the enclosing step and the job. */
export class StepRecorder {
  readonly log: string[] = [];
  readonly annotations: Annotation[] = [];
  readonly summary: string[] = [];
  outputs: Record<string, string> = {};
  readonly state: Record<string, string> = {};
  commandFailed = false;
  echo = false;
  stopToken: string | undefined;

  constructor(
    readonly job: JobState,
    readonly id: string,
    readonly parent?: StepRecorder,
  ) {}

  private *chain(): Generator<StepRecorder> {
    yield this;
    for (let r = this.parent; r; r = r.parent) yield r;
  }

  /** Write a line to the log, masked with the secrets known now. */
  write(line: string): void {
    const masked = this.job.masker.mask(line);
    for (const r of this.chain()) r.log.push(masked);
    this.job.log.push(masked);
    this.job.onLog?.(masked, this.id);
  }

  annotate(a: Omit<Annotation, 'step'>): void {
    const masked: Annotation = { ...a, message: this.job.masker.mask(a.message), step: this.id };
    if (masked.title !== undefined) masked.title = this.job.masker.mask(masked.title);
    for (const r of this.chain()) r.annotations.push(masked);
    this.job.annotations.push(masked);
    this.write(`##[${a.level}]${a.message}`);
  }

  debug(message: string): void {
    const masked = this.job.masker.mask(message);
    this.job.debugLines.push(masked);
    if (this.job.debug) this.write(`##[debug]${message}`);
  }

  addSummary(text: string): void {
    for (const r of this.chain()) r.summary.push(text);
    this.job.summaries.push(text);
  }
}
