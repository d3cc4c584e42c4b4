/**
 * Run tasks with a concurrency that adapts to how the platform answers: it starts low, doubles after
 * every window of healthy answers up to the ceiling, and halves when an answer says slow down (429,
 * 5xx, a timeout). Nobody knows how the platform takes parallel uploads into one transaction (the
 * vendor's clients send one file at a time), so the pool only goes as fast as the answers allow.
 */

export interface AdaptivePoolOptions {
  /** Parallel tasks at the start (at least 1). */
  start: number;
  /** Parallel tasks at most. */
  max: number;
  /** Told each time the limit changes (for the log). */
  onChange?: (limit: number, why: string) => void;
}

export class AdaptivePool {
  private limit: number;
  private healthy = 0;
  private readonly max: number;

  constructor(private readonly options: AdaptivePoolOptions) {
    this.max = Math.max(1, options.max);
    this.limit = Math.max(1, Math.min(options.start, this.max));
  }

  /** The current number of parallel tasks. */
  get concurrency(): number {
    return this.limit;
  }

  /** An answer that asked to slow down: halve (not below 1), and count healthy answers afresh. */
  slowDown(why: string): void {
    const next = Math.max(1, Math.floor(this.limit / 2));
    this.healthy = 0;
    if (next !== this.limit) {
      this.limit = next;
      this.options.onChange?.(next, why);
    }
  }

  private succeeded(): void {
    this.healthy += 1;
    // A whole window of healthy answers at this width: try twice as many.
    if (this.healthy >= this.limit && this.limit < this.max) {
      this.limit = Math.min(this.max, this.limit * 2);
      this.healthy = 0;
      this.options.onChange?.(this.limit, 'answers stay healthy');
    }
  }

  /** Run `fn` over `items`; results keep the input order; the first failure stops new work and is thrown. */
  async map<T, R>(items: readonly T[], fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
    const out = new Array<R>(items.length);
    let next = 0;
    let running = 0;
    let failed: { error: unknown } | undefined;
    await new Promise<void>((resolve) => {
      const pump = () => {
        if (failed || next >= items.length) {
          if (running === 0) resolve();
          return;
        }
        while (!failed && running < this.limit && next < items.length) {
          const i = next++;
          running += 1;
          fn(items[i] as T, i)
            .then(
              (r) => {
                out[i] = r;
                this.succeeded();
              },
              (e: unknown) => {
                failed ??= { error: e };
              },
            )
            .finally(() => {
              running -= 1;
              pump();
            });
        }
      };
      pump();
    });
    if (failed) throw failed.error;
    return out;
  }
}
