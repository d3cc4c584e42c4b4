/** The upload pool's concurrency: starts low, doubles after healthy windows up to the ceiling, halves when told to slow down. */
import { describe, expect, it } from 'vitest';
import { AdaptivePool } from '../src/operations/adaptive-pool.js';

/** Run `n` tasks that each take a tick, recording how many ran at once. */
async function run(pool: AdaptivePool, n: number, onTask?: (i: number) => void) {
  let running = 0;
  const peaks: number[] = [];
  const results = await pool.map(
    Array.from({ length: n }, (_, i) => i),
    async (i) => {
      running += 1;
      peaks.push(running);
      onTask?.(i);
      await new Promise((r) => setTimeout(r, 1));
      running -= 1;
      return i * 2;
    },
  );
  return { results, peak: Math.max(...peaks) };
}

describe('adaptive upload pool', () => {
  it('starts at 4 and grows to the ceiling while answers stay healthy; results keep their order', async () => {
    const limits: number[] = [];
    const pool = new AdaptivePool({ start: 4, max: 16, onChange: (n) => limits.push(n) });
    const { results, peak } = await run(pool, 200);
    expect(results).toEqual(Array.from({ length: 200 }, (_, i) => i * 2));
    expect(limits).toEqual([8, 16]);
    expect(peak).toBe(16);
    expect(pool.concurrency).toBe(16);
  });

  it('halves on a slow-down signal, not below 1, and never goes past the ceiling', async () => {
    const pool = new AdaptivePool({ start: 4, max: 6 });
    await run(pool, 40);
    expect(pool.concurrency).toBe(6);
    pool.slowDown('429');
    expect(pool.concurrency).toBe(3);
    pool.slowDown('503');
    pool.slowDown('503');
    pool.slowDown('timeout');
    expect(pool.concurrency).toBe(1);
  });

  it('a pool told to slow down mid-way runs fewer at once from then on', async () => {
    const pool = new AdaptivePool({ start: 8, max: 8 });
    const { peak } = await run(pool, 30, (i) => i === 3 && pool.slowDown('429'));
    expect(peak).toBe(8);
    expect(pool.concurrency).toBeLessThanOrEqual(8);
    const second = await run(new AdaptivePool({ start: 1, max: 1 }), 10);
    expect(second.peak).toBe(1);
  });

  it('stops taking new work after the first failure and throws it', async () => {
    const pool = new AdaptivePool({ start: 2, max: 2 });
    let started = 0;
    const err = await pool
      .map([1, 2, 3, 4, 5, 6], async (i) => {
        started += 1;
        if (i === 2) throw new Error('boom');
        await new Promise((r) => setTimeout(r, 5));
      })
      .catch((e: unknown) => e);
    expect((err as Error).message).toBe('boom');
    expect(started).toBeLessThan(6);
  });
});
