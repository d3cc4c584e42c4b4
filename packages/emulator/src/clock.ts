/**
 * The emulator's time. `real` follows the wall clock (optionally sped up by `scale`); `manual` only
 * moves when told, so tests need not sleep. Every time-dependent state (dbt runs, token expiry) reads it.
 */
export interface ClockOptions {
  mode?: 'real' | 'manual';
  /** Emulated milliseconds per real millisecond (real mode), default 1. */
  scale?: number;
  /** Start time (ms since epoch); default now. */
  start?: number;
}

export class Clock {
  private readonly mode: 'real' | 'manual';
  private readonly scale: number;
  private base: number;
  private readonly realStart = Date.now();
  private offset = 0;

  constructor(options: ClockOptions = {}) {
    this.mode = options.mode ?? 'real';
    this.scale = options.scale ?? 1;
    if (!(this.scale > 0)) throw new Error(`clock scale: got ${options.scale}, expected a positive number`);
    this.base = options.start ?? Date.now();
  }

  now(): number {
    if (this.mode === 'manual') return this.base + this.offset;
    return this.base + (Date.now() - this.realStart) * this.scale + this.offset;
  }

  iso(): string {
    return new Date(this.now()).toISOString();
  }

  /** Move time forward (both modes). */
  advance(ms: number): void {
    if (!(ms >= 0)) throw new Error(`clock advance: got ${ms}, expected a non-negative number of ms`);
    this.offset += ms;
  }

  describe(): { mode: string; scale: number; now: string } {
    return { mode: this.mode, scale: this.scale, now: this.iso() };
  }
}
